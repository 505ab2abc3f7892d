// Dependencies follow the IrisCluster, on the shared two-member fleet (real engine, real Karmada, IKO played by
// the harness): an IrisCluster with a CPF ConfigMap (configSource), a license Secret, a pull Secret and
// a TLS Secret, placed on one of two members, none of them with a placement of its own. Each arrives
// on that member only, with its content, before the harness reports the IrisCluster Running there;
// a removed reference takes its Secret off the member; an edited CPF file updates the member's
// ConfigMap in place. A watcher polls both members every 250 ms and records what it saw when.
// A manifest file (a Service and a NetworkPolicy, kamino:manifests) placed on the same member
// reaches it only; removing the entry removes both from Karmada and from the member.
// Karmada does not order an IrisCluster and its dependencies: the dependencies' bindings are made
// only once the IrisCluster's is scheduled, so they reach the member seconds after it. The harness
// therefore plays IKO as IRIS's pods behave: Running only once what they mount and pull with is there
// (IkoPlayer waitForNeeds); the report prints each dependency's lag behind the IrisCluster.
import * as fs from "fs";
import * as path from "path";
import { EngineSandbox } from "../../support/engine";
import { KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { SuiteReport } from "../scaffold/report";
import { onSharedFleet, SharedFleet } from "../scaffold/shared-fleet";
import { existingFleetKeys, IRIS_IMAGE } from "../loopback-stack";
import { runTempDir } from "../../support/process-reaper";

const TARGET = "ikoclone2";
const OTHER = "ikoclone";
/** The members of the shared fleet. */
export const DEPENDENCIES_MEMBERS = [OTHER, TARGET];
const MEMBERS = DEPENDENCIES_MEMBERS;
const NS = "iris";
const WAIT = { timeoutMs: 120_000, intervalMs: 500 };
const LICENSE = "IRIS-LICENSE-FOR-DEPENDENCIES";
const CPF_1 = "[Startup]\nPasswordHash=aaaa,bbbb\n";
const CPF_2 = "[Startup]\nPasswordHash=cccc,dddd\n[config]\nglobals=0,0,64,0,0,0\n";

type Obj = KubeObject & { data?: Record<string, string>; status?: { phase?: string } };
/** What the watcher follows on each member, by a short name. */
const WATCHED: Record<string, string> = {
    iris: resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: NS, name: "iris" }),
    cpf: resourcePath("v1", "configmaps", { namespace: NS, name: "iris-cpf" }),
    license: resourcePath("v1", "secrets", { namespace: NS, name: "iris-key-secret" }),
    pull: resourcePath("v1", "secrets", { namespace: NS, name: "icr-pull" }),
    tls: resourcePath("v1", "secrets", { namespace: NS, name: "iris-tls" }),
};
const DEPENDENCIES = ["cpf", "license", "pull", "tls"];
/** The objects of the manifest file, on a member or in Karmada. */
const MANIFEST_OBJECTS: Record<string, string> = {
    service: resourcePath("v1", "services", { namespace: NS, name: "iris-web" }),
    netpol: resourcePath("networking.k8s.io/v1", "networkpolicies", { namespace: NS, name: "iris-web-only" }),
};
const MANIFEST_YAML = `apiVersion: v1
kind: Service
metadata:
  name: iris-web
  namespace: ${NS}
spec:
  selector: { app: iris }
  ports: [{ name: web, port: 52773, targetPort: 52773 }]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: iris-web-only
  namespace: ${NS}
spec:
  podSelector: { matchLabels: { app: iris } }
  policyTypes: [Ingress]
  ingress: [{ ports: [{ port: 52773 }] }]
`;

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let stack: Awaited<ReturnType<EngineSandbox["stack"]>>;
let dir: string;
let cpfFile: string;
let manifestFile: string;
let report: SuiteReport;
const member = (name: string): KubeClient => fleet.members.find((m) => m.name === name)!.client;
const note = (line: string) => report.note(line);
const decode = (b64: string | undefined) => (b64 === undefined ? undefined : Buffer.from(b64, "base64").toString());

