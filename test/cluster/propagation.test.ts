// The claim of Kamino, proven with real software: `pulumi up` (the real CLI, language host and
// kubernetes provider) against real etcd, kube-apiservers and a real Karmada control plane on
// loopback makes federated-iris and the synced Secrets appear on every member; a second `up`
// changes nothing; `pulumi destroy` takes everything away and unjoins the members.
// Clusters are declared `existing` (no kind here) and Karmada is the harness's; IKO is the
// stand-in chart, installed by the real Helm release, which creates the IrisCluster CRD.
import { EngineEvent } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { EngineSandbox, stepRecorder, toolchainPath } from "../support/engine";
import { runTempDir } from "../support/process-reaper";
import { LICENSE, loopbackStack } from "./loopback-stack";
import {
    CLUSTER_API_VERSION,
    clusterCondition,
    IkoPlayer,
    KarmadaClusterObject,
    KubeClient,
    KubeObject,
    LoopbackFleet,
    resourcePath,
    waitFor,
} from "./harness";

jest.setTimeout(40 * 60_000);

const SCALES = (process.env.KAMINO_CLUSTER_SCALES ?? "1,4").split(",").map(Number);
const WAIT = { timeoutMs: 180_000, intervalMs: 1000 };

/**
 * A kubeconfig for `server` whose credential comes from an exec plugin, as on EKS, GKE, AKS or OIDC:
 * a script that prints an ExecCredential holding the admin client certificate. The Go provider
 * (client-go) and Kamino's CRD reader (@kubernetes/client-node) must both run it.
 */
function execPluginKubeconfig(adminKubeconfig: string, dir: string): string {
    const admin = YAML.parse(fs.readFileSync(adminKubeconfig, "utf8"));
    const user = admin.users[0].user;
    const pem = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
    const credential = path.join(dir, "credential.json");
    fs.writeFileSync(
        credential,
        JSON.stringify({
            apiVersion: "client.authentication.k8s.io/v1",
            kind: "ExecCredential",
            status: { clientCertificateData: pem(user["client-certificate-data"]), clientKeyData: pem(user["client-key-data"]) },
        }),
        { mode: 0o600 },
    );
    const plugin = path.join(dir, "credential-plugin.sh");
    fs.writeFileSync(plugin, `#!/bin/sh\n# Counts its runs, so the test can tell it was used.\necho x >> "${plugin}.runs"\ncat "${credential}"\n`, {
        mode: 0o700,
    });
    const file = path.join(dir, "exec.kubeconfig");
    admin.users[0].user = { exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" } };
    fs.writeFileSync(file, YAML.stringify(admin), { mode: 0o600 });
    return file;
}
const pluginRuns = (kubeconfig: string) => {
    const plugin = YAML.parse(fs.readFileSync(kubeconfig, "utf8")).users[0].user.exec.command as string;
    return fs.existsSync(`${plugin}.runs`) ? fs.readFileSync(`${plugin}.runs`, "utf8").split("\n").filter(Boolean).length : 0;
};

type Timings = Record<string, number>;
const report: Record<string, Timings> = {};

afterAll(() => {
    const lines = Object.entries(report).map(
        ([k, t]) =>
            `${k}: ${Object.entries(t)
                .map(([s, ms]) => `${s} ${(ms / 1000).toFixed(1)} s`)
                .join(", ")}`,
    );
    console.log(`pulumi on the loopback fleet\n${lines.join("\n")}`);
    if (process.env.KAMINO_CLUSTER_TIMINGS_FILE) fs.writeFileSync(process.env.KAMINO_CLUSTER_TIMINGS_FILE, JSON.stringify(report, null, 2));
});

/**
 * Why every pulumi call gets a TMPDIR of its own (commands/pulumi-stack.ts, test/support/engine.ts):
 * the provider writes a kubeconfig per provider it configures, credentials included, and never removes it.
 */
function expectProviderKubeconfigsKeptIn(tmpdir: string, since: number): void {
    const leftByProvider = fs.readdirSync(tmpdir).filter((f) => f.startsWith("kubeconfig"));
    const holdsCredentials = leftByProvider.filter((f) => /client-key-data|token:/.test(fs.readFileSync(path.join(tmpdir, f), "utf8")));
    expect(holdsCredentials.length).toBeGreaterThan(0);
    const machines = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith("kubeconfig") && fs.statSync(path.join(os.tmpdir(), f)).mtimeMs >= since);
    expect(machines).toEqual([]);
}

const started = Date.now();

