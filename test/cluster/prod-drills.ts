// The production drills on prod-fleet.ts's control plane, each measured while a client calls the
// Karmada API every 200 ms (api-prober.ts) and a watch reads, every half second, what a member and an
// IrisCluster must not do meanwhile: a member turning not Ready, federated-iris placed elsewhere, a
// component left with no Ready pod. production-drills.test.ts asserts them; `npm run bench` times them.
import { ApiProber, AvailableCondition, httpError, ProbeReport, UnavailableSpells } from "./api-prober";
import { ID, MEMBER } from "./chart-fleet";
import { clusterOf, placementOf, runsOn } from "./failover-scenario";
import { failback } from "../../components/karmada/failover/failback";
import { KubeClient, resourcePath, waitFor } from "./harness";
import { prodView, ProdFleet } from "./prod-fleet";
import { RealNode } from "./nodes/real-node";
import { HA_COMPONENT_APPS } from "../../components/karmada/control-plane/chart-values";
import { KARMADA_SYSTEM_NAMESPACE as NS } from "../../components/karmada/control-plane/control-plane";

/** The chart's Deployments, highly available: two replicas each. */
export const HA_DEPLOYMENTS = [
    "karmada-apiserver",
    "karmada-aggregated-apiserver",
    "karmada-controller-manager",
    "karmada-scheduler",
    "karmada-webhook",
    "karmada-kube-controller-manager",
];

/** What the watch saw during a drill. */
export interface DrillWatch {
    /** Members' Ready conditions other than True, as `<member> <status>` (empty: none). */
    notReady: string[];
    /** For each of those, the seconds between the first and the last time the watch saw it. */
    notReadyFor_s: Record<string, number>;
    /** Where federated-iris was placed other than on MEMBER (empty: it never moved). */
    movedTo: string[];
    /** Each Deployment's fewest Ready replicas seen. */
    minReady: Record<string, number>;
    /**
     * Each spell of the Clusters APIService not Available (`UnavailableSpells`, in seconds since the watch
     * started): which of two kinds an outage of the aggregated API was, this one (kube-aggregator answering
     * every call 503) or a connection given up (docs/production.md, Drilled on real pods).
     */
    apiServiceNotAvailable: string[];
}

/** The APIService through which Karmada serves Clusters (karmada-aggregated-apiserver). */
const CLUSTER_API_SERVICE = resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: "v1alpha1.cluster.karmada.io" });

/** Watches until stopped. */
function watch(f: ProdFleet, karmada: KubeClient): { stop: () => Promise<DrillWatch> } {
    const view = prodView(f, karmada);
    const seen: DrillWatch = {
        notReady: [],
        notReadyFor_s: {},
        movedTo: [],
        minReady: Object.fromEntries(HA_DEPLOYMENTS.map((d) => [d, 2])),
        apiServiceNotAvailable: [],
    };
    const firstSeen: Record<string, number> = {};
    const unavailable = new UnavailableSpells(Date.now());
    // Its own client, 2 s per call: a stalled read must not hold up the watch of the members.
    const quick = new KubeClient(karmada.credentials, 2000);
    let running = true;
    const loop = (async () => {
        while (running) {
            const apiService = (await quick.get(CLUSTER_API_SERVICE).catch(() => undefined)) as
                { status?: { conditions?: (AvailableCondition & { type: string })[] } } | undefined;
            unavailable.see(apiService?.status?.conditions?.find((c) => c.type === "Available"));
            for (const m of view.members) {
                const ready = (await clusterOf(view, m.name).catch(() => undefined))?.status?.conditions?.find((c) => c.type === "Ready")?.status;
                const key = `${m.name} ${ready}`;
                if (!ready || ready === "True") continue;
                if (!seen.notReady.includes(key)) seen.notReady.push(key);
                firstSeen[key] ??= Date.now();
                seen.notReadyFor_s[key] = Math.round((Date.now() - firstSeen[key]) / 100) / 10;
            }
            const placed = await placementOf(view, ID).catch(() => undefined);
            for (const c of placed?.clusters ?? []) if (c !== MEMBER && !seen.movedTo.includes(c)) seen.movedTo.push(c);
            for (const d of HA_DEPLOYMENTS) {
                const dep = (await f.host.client.get(resourcePath("apps/v1", "deployments", { namespace: NS, name: d })).catch(() => undefined)) as
                    { status?: { readyReplicas?: number } } | undefined;
                if (dep) seen.minReady[d] = Math.min(seen.minReady[d], dep.status?.readyReplicas ?? 0);
            }
            await new Promise((r) => setTimeout(r, 500));
        }
    })();
    return {
        stop: async () => {
            running = false;
            await loop;
            quick.close();
            seen.apiServiceNotAvailable = unavailable.end();
            return seen;
        },
    };
}