/** First time (ms since start) each watched object was seen on each member, and when the IrisCluster was first seen Running. */
class Watcher {
    readonly firstSeen: Record<string, number> = {};
    private readonly start = Date.now();
    private timer?: NodeJS.Timeout;
    private busy: Promise<void> = Promise.resolve();
    run(): this {
        this.timer = setInterval(() => (this.busy = this.busy.then(() => this.tick())), 250);
        return this;
    }
    async stop(): Promise<void> {
        clearInterval(this.timer);
        await this.busy;
    }
    private async tick(): Promise<void> {
        // One timestamp per tick: everything read in a tick counts as seen at once.
        const now = Date.now() - this.start;
        for (const m of MEMBERS) {
            for (const [what, p] of Object.entries(WATCHED)) {
                const o = await member(m)
                    .get<Obj>(p)
                    .catch(() => undefined);
                if (o && this.firstSeen[`${m}/${what}`] === undefined) this.firstSeen[`${m}/${what}`] = now;
                if (what === "iris" && o?.status?.phase === "Running" && this.firstSeen[`${m}/running`] === undefined) this.firstSeen[`${m}/running`] = now;
            }
        }
    }
}

function stackConfig(opts: { pullNamed: boolean; manifest?: boolean }): Record<string, unknown> {
    return {
        ...existingFleetKeys(fleet),
        "kamino:irisClusters": [
            {
                name: "iris",
                namespace: NS,
                image: IRIS_IMAGE,
                placement: { clusterNames: [TARGET] },
                configSource: "iris-cpf",
                licenseKeySecret: "iris-key-secret",
                ...(opts.pullNamed ? { imagePullSecrets: ["icr-pull"] } : {}),
                tlsSecret: "iris-tls",
                runningTimeoutSeconds: 120,
            },
        ],
        "kamino:configMaps": [{ name: "iris-cpf", namespace: NS, data: { "merge.cpf": { file: cpfFile } } }],
        "kamino:secrets": [
            { name: "iris-key-secret", namespace: NS, fromConfig: "irisLicense" },
            // Once no IrisCluster names it, a placement of its own keeps it in Karmada (on the other member).
            {
                name: "icr-pull",
                namespace: NS,
                type: "dockerconfigjson",
                fromConfig: "icr",
                ...(opts.pullNamed ? {} : { placement: { clusterNames: [OTHER] } }),
            },
            { name: "iris-tls", namespace: NS, type: "tls", fromConfig: "irisTls" },
        ],
        "kamino:manifests": opts.manifest === false ? [] : [{ path: manifestFile, placement: { clusterNames: [TARGET] } }],
    };
}

async function setConfig(config: Record<string, unknown>): Promise<void> {
    for (const [key, value] of Object.entries(config)) await stack.setConfig(key, { value: JSON.stringify(value) });
}

const timed = <T>(what: string, fn: () => Promise<T>): Promise<T> => report.timed(what, fn);

