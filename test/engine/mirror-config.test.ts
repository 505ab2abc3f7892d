// How `npm run promote` and `npm run failback` record `mirror.promoted` and `mirror.rejoin` in the
// stack config (commands/mirror-ports.ts setMirrorField), against the real pulumi CLI, in both forms
// a user may store `kamino:irisClusters` in: YAML in Pulumi.<stack>.yaml, and one JSON string (what
// `pulumi config set kamino:irisClusters '<json>'` writes). On the JSON string, `config set --path`
// replaces the whole list by the path alone, so every other entry and field must be kept here.
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { setMirrorField } from "../../commands/mirror-ports";
import { StackRef } from "../../commands/pulumi-stack";
import { parseMirrors } from "../../components/mirror/mirror-state";
import { EngineSandbox, toolchainPath } from "../support/engine";

jest.setTimeout(2 * 60 * 1000);

const IRIS_CLUSTERS = [
    { name: "plain", namespace: "default", placement: { clusterNames: ["ikoclone"] } },
    { name: "iris", namespace: "default", image: "containers.intersystems.com/intersystems/iris:2025.1", mirror: { primary: "ikoclone", drAsync: ["ikodr"] } },
];
const [MIRROR] = parseMirrors({ "default/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 1 } });
const WITH_BOTH = [IRIS_CLUSTERS[0], { ...IRIS_CLUSTERS[1], mirror: { ...IRIS_CLUSTERS[1].mirror, promoted: "ikodr", rejoin: true } }];

let sandbox: EngineSandbox;
beforeAll(() => {
    sandbox = new EngineSandbox(toolchainPath("engine"));
});
afterAll(() => sandbox?.cleanup());

const stackFile = (name: string) => path.join(sandbox.project, `Pulumi.${name}.yaml`);
const ref = (name: string): StackRef => ({ stack: name, cwd: sandbox.project, env: { ...process.env, ...sandbox.env } });

test("kamino:irisClusters as one JSON string: both fields set, every other entry and field kept, still one string", async () => {
    const stack = await sandbox.stack("json", undefined, { "kamino:irisClusters": IRIS_CLUSTERS });
    expect(typeof YAML.parse(fs.readFileSync(stackFile("json"), "utf8")).config["kamino:irisClusters"]).toBe("string");
    await setMirrorField(ref("json"), MIRROR, "promoted", "ikodr");
    await setMirrorField(ref("json"), MIRROR, "rejoin", true);
    const stored = YAML.parse(fs.readFileSync(stackFile("json"), "utf8")).config["kamino:irisClusters"];
    expect(typeof stored).toBe("string");
    expect(JSON.parse(stored)).toEqual(WITH_BOTH);
    expect(JSON.parse((await stack.getConfig("kamino:irisClusters")).value)).toEqual(WITH_BOTH);
});

test("kamino:irisClusters as YAML: both fields set in place with --path, YAML still", async () => {
    await sandbox.stack("yaml", undefined);
    const file = YAML.parse(fs.readFileSync(stackFile("yaml"), "utf8")) ?? {};
    fs.writeFileSync(stackFile("yaml"), YAML.stringify({ ...file, config: { "kamino:irisClusters": IRIS_CLUSTERS } }));
    await setMirrorField(ref("yaml"), MIRROR, "promoted", "ikodr");
    await setMirrorField(ref("yaml"), MIRROR, "rejoin", true);
    expect(YAML.parse(fs.readFileSync(stackFile("yaml"), "utf8")).config["kamino:irisClusters"]).toEqual(WITH_BOTH);
});

test("an entry moved since the last up is refused, in either form, and nothing is written", async () => {
    const moved = parseMirrors({
        "default/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 0 },
    })[0];
    for (const name of ["json", "yaml"]) {
        const before = fs.readFileSync(stackFile(name), "utf8");
        await expect(setMirrorField(ref(name), moved, "promoted", "ikodr")).rejects.toThrow(
            /kamino:irisClusters\[0\] is not the mirror default\/iris any more/,
        );
        expect(fs.readFileSync(stackFile(name), "utf8")).toBe(before);
    }
});