/** Every HA Deployment with its two replicas Ready and up to date, and etcd's three members Ready. */
export async function everyComponentReady(f: ProdFleet, timeoutMs = 300_000): Promise<void> {
    type Workload = { metadata: { generation: number }; status?: { readyReplicas?: number; updatedReplicas?: number; observedGeneration?: number } };
    await waitFor(
        "every Karmada component Ready on the host",
        async () => {
            const missing: string[] = [];
            for (const [kind, name, want] of [...HA_DEPLOYMENTS.map((d) => ["deployments", d, 2] as const), ["statefulsets", "karmada-etcd", 3] as const]) {
                const w = (await f.host.client.get(resourcePath("apps/v1", kind, { namespace: NS, name }))) as Workload | undefined;
                const s = w?.status;
                if (!w || s?.observedGeneration !== w.metadata.generation || s?.readyReplicas !== want || s?.updatedReplicas !== want) missing.push(name);
            }
            if (missing.length === 0) return true;
            throw new Error(`not yet: ${missing.join(", ")}`);
        },
        { timeoutMs, intervalMs: 2000 },
    );
}

/** The node whose loss costs most: the one running karmada-controller-manager's leader (its Lease names the pod). */
export async function leaderNode(f: ProdFleet, karmada: KubeClient): Promise<RealNode> {
    const lease = (await karmada.get(resourcePath("coordination.k8s.io/v1", "leases", { namespace: NS, name: "karmada-controller-manager" }))) as
        { spec?: { holderIdentity?: string } } | undefined;
    const holder = lease?.spec?.holderIdentity ?? "";
    const pods = (await f.host.client.get(
        `${resourcePath("v1", "pods", { namespace: NS })}?labelSelector=app%3D${HA_COMPONENT_APPS.controllerManager}`,
    )) as unknown as {
        items: { metadata: { name: string }; spec: { nodeName: string } }[];
    };
    const pod = pods.items.find((p) => holder.startsWith(p.metadata.name)) ?? pods.items[0];
    return f.host.nodes.find((n) => n.name === pod.spec.nodeName)!;
}

/**
 * Until both callers' paths answer ten calls in a row, so that a drill starts on an API settled from
 * the one before, and measures only what it does: an upgrade drill that started right after a node
 * loss counted two 429s in its first half second, on Karmada's own objects, against its bound of three.
 */
async function apiSettled(karmada: KubeClient, timeoutMs = 120_000): Promise<void> {
    let inARow = 0;
    await waitFor(
        "the Karmada API answering ten calls in a row on both paths",
        async () => {
            const answers = await Promise.all(PROBED_PATHS.map((p) => karmada.request("GET", p).catch((e: Error) => ({ status: 0, body: e.message }))));
            const refused = answers.find((a) => a.status !== 200);
            inARow = refused ? 0 : inARow + 1;
            if (inARow >= 10) return true;
            if (refused) throw new Error(httpError(refused.status, refused.body));
            return undefined;
        },
        { timeoutMs, intervalMs: 200 },
    );
}

/** What the drills call: through the aggregated API, and Karmada's own objects (from etcd alone). */
const PROBED_PATHS = ["/apis/cluster.karmada.io/v1alpha1/clusters", "/apis/policy.karmada.io/v1alpha1/propagationpolicies"];

/** The drill's two callers of the API: through the aggregated API, and from etcd alone. */
function startProbers(karmada: KubeClient): { stop: () => Promise<Pick<DrillResult, "probe" | "etcdProbe">> } {
    const aggregated = new ApiProber(karmada.credentials, PROBED_PATHS[0]).start();
    const etcd = new ApiProber(karmada.credentials, PROBED_PATHS[1]).start();
    return { stop: async () => ({ probe: await aggregated.stop(), etcdProbe: await etcd.stop() }) };
}

