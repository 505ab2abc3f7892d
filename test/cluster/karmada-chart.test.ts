// Karmada's own chart, run for real: the dev stack's control plane on a real-node host shaped as its
// `ikofett`, installed by `pulumi up` from a chart repository on loopback, every image built here
// (chart-fleet.ts says how the fleet is made and what is played). Proven: the chart's Jobs complete
// and every component runs, Ready; the stack's karmadaKubeconfig reaches the chart's apiserver pod
// through the port mapping; the CRD copy; a Push member (its API dialled by the controller-manager
// pod) and a Pull member (its agent a pod) joined, federated-iris propagated and reported Running; a
// no-op `up`; the Pull member's node loses power and the chart's karmada-controller-manager moves
// federated-iris to the backup; power back, the stale copy is dropped; `destroy` takes everything
// away, the chart's hooks included, and closing the nodes leaves nothing on this machine.
import { clusterOf, comeBack, copyOn, Fault, outage, OutageTimeline, runsOn } from "./failover-scenario";
import { KubeClient, resourcePath, waitFor } from "./harness";
import {
    BACKUP,
    CHART_WORKLOADS,
    ChartFleet,
    chartPods,
    fleetView,
    HOST,
    ID,
    karmadaClient,
    MEMBER,
    startChartFleet,
    stopChartFleet,
    upChartFleet,
} from "./chart-fleet";
import { Pod } from "./nodes/pods";
import { expectCloseLeavesNothing } from "./real-node-checks";
import { nodeTasks } from "../support/node-sweep";
import { stepTimer } from "../support/engine";
import { DEFAULTS } from "../../components/config";
import { KARMADA_SYSTEM_NAMESPACE as NS } from "../../components/karmada/control-plane/control-plane";

jest.setTimeout(15 * 60_000);

/** pull-failover.test.ts's limit for a Pull primary; CI shares two cores with another fleet. */
const FAILOVER_LIMIT_S = 45;
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const CLUSTERS = resourcePath("cluster.karmada.io/v1alpha1", "clusters");

let f: ChartFleet;
let karmada: KubeClient;
let closed = false;

beforeAll(async () => {
    f = await startChartFleet("karmada-chart");
}, 10 * 60_000);

afterAll(async () => {
    karmada?.close();
    if (!closed) await stopChartFleet(f ?? {});
});

/** The member's karmada-agent pods. */
async function agentPods(): Promise<Pod[]> {
    const list = (await f.member.client.get(`${resourcePath("v1", "pods", { namespace: NS })}?labelSelector=app%3Dkarmada-agent`)) as unknown as {
        items: Pod[];
    };
    return list.items;
}

