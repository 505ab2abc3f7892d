// A guard for refactors: the URN of every resource of the dev, gcp, dr and prod stacks, built from
// their own Pulumi.<stack>.yaml under mocks, equals the sorted list committed in
// test/unit/__urns__/<stack>.json. A URN is a resource's identity in the state: a changed name,
// type or parent makes `pulumi up` delete the object and create a new one (a kind cluster, a Karmada
// install, a member's join), so a refactor that moves code must leave these files as they are.
//
// The URNs are the engine's: a child's type is qualified by its parent's whole type chain
// (`Fleet$KarmadaControlPlane$kubernetes:helm.sh/v3:Release`), which the mock monitor shortens to
// the parent's own type, so the test computes them as the engine does. The root stack resource is
// not among them (the program runs here without it; the engine leaves it out of its children's URNs).
//
// After a change that is meant to change URNs (with aliases, or before anyone has run the stack),
// rewrite the lists and review their diff like code:
//   KAMINO_UPDATE_URNS=1 npx jest --selectProjects unit test/unit/stack-urns.test.ts
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { FIXTURE_CHART, stackConfig } from "../support/mocks";
import { runStack } from "../support/stack-under-mocks";

const URN_DIR = path.join(__dirname, "__urns__");
const UPDATE = process.env.KAMINO_UPDATE_URNS === "1";
const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";

/** The part of the mock monitor this test reaches into: how it names a resource. */
interface UrnNamingMonitor {
    newUrn(parent: string, type: string, name: string): string;
}

/** The engine's URN of a resource: its type qualified by the parent's whole chain, the root stack left out. */
function engineUrn(stack: string, project: string, parent: string | undefined, type: string, name: string): string {
    const parentType = parent ? parent.split("::")[2] : "";
    const qualified = parentType && parentType !== ROOT_STACK_TYPE ? `${parentType}$${type}` : type;
    return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** Builds a stack under mocks and returns every URN it registered, in the order they were registered. */
async function urnsOf(stack: string, preview: boolean): Promise<string[]> {
    const config = stackConfig(`Pulumi.${stack}.yaml`, { "kamino:iko": { chartPath: FIXTURE_CHART } });
    const urns: string[] = [];
    await runStack(config, {
        preview,
        stack,
        beforeProgram: () => {
            const monitor = pulumi.runtime.getMonitor() as unknown as UrnNamingMonitor;
            monitor.newUrn = (parent, type, name) => {
                const urn = engineUrn(stack, "kamino", parent, type, name);
                urns.push(urn);
                return urn;
            };
        },
    });
    return urns;
}

test("engine URNs: a child's type carries its parent's whole chain; the root stack is left out", () => {
    const fleet = engineUrn("dev", "kamino", undefined, "kamino:index:Fleet", "kamino");
    expect(fleet).toBe("urn:pulumi:dev::kamino::kamino:index:Fleet::kamino");
    const plane = engineUrn("dev", "kamino", fleet, "kamino:index:KarmadaControlPlane", "karmada");
    expect(plane).toBe("urn:pulumi:dev::kamino::kamino:index:Fleet$kamino:index:KarmadaControlPlane::karmada");
    expect(engineUrn("dev", "kamino", plane, "kubernetes:helm.sh/v3:Release", "karmada")).toBe(
        "urn:pulumi:dev::kamino::kamino:index:Fleet$kamino:index:KarmadaControlPlane$kubernetes:helm.sh/v3:Release::karmada",
    );
    expect(engineUrn("dev", "kamino", "urn:pulumi:dev::kamino::pulumi:pulumi:Stack::kamino-dev", "kamino:index:Fleet", "kamino")).toBe(fleet);
});

describe.each(["dev", "gcp", "dr", "prod"])("the %s stack", (stack) => {
    let urns: string[];
    beforeAll(async () => {
        urns = await urnsOf(stack, false);
    }, 120_000); // loading @pulumi/gcp with a cold cache on a busy machine takes long

    test("registers each URN once (the engine refuses a duplicate)", () => {
        expect(urns.filter((u, i) => urns.indexOf(u) !== i)).toEqual([]);
    });

    test(`has the URNs of test/unit/__urns__/${stack}.json`, () => {
        const file = path.join(URN_DIR, `${stack}.json`);
        const sorted = [...urns].sort();
        if (UPDATE) {
            fs.mkdirSync(URN_DIR, { recursive: true });
            fs.writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
        }
        if (!fs.existsSync(file)) throw new Error(`no ${path.relative(process.cwd(), file)}: write it with KAMINO_UPDATE_URNS=1 (see this file's header)`);
        // "+" lines: URNs the program now has and the file lacks; "-" lines: URNs that are gone.
        expect(sorted).toEqual(JSON.parse(fs.readFileSync(file, "utf8")) as string[]);
    });

    test("a preview registers the same URNs as an update", async () => {
        expect((await urnsOf(stack, true)).sort()).toEqual([...urns].sort());
    }, 120_000);
});