/** What a drill measured. */
export interface DrillResult {
    /** Calls through Karmada's aggregated API (karmada-apiserver, then karmada-aggregated-apiserver): what an agent and `status` call. */
    probe: ProbeReport;
    /** Calls karmada-apiserver answers from etcd alone (PropagationPolicies): which half of the path failed. */
    etcdProbe: ProbeReport;
    watch: DrillWatch;
    /** Seconds of the drill's own action (the outage, or the upgrade's `up`s). */
    action_s: number;
}

/**
 * A node's power cut: the node running the controller-manager's leader loses power for `outageMs`
 * (its pods, its etcd member and one of each component with it), then power comes back and every pod
 * is Ready again.
 */
export async function nodeLossDrill(f: ProdFleet, karmada: KubeClient, outageMs = 60_000): Promise<DrillResult & { node: string }> {
    const node = await leaderNode(f, karmada);
    await apiSettled(karmada);
    const probers = startProbers(karmada);
    const watching = watch(f, karmada);
    await new Promise((r) => setTimeout(r, 2000));
    const t0 = Date.now();
    await node.powerOff();
    await new Promise((r) => setTimeout(r, outageMs));
    await node.powerOn();
    await everyComponentReady(f);
    const action_s = Math.round((Date.now() - t0) / 100) / 10;
    return { node: node.name, ...(await probers.stop()), watch: await watching.stop(), action_s };
}

/** What the upgrade measured: the chart's step and the agents' step watched apart. */
export interface UpgradeResult extends DrillResult {
    /** The second `up`'s: the agents restarted on the new version. */
    agentWatch: DrillWatch;
}

/**
 * docs/production.md's upgrade, as written: the agents pinned to the version they run, the chart to
 * `version`, `pulumi up`; then the agents unpinned and `pulumi up` again. The API is called
 * throughout; the members and placements are watched over each step apart: the chart's step should
 * not touch the members at all, the agents' step restarts each Pull member's agent.
 */
export async function upgradeDrill(f: ProdFleet, karmada: KubeClient, from: string, to: string): Promise<UpgradeResult> {
    const karmadaKeys = JSON.parse((await f.stack.getConfig("kamino:karmada")).value);
    await apiSettled(karmada);
    const probers = startProbers(karmada);
    const t0 = Date.now();
    let watching = watch(f, karmada);
    await f.stack.setConfig("kamino:karmada", {
        value: JSON.stringify({ ...karmadaKeys, agentImage: `docker.io/karmada/karmada-agent:${from}`, chartVersion: to }),
    });
    await f.stack.up();
    await everyComponentReady(f);
    const chartWatch = await watching.stop();
    watching = watch(f, karmada);
    await f.stack.setConfig("kamino:karmada", { value: JSON.stringify({ ...karmadaKeys, chartVersion: to }) });
    await f.stack.up();
    // Until the new agent has reported: its member Ready again.
    await waitFor(
        "the Pull member Ready on the new agent",
        async () =>
            (await clusterOf(prodView(f, karmada), MEMBER))?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" ? true : undefined,
        { timeoutMs: 120_000, intervalMs: 1000 },
    );
    await new Promise((r) => setTimeout(r, 5000));
    const action_s = Math.round((Date.now() - t0) / 100) / 10;
    return { ...(await probers.stop()), watch: chartWatch, agentWatch: await watching.stop(), action_s };
}

/**
 * Where federated-iris runs after a drill: on MEMBER, or moved to the backup by Karmada, in which case
 * it is moved back as `npm run failback` does (once MEMBER is Ready), so that the next drill starts
 * from the same place. Returns where it was.
 */
export async function backOnMember(f: ProdFleet, karmada: KubeClient): Promise<string[]> {
    const view = prodView(f, karmada);
    const was = (await placementOf(view, ID)).clusters;
    if (was.length === 1 && was[0] === MEMBER) return was;
    await waitFor(
        `${MEMBER} Ready again`,
        async () => ((await clusterOf(view, MEMBER))?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" ? true : undefined),
        { timeoutMs: 300_000, intervalMs: 1000 },
    );
    await failback((method, path, body, contentType) => karmada.request(method, path, body, contentType), ID);
    await runsOn(view, ID, MEMBER, 300_000);
    return was;
}