/**
 * What the tests of one scale share, set by its beforeAll and by the tests in turn: describe.each
 * runs its body once per scale, and each run makes its own.
 */
class ScaleRun {
    readonly members: string[];
    private readonly timings: Timings;
    fleet!: LoopbackFleet;
    sandbox!: EngineSandbox;
    stack!: Awaited<ReturnType<EngineSandbox["stack"]>>;
    outputs!: Record<string, { value: unknown; secret: boolean }>;
    upOutput = "";
    progress: Array<{ urn: string; message: string; ephemeral: boolean }> = [];
    pluginDir!: string;
    iko!: IkoPlayer;
    hostKubeconfig!: string;

    constructor(count: number) {
        this.members = Array.from({ length: count }, (_, i) => (i === 0 ? "ikoclone" : `ikoclone${i + 1}`));
        this.timings = report[`${count} member(s)`] = {};
    }

    // Arrow functions, so that a test group can take them out of the run: `const { timed } = run`.
    readonly timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
        const t = Date.now();
        try {
            return await fn();
        } finally {
            this.timings[what] = Date.now() - t;
        }
    };
    readonly clientOf = (name: string): KubeClient => this.fleet.members.find((m) => m.name === name)!.client;
    readonly karmada = () => this.fleet.karmada.client;
}

describe.each(SCALES)("a fleet with %i member(s)", (count) => {
    const run = new ScaleRun(count);

    beforeAll(async () => {
        run.fleet = new LoopbackFleet({ hostName: "ikofett", members: run.members });
        await run.timed("harness start", () => run.fleet.start());
        // IKO "starts IRIS" 5 s after an IrisCluster reaches a member, reporting Creating until then (the
        // running-wait polls every 2 s, so it sees Creating); `up` must wait for it.
        run.iko = new IkoPlayer(run.fleet.members, 5000, { creating: true }).start();
        run.sandbox = new EngineSandbox(toolchainPath("engine"));
        run.pluginDir = runTempDir("kamino-exec-");
        run.hostKubeconfig = execPluginKubeconfig(run.fleet.hostKubeconfig, run.pluginDir);
        run.stack = await loopbackStack(run.sandbox, run.fleet, `loopback-${count}`, { hostKubeconfig: run.hostKubeconfig });
    });

    afterAll(async () => {
        await run.iko?.stop();
        run.sandbox?.cleanup();
        if (run.pluginDir) fs.rmSync(run.pluginDir, { recursive: true, force: true });
        await run.fleet?.stop();
    });

    upAndWhatItShowed(run);
    hostAndKarmada(run);
    onEveryMember(run);
    outputsNoOpUpAndDestroy(run);
});