test("a version the repository does not list stops up before anything is made, naming the newest it lists", async () => {
    const karmada = JSON.parse((await f.stack.getConfig("kamino:karmada")).value);
    await f.stack.setConfig("kamino:karmada", { value: JSON.stringify({ ...karmada, chartVersion: "v1.19.0" }) });
    try {
        const failed = await f.stack.up().then(
            () => undefined,
            (e: Error) => e.message,
        );
        expect(failed).toMatch(
            /karmada-chart: kamino:karmada\.chartVersion is v1\.19\.0, which the chart repository http:\/\/127\.0\.0\.1:\d+ does not list \(its newest: v1\.18\.2, v1\.18\.1, v1\.15\.0\)/,
        );
        // Nothing was made: the stack holds no resource, the host no Karmada namespace.
        const made = ((await f.stack.exportStack()).deployment.resources ?? []) as { type: string }[];
        expect(made.filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
        expect(await f.host.client.get(resourcePath("v1", "namespaces", { name: NS }))).toBeUndefined();
    } finally {
        await f.stack.setConfig("kamino:karmada", { value: JSON.stringify(karmada) });
    }
});

describe("pulumi up installs Karmada's chart", () => {
    test("from the loopback repository: its Jobs complete, every component Running and Ready on the worker, then the fleet joins", async () => {
        const { outputs, timings } = await upChartFleet(f);
        console.log(`karmada chart up on real pods (s): ${JSON.stringify(timings)}`);
        expect(f.repo.requests).toEqual(expect.arrayContaining(["/index.yaml", `/karmada-chart-${DEFAULTS.karmadaChartVersion}.tgz`]));
        karmada = karmadaClient(f, String(outputs.karmadaKubeconfig.value));
        expect(outputs.runningOn.value).toEqual({ [ID]: [MEMBER] });

        // The static-resource Job wrote its version mark into the Karmada API: the Jobs ran to their end.
        const mark = (await karmada.get(resourcePath("v1", "configmaps", { namespace: NS, name: "karmada-version" }))) as { data?: Record<string, string> };
        expect(mark?.data?.karmadaVersion).toBe(DEFAULTS.karmadaChartVersion);
        const pods = await chartPods(f.host);
        const running = pods.filter((p) => p.status?.phase === "Running");
        // One pod per component (the single topology), each Ready, all on the worker: the control plane is tainted as kind's.
        expect(running.map((p) => p.metadata?.name?.replace(/-[a-z0-9]+(-[a-z0-9]+)?$/, "")).sort()).toEqual(CHART_WORKLOADS.map(([, n]) => n).sort());
        expect(running.every((p) => p.status?.containerStatuses?.every((c) => c.ready))).toBe(true);
        expect(new Set(running.map((p) => p.spec?.nodeName))).toEqual(new Set([f.host.nodes[1].name]));
        // Every hook Job is gone, each deleted by its policy once it succeeded; none failed.
        const jobs = (await f.host.client.get(resourcePath("batch/v1", "jobs", { namespace: NS }))) as unknown as { items: unknown[] };
        expect(jobs.items).toEqual([]);
        expect(pods.filter((p) => p.status?.phase === "Failed").map((p) => p.metadata?.name)).toEqual([]);
        expect(timings.components_ready_s).toBeLessThanOrEqual(timings.karmada_up_real_s);
        expect(timings.karmada_up_real_s).toBeLessThanOrEqual(timings.up_s);
    });

    test("the stack's karmadaKubeconfig reaches the chart's own apiserver pod, through kind's port mapping (played)", async () => {
        const through = f.mapping.connections;
        const version = (await karmada.get("/version")) as unknown as { gitVersion: string };
        expect(version.gitVersion).toBe(DEFAULTS.karmadaKubeImageTag);
        expect(f.mapping.connections).toBeGreaterThan(through - 1);
        // The API is the chart's: its aggregated API (Clusters) and its own objects answer there.
        const apiserverPod = (await chartPods(f.host)).find((p) => p.metadata?.name?.startsWith("karmada-apiserver-"));
        expect(apiserverPod?.status?.podIP).toMatch(/^10\.244\.1\.\d+$/);
        expect(await karmada.get(resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: "v1alpha1.cluster.karmada.io" }))).toBeDefined();
    });

    test("the CRD copy, a Push member and a Pull member whose agent is a pod; federated-iris propagated and Running", async () => {
        expect(
            await karmada.get(resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: "irisclusters.intersystems.com" })),
        ).toBeDefined();
        const clusters = (await karmada.get(CLUSTERS)) as unknown as {
            items: { metadata: { name: string }; spec: { syncMode: string }; status?: { conditions?: { type: string; status: string }[] } }[];
        };
        expect(clusters.items.map((c) => [c.metadata.name, c.spec.syncMode, c.status?.conditions?.find((x) => x.type === "Ready")?.status]).sort()).toEqual([
            [BACKUP, "Push", "True"],
            [MEMBER, "Pull", "True"],
        ]);
        const pods = await agentPods();
        expect(pods.map((p) => ({ node: p.spec?.nodeName, phase: p.status?.phase, ready: p.status?.containerStatuses?.[0]?.ready }))).toEqual([
            { node: f.member.nodes[0].name, phase: "Running", ready: true },
        ]);
        const view = fleetView(f, karmada);
        expect(await f.member.client.get(IRIS)).toBeDefined();
        expect(await copyOn(view, BACKUP, ID)).toBeUndefined();
    });

    test("a no-op up changes nothing", async () => {
        const result = await f.stack.up();
        expect(result.summary.resourceChanges).not.toHaveProperty("update");
        expect(result.summary.resourceChanges).not.toHaveProperty("create");
        expect(result.summary.resourceChanges).not.toHaveProperty("delete");
    });
});