/** The dependencies suite's tests, on the shared fleet. */
export function dependenciesSuite(shared: SharedFleet): void {
    const suite = onSharedFleet(shared, "dependencies", { ikoOptions: { waitForNeeds: true }, stacks: () => [stack] });
    beforeAll(async () => {
        ({ fleet, sandbox, report } = suite);
        dir = runTempDir("kamino-deps-");
        cpfFile = path.join(dir, "merge.cpf");
        fs.writeFileSync(cpfFile, CPF_1);
        manifestFile = path.join(dir, "iris-web.yaml");
        fs.writeFileSync(manifestFile, MANIFEST_YAML);
        stack = await sandbox.stack("dependencies", undefined, stackConfig({ pullNamed: true }));
        await stack.setConfig("kamino:irisLicense", { value: JSON.stringify({ "iris.key": LICENSE }), secret: true });
        await stack.setConfig("kamino:icr", {
            value: JSON.stringify({ server: "containers.intersystems.com", username: "me", password: "icr-token" }),
            secret: true,
        });
        await stack.setConfig("kamino:irisTls", { value: JSON.stringify({ "tls.crt": "CERT-PEM", "tls.key": "KEY-PEM" }), secret: true });
    }, 10 * 60_000);

    afterAll(() => {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test("each dependency arrives on the IrisCluster's member only, with its content, before IKO (the harness, waiting for them as IRIS's pods do) reports Running there", async () => {
        const watcher = new Watcher().run();
        try {
            const up = await timed("up: IrisCluster and its dependencies", () => stack.up());
            expect(up.summary.result).toBe("succeeded");
            await waitFor(
                `iris Running on ${TARGET}`,
                async () => ((await member(TARGET).get<Obj>(WATCHED.iris))?.status?.phase === "Running" ? true : undefined),
                WAIT,
            );
            // A last look at both members, so that a late copy on the other member would be seen.
            await new Promise((r) => setTimeout(r, 3000));
        } finally {
            await watcher.stop();
        }
        const seen = watcher.firstSeen;
        note(`first seen (ms): ${JSON.stringify(seen)}`);
        const running = seen[`${TARGET}/running`];
        expect(running).toBeDefined();
        for (const d of DEPENDENCIES) {
            expect([d, seen[`${TARGET}/${d}`]]).toEqual([d, expect.any(Number)]);
            expect([d, seen[`${TARGET}/${d}`] <= running]).toEqual([d, true]);
            report.record(`${d}: after the IrisCluster reached ${TARGET}`, `${((seen[`${TARGET}/${d}`] - seen[`${TARGET}/iris`]) / 1000).toFixed(2)} s`);
        }
        report.record(`Running reported on ${TARGET}, after the IrisCluster reached it`, `${((running - seen[`${TARGET}/iris`]) / 1000).toFixed(2)} s`);
        // Nothing reached the other member, ever.
        expect(Object.keys(seen).filter((k) => k.startsWith(`${OTHER}/`))).toEqual([]);

        // Their content.
        const t = member(TARGET);
        expect((await t.get<Obj>(WATCHED.cpf))?.data).toEqual({ "merge.cpf": CPF_1 });
        expect(decode((await t.get<Obj>(WATCHED.license))?.data?.["iris.key"])).toBe(LICENSE);
        expect(JSON.parse(decode((await t.get<Obj>(WATCHED.pull))?.data?.[".dockerconfigjson"]) ?? "{}").auths["containers.intersystems.com"].username).toBe(
            "me",
        );
        expect(decode((await t.get<Obj>(WATCHED.tls))?.data?.["tls.crt"])).toBe("CERT-PEM");

        // In Karmada: the ConfigMap's binding has no placement of its own; the IrisCluster's binding requires it.
        const binding = await fleet.karmada.client.get<
            KubeObject & { spec?: { placement?: unknown; requiredBy?: Array<{ name: string }>; clusters?: Array<{ name: string }> } }
        >(resourcePath("work.karmada.io/v1alpha2", "resourcebindings", { namespace: NS, name: "iris-cpf-configmap" }));
        expect(binding?.spec?.placement).toBeUndefined();
        expect(binding?.spec?.requiredBy?.map((r) => r.name)).toEqual(["iris-iriscluster"]);
    });

    laterUps();
}

/** The ups after the first: a Secret no longer named, the CPF file edited, the manifest's entry removed (its objects first checked where placed). */
function laterUps(): void {
    test("a reference removed from the IrisCluster takes its Secret off the member", async () => {
        await setConfig(stackConfig({ pullNamed: false }));
        const up = await timed("up: pull Secret no longer named", () => stack.up());
        expect(up.summary.result).toBe("succeeded");
        await timed("pull Secret leaves the member", () =>
            waitFor(`icr-pull gone from ${TARGET}`, async () => ((await member(TARGET).get(WATCHED.pull)) ? undefined : true), WAIT),
        );
        // Its own placement (set in the same step, so that it stays in Karmada) sends it to the other member.
        await waitFor(`icr-pull on ${OTHER}`, async () => ((await member(OTHER).get(WATCHED.pull)) ? true : undefined), WAIT);
        for (const d of ["cpf", "license", "tls"]) {
            expect([d, Boolean(await member(TARGET).get(WATCHED[d]))]).toEqual([d, true]);
            expect([d, Boolean(await member(OTHER).get(WATCHED[d]))]).toEqual([d, false]);
        }
    });

    test("an edited CPF file updates the member's ConfigMap in place", async () => {
        const before = await member(TARGET).get<Obj>(WATCHED.cpf);
        fs.writeFileSync(cpfFile, CPF_2);
        const up = await timed("up: CPF file edited", () => stack.up());
        expect(up.summary.result).toBe("succeeded");
        // An update of the ConfigMap in Karmada, nothing replaced or deleted.
        const changes = Object.entries(up.summary.resourceChanges ?? {}).filter(([op]) => op !== "same");
        expect(changes).toEqual([["update", 1]]);
        expect(up.stdout).toMatch(/~ {2}kubernetes:core\/v1:ConfigMap config-maps-iris-iris-cpf updated/);
        await timed("edited CPF reaches the member", () =>
            waitFor("CPF_2 on the member", async () => ((await member(TARGET).get<Obj>(WATCHED.cpf))?.data?.["merge.cpf"] === CPF_2 ? true : undefined), WAIT),
        );
        const after = await member(TARGET).get<Obj>(WATCHED.cpf);
        expect(after?.metadata?.uid).toBe(before?.metadata?.uid);
        expect(Boolean(await member(OTHER).get(WATCHED.cpf))).toBe(false);
    });

    test("a manifest's Service and NetworkPolicy reach its placement's member only; removing the entry removes them from Karmada and the member", async () => {
        // Placed by the first up.
        for (const [what, p] of Object.entries(MANIFEST_OBJECTS)) {
            await waitFor(`${what} on ${TARGET}`, async () => ((await member(TARGET).get(p)) ? true : undefined), WAIT);
            expect([what, Boolean(await member(OTHER).get(p))]).toEqual([what, false]);
            expect([what, Boolean(await fleet.karmada.client.get(p))]).toEqual([what, true]);
        }
        expect((await stack.outputs()).manifests.value).toEqual({
            [`Service ${NS}/iris-web`]: [TARGET],
            [`NetworkPolicy.networking.k8s.io ${NS}/iris-web-only`]: [TARGET],
        });

        await setConfig({ "kamino:manifests": stackConfig({ pullNamed: false, manifest: false })["kamino:manifests"] });
        const up = await timed("up: manifest entry removed", () => stack.up());
        expect(up.summary.result).toBe("succeeded");
        for (const [what, p] of Object.entries(MANIFEST_OBJECTS)) {
            expect([what, Boolean(await fleet.karmada.client.get(p))]).toEqual([what, false]);
            await timed(`${what} leaves ${TARGET}`, () =>
                waitFor(`${what} gone from ${TARGET}`, async () => ((await member(TARGET).get(p)) ? undefined : true), WAIT),
            );
        }
        // Narrow access narrowed again: Karmada's Role in the namespace no longer names the kinds.
        const role = await member(TARGET).get<KubeObject & { rules?: Array<{ resources?: string[] }> }>(
            resourcePath("rbac.authorization.k8s.io/v1", "roles", { namespace: NS, name: `karmada-controller-manager:karmada-${TARGET}:${NS}` }),
        );
        expect(role?.rules?.flatMap((r) => r.resources ?? []).sort()).toEqual(["configmaps", "irisclusters", "secrets"]);
    });
}