/** pulumi up, what it showed while it waited, and IRIS running on every member when it returned. */
function upAndWhatItShowed(run: ScaleRun): void {
    const { members, timed, clientOf } = run;

    test("pulumi up (pulumi-kubernetes' kubeconfig files, credentials in each, stay in the sandbox's TMPDIR)", async () => {
        const rec = stepRecorder();
        const infos: Array<{ urn: string; message: string; ephemeral: boolean }> = [];
        const onEvent = (e: EngineEvent) => {
            rec.onEvent(e);
            const d = e.diagnosticEvent;
            if (d && d.severity === "info") infos.push({ urn: d.urn ?? "", message: d.message.trim(), ephemeral: Boolean(d.ephemeral) });
        };
        const result = await timed("pulumi up", () => run.stack.up({ onEvent }));
        expect(result.summary.result).toBe("succeeded");
        ({ outputs: run.outputs, stdout: run.upOutput } = result);
        run.progress = infos;
        expectProviderKubeconfigsKeptIn(run.sandbox.env.TMPDIR, started);
    });

    test("while up waits, the waiting components show what they wait on as it changes, and how each wait ended", () => {
        // The CRD wait, on the CrdMirror: IKO's CRD on the host, then one line when found.
        const onMirror = run.progress.filter((i) => i.urn.endsWith("kamino:index:CrdMirror::iris-crd"));
        expect(onMirror.filter((i) => !i.ephemeral).map((i) => i.message)).toEqual([
            expect.stringMatching(/^CRD irisclusters\.intersystems\.com found on ikofett \(waited \d+s\)$/),
        ]);
        // The running-wait, on the FederatedIrisCluster: the phases the harness plays, changes only, then where it runs.
        const onIris = run.progress.filter((i) => i.urn.endsWith("kamino:index:FederatedIrisCluster::federated-iris"));
        const updates = onIris.filter((i) => i.ephemeral).map((i) => i.message);
        expect(updates.some((m) => /^waiting for IRIS to run: .*ikoclone\d* Creating \(Ready=False: IRISStarting: IRIS pods are starting\)/.test(m))).toBe(
            true,
        );
        expect(new Set(updates.map((m) => m.replace(/ \(waited \d+[smh\d]*\)$/, ""))).size).toBe(updates.length);
        const done = `IrisCluster default/federated-iris runs on ${members.join(", ")}`;
        expect(onIris.filter((i) => !i.ephemeral).map((i) => i.message)).toEqual([expect.stringMatching(new RegExp(`^${done} \\(waited \\d+s\\)$`))]);
        // What a user sees in the output (non-interactive, as in CI): the phases on the component's row, then how the wait ended.
        const row = run.upOutput.split("\n").filter((l) => l.includes("kamino:index:FederatedIrisCluster federated-iris"));
        expect(row.some((l) => / waiting for IRIS to run: .*Creating \(Ready=False: IRISStarting/.test(l))).toBe(true);
        expect(run.upOutput).toContain(done);
    });

    test("when up returns, federated-iris already runs on every member", async () => {
        for (const m of members) {
            const copy = await clientOf(m).get<KubeObject & { status?: { phase?: string } }>(
                resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" }),
            );
            expect([m, copy?.status?.phase]).toEqual([m, "Running"]);
        }
    });
}

/** The host's exec-plugin credential at work, then Karmada: the CRD mirrored into it, every member's Cluster Ready. */
function hostAndKarmada(run: ScaleRun): void {
    const { members, timed, karmada } = run;

    test("the host's exec-plugin kubeconfig served the kubernetes provider and Kamino's CRD reader", async () => {
        const before = pluginRuns(run.hostKubeconfig);
        expect(before).toBeGreaterThanOrEqual(1);
        // Kamino's reader, in a process of its own (it loads the ES-module client as Pulumi's Node does).
        const script = `const k = require("./components/live/kube-read");
            k.kubeReader(require("fs").readFileSync(process.argv[1], "utf8"), k.crdPath("irisclusters.intersystems.com"))()
                .then((o) => process.stdout.write(JSON.stringify(o)));`;
        const out = execFileSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script, run.hostKubeconfig], { encoding: "utf8" });
        // Exactly what the API served (the library's typed models would rename schema fields).
        const live = await run.fleet.host.client.get(
            resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: "irisclusters.intersystems.com" }),
        );
        expect(JSON.parse(out)).toEqual(live);
        expect(pluginRuns(run.hostKubeconfig)).toBe(before + 1);
    });

    test("the IrisCluster CRD was mirrored into Karmada", async () => {
        const crd = await karmada().get(resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: "irisclusters.intersystems.com" }));
        expect(crd?.spec).toMatchObject({ group: "intersystems.com", scope: "Namespaced", names: { kind: "IrisCluster" } });
    });

    test("every member's Karmada Cluster turns Ready", async () => {
        await timed("members Ready", () =>
            Promise.all(
                members.map((m) =>
                    waitFor(
                        `Cluster ${m} Ready`,
                        async () => {
                            const c = await karmada().get<KarmadaClusterObject>(resourcePath(CLUSTER_API_VERSION, "clusters", { name: m }));
                            return clusterCondition(c, "Ready")?.status === "True" ? c : undefined;
                        },
                        WAIT,
                    ),
                ),
            ),
        );
    });
}