test("the Pull member's node loses power: the chart's controller-manager moves federated-iris to the backup; power back, the stale copy goes", async () => {
    const view = fleetView(f, karmada);
    const node = f.member.nodes[0];
    await runsOn(view, ID, MEMBER);
    let killed = 0;
    let atCut = { tasks: 0, sockets: 0 };
    const powerCut: Fault = {
        cut: async () => {
            killed = await node.powerOff();
            const tasks = nodeTasks(node.layout.dir);
            atCut = { tasks: tasks.length, sockets: tasks.filter((t) => t.socket).length };
        },
        restore: () => node.powerOn(),
    };
    let away: OutageTimeline | undefined;
    let ready: string | undefined;
    try {
        away = await outage(view, ID, MEMBER, BACKUP, 180_000, powerCut);
        ready = (await clusterOf(view, MEMBER))?.status?.conditions?.find((c) => c.type === "Ready")?.status;
        console.log(`${MEMBER}'s node powered off (${killed} processes killed): federated-iris Running on ${BACKUP} after (s) ${JSON.stringify(away)}`);
    } finally {
        // Power comes back whatever was seen, so that destroy finds the agent to take away; when the
        // failover already failed, its error is the one reported.
        const back = await comeBack(view, ID, MEMBER, 240_000, powerCut).catch((e: Error) => {
            if (away) throw e;
            console.log(`${MEMBER} did not come back either: ${e.message}`);
        });
        if (back) console.log(`${MEMBER}'s node powered on: its Cluster Ready and the stale copy gone after (s) ${JSON.stringify(back)}`);
    }
    // The kubelet, kube-proxy, containerd, its shims and the pods' processes (pause, the agent, CoreDNS).
    expect(killed).toBeGreaterThanOrEqual(6);
    // The dead tasks stay in containerd's state until it restarts; their shims' sockets went with the power.
    expect(atCut.tasks).toBeGreaterThan(0);
    expect(atCut.sockets).toBe(0);
    // A silent agent reads Unknown (notes §9a), which the taint policy taints.
    expect(ready).toBe("Unknown");
    expect(away!.notReady_s).toBeLessThanOrEqual(30);
    // The toleration (failoverAfterSeconds: 10) counts from the taint's timeAdded, which has whole seconds.
    expect(away!.evicted_s - away!.tainted_s).toBeGreaterThanOrEqual(8);
    expect(away!.failover_s).toBeLessThanOrEqual(FAILOVER_LIMIT_S);
    // Nothing fails back by itself; the agent runs again on the node.
    await runsOn(view, ID, BACKUP);
    await waitFor("the agent pod Running again", async () => ((await agentPods()).some((p) => p.status?.containerStatuses?.[0]?.ready) ? true : undefined), {
        timeoutMs: 120_000,
        intervalMs: 1000,
    });
});

test("destroy takes everything away, the chart's hooks and their leftovers included; closing the nodes leaves nothing on this machine", async () => {
    // Where the time goes (the slowest test of the file in CI), printed for docs/testing.md's budget.
    const phases: Record<string, number> = {};
    const since = (t0: number) => Math.round((Date.now() - t0) / 100) / 10;
    let t0 = Date.now();
    const steps = stepTimer();
    await f.stack.destroy({ onEvent: steps.onEvent });
    phases.destroy_s = since(t0);
    t0 = Date.now();
    await waitFor("the agent's pods gone", async () => ((await agentPods()).length === 0 ? true : undefined), { timeoutMs: 120_000, intervalMs: 1000 });
    phases.agent_pods_gone_s = since(t0);
    t0 = Date.now();
    // The chart's post-delete Job removed what its pre-install Job made; Kamino's namespace took the
    // hooks' leftovers (their ServiceAccount, the CRD ConfigMaps) and the hook RBAC went with it.
    const left = async () => {
        const gone: string[] = [];
        for (const [apiVersion, plural, name] of [
            ["v1", "namespaces", NS],
            ["rbac.authorization.k8s.io/v1", "clusterroles", "karmada-hook-job"],
            ["rbac.authorization.k8s.io/v1", "clusterrolebindings", "karmada-hook-job"],
        ]) {
            if (await f.host.client.get(resourcePath(apiVersion, plural, { name }))) gone.push(`${plural}/${name}`);
        }
        return gone;
    };
    await waitFor(
        `nothing of Karmada's left on ${HOST}`,
        async () => {
            const still = await left();
            if (still.length === 0) return true;
            throw new Error(`left: ${still.join(", ")}`);
        },
        { timeoutMs: 180_000, intervalMs: 2000 },
    );
    phases.namespace_gone_s = since(t0);
    t0 = Date.now();
    closed = true;
    await stopChartFleetLeavingNothing();
    phases.nodes_closed_s = since(t0);
    console.log(`destroy and close (s): ${JSON.stringify(phases)}; the destroy's slowest steps: ${steps.slowestLine(4)}`);
});

/** Closes the fleet, checking that the nodes leave nothing (real-node-checks.ts). */
async function stopChartFleetLeavingNothing(): Promise<void> {
    await f.iko.stop();
    f.sandbox.cleanup();
    await f.mapping.stop();
    await f.repo.stop();
    await expectCloseLeavesNothing(f.nodes);
}