/** federated-iris and the synced Secret on every member, and their health as Karmada judges it. */
function onEveryMember(run: ScaleRun): void {
    const { members, timed, clientOf, karmada } = run;

    test("federated-iris exists on every member with the template's spec", async () => {
        const template = await karmada().get(resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" }));
        expect(template?.spec).toEqual({
            topology: { data: { image: "containers.intersystems.com/intersystems/iris-community:2025.1" } },
            serviceTemplate: { spec: { type: "LoadBalancer" } },
        });
        await timed("federated-iris on all members", () =>
            Promise.all(
                members.map(async (m) => {
                    const copy = await waitFor(
                        `federated-iris on ${m}`,
                        () => clientOf(m).get(resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" })),
                        WAIT,
                    );
                    expect(copy.spec).toEqual(template!.spec);
                    expect(copy.metadata?.labels).toMatchObject({ "karmada.io/managed": "true" });
                }),
            ),
        );
        // The host is not a member: nothing is propagated there.
        expect(
            await run.fleet.host.client.get(resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" })),
        ).toBeUndefined();
    });

    test("Karmada judges IrisCluster health with Kamino's interpreter, and aggregates status onto the template", async () => {
        const binding = resourcePath("work.karmada.io/v1alpha2", "resourcebindings", { namespace: "default", name: "federated-iris-iriscluster" });
        type Binding = KubeObject & { status?: { aggregatedStatus?: Array<{ clusterName: string; health?: string }> } };
        const health = async () => {
            const b = await karmada().get<Binding>(binding);
            const items = b?.status?.aggregatedStatus ?? [];
            return items.length === members.length ? Object.fromEntries(items.map((i) => [i.clusterName, i.health])) : undefined;
        };
        // A member whose health Karmada has not judged yet reads Unknown: wait for real values
        // (the first aggregated status can have an entry per member and still say Unknown).
        const judged = async () => {
            const h = await health();
            return h && Object.values(h).every((x) => x === "Healthy" || x === "Unhealthy") ? h : undefined;
        };
        // IKO (played) reports Running, so Kamino's interpreter must say Healthy, on every member.
        expect(await timed("health judged", () => waitFor("health judged on every member", judged, WAIT))).toEqual(
            Object.fromEntries(members.map((m) => [m, "Healthy"])),
        );
        const template = await waitFor(
            "template status Running",
            async () => {
                const t = await karmada().get<KubeObject & { status?: { phase?: string; clusters?: unknown[] } }>(
                    resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" }),
                );
                return t?.status?.phase === "Running" ? t : undefined;
            },
            WAIT,
        );
        expect(template.status!.clusters).toHaveLength(members.length);
    });

    test("the synced Secret exists on every member, with its value", async () => {
        for (const m of members) {
            const s = await waitFor(
                `iris-key-secret on ${m}`,
                () =>
                    clientOf(m).get<KubeObject & { data?: Record<string, string> }>(
                        resourcePath("v1", "secrets", { namespace: "iris", name: "iris-key-secret" }),
                    ),
                WAIT,
            );
            expect(Buffer.from(s.data!["iris.key"], "base64").toString()).toBe(LICENSE);
        }
    });
}

/** The stack's outputs, a second up that changes nothing, and destroy. */
function outputsNoOpUpAndDestroy(run: ScaleRun): void {
    const { members, timed, clientOf, karmada } = run;

    test("stack outputs", () => {
        expect(run.outputs.members.value).toEqual(members);
        expect(run.outputs.karmadaHost.value).toBe("ikofett");
        expect(run.outputs.irisClusters.value).toEqual({ "default/federated-iris": members });
        expect(run.outputs.syncedSecrets.value).toEqual({ "iris/iris-key-secret": members });
        expect(run.outputs.karmadaKubeconfig.secret).toBe(true);
        expect(run.outputs.kubeconfigs.secret).toBe(true);
        const endpoints = Object.fromEntries((run.outputs.clusters.value as Array<{ name: string; apiEndpoint: string }>).map((c) => [c.name, c.apiEndpoint]));
        for (const m of run.fleet.members) expect(endpoints[m.name]).toBe(m.server);
    });

    test("a second pulumi up changes nothing", async () => {
        const result = await timed("no-op pulumi up", () => run.stack.up({ expectNoChanges: true }));
        const changed = Object.entries(result.summary.resourceChanges ?? {}).filter(([op]) => op !== "same");
        expect(changed).toEqual([]);
    });

    test("pulumi destroy removes everything from the members and unjoins them", async () => {
        const result = await timed("pulumi destroy", () => run.stack.destroy());
        expect(result.summary.result).toBe("succeeded");
        for (const m of members) {
            const c = clientOf(m);
            await waitFor(
                `federated-iris gone from ${m}`,
                async () =>
                    (await c.get(resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" })))
                        ? undefined
                        : true,
                WAIT,
            );
            await waitFor(
                `iris-key-secret gone from ${m}`,
                async () => ((await c.get(resourcePath("v1", "secrets", { namespace: "iris", name: "iris-key-secret" }))) ? undefined : true),
                WAIT,
            );
            await waitFor(
                `karmada-cluster namespace gone from ${m}`,
                async () => ((await c.get(resourcePath("v1", "namespaces", { name: "karmada-cluster" }))) ? undefined : true),
                WAIT,
            );
            expect(await karmada().get(resourcePath(CLUSTER_API_VERSION, "clusters", { name: m }))).toBeUndefined();
        }
        expect(
            await karmada().get(resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" })),
        ).toBeUndefined();
        const state = await run.stack.exportStack();
        expect((state.deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
    });
}
