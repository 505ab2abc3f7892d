// Failover on the loopback fleet, measured step by step: what the failover tests assert and what
// `npm run bench` times. An outage is the first member's API server stopped (or, for a Pull member,
// its agent: a Fault); Karmada's own view (its Cluster, the taint, the ResourceBinding, the
// template's aggregated status) is read every 250 ms and the first moment each step is seen is kept.
import { KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "./harness";

const IRIS_API = "intersystems.com/v1alpha1";

/**
 * What is read: Karmada's API and the members' API servers (a LoopbackFleet; its Karmada with real-node
 * members beside its own; or Karmada's chart on real nodes, by its kubeconfig).
 */
export interface FleetView {
    karmada: { client: KubeClient };
    members: Array<{ name: string; client: KubeClient }>;
}

/** The IrisCluster `namespace/name` as Karmada places it. */
export interface Placement {
    /** Members in the binding's spec.clusters. */
    clusters: string[];
    /** Members Karmada is evicting it from (graceful eviction tasks). */
    evicting: string[];
    /** Members the template's aggregated status reports Running. */
    running: string[];
}

type Binding = KubeObject & { spec?: { clusters?: Array<{ name: string }>; gracefulEvictionTasks?: Array<{ fromCluster: string }> } };
type Template = KubeObject & { status?: { clusters?: Array<{ name?: string; phase?: string }> } };
type Cluster = KubeObject & {
    spec?: { taints?: Array<{ key: string; effect: string; timeAdded?: string }> };
    status?: { conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }> };
};

/** Reads where Karmada has placed an IrisCluster. */
export async function placementOf(fleet: FleetView, id: string): Promise<Placement> {
    const [namespace, name] = id.split("/");
    const k = fleet.karmada.client;
    const binding = await k.get<Binding>(resourcePath("work.karmada.io/v1alpha2", "resourcebindings", { namespace, name: `${name}-iriscluster` }));
    const template = await k.get<Template>(resourcePath(IRIS_API, "irisclusters", { namespace, name }));
    const reported = Array.isArray(template?.status?.clusters) ? template!.status!.clusters! : [];
    return {
        clusters: (binding?.spec?.clusters ?? []).map((c) => c.name),
        evicting: (binding?.spec?.gracefulEvictionTasks ?? []).map((t) => t.fromCluster),
        running: reported.filter((c) => c.phase === "Running").map((c) => c.name ?? ""),
    };
}

/** Karmada's Cluster of a member. */
export const clusterOf = (fleet: FleetView, name: string) =>
    fleet.karmada.client.get<Cluster>(resourcePath("cluster.karmada.io/v1alpha1", "clusters", { name }));

const ready = (c: Cluster | undefined) => c?.status?.conditions?.find((x) => x.type === "Ready")?.status;
const tainted = (c: Cluster | undefined) => !!c?.spec?.taints?.some((t) => t.key === "cluster.karmada.io/not-ready" && t.effect === "NoExecute");

/** Whether the member's own API server has a copy of the IrisCluster (undefined while it is down). */
export async function copyOn(fleet: FleetView, member: string, id: string): Promise<KubeObject | undefined> {
    const [namespace, name] = id.split("/");
    return fleet.members.find((m) => m.name === member)!.client.get(resourcePath(IRIS_API, "irisclusters", { namespace, name }));
}

/** Seconds from the outage to each step Karmada took, as first seen. */
export interface OutageTimeline {
    /** Karmada's Cluster of the first member turns not Ready (detection: probe interval + failure threshold). */
    notReady_s: number;
    /** Kamino's ClusterTaintPolicy has put the NoExecute taint on it. */
    tainted_s: number;
    /** The binding no longer targets it: the taint manager evicted it (after the toleration). */
    evicted_s: number;
    /** The binding targets the backup: the scheduler moved down the list. */
    scheduled_s: number;
    /** The template's aggregated status reports it Running on the backup (IKO, played by the harness, started it). */
    failover_s: number;
}

/** A step seen at most once, at the first poll that sees it. */
class Steps<K extends string> {
    readonly at: Partial<Record<K, number>> = {};
    constructor(private readonly t0: number) {}
    see(step: K, seen: boolean): void {
        if (seen && this.at[step] === undefined) this.at[step] = (Date.now() - this.t0) / 1000;
    }
}

/** Polls every 250 ms; no process is watched, since an outage stops one on purpose. */
const until = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>) => waitFor(what, check, { timeoutMs, intervalMs: 250 });

/** What cuts a member off (default: its API server stops) and what brings it back (default: it starts again). */
export interface Fault {
    cut: () => Promise<void>;
    restore: () => Promise<void>;
}

/** The member's API server stopped, then started again: only a LoopbackFleet's own members' can be. */
export const apiServerDown = (fleet: FleetView, member: string): Fault => {
    if (!(fleet instanceof LoopbackFleet)) throw new Error(`${member}: only a LoopbackFleet stops its members' API servers; say what cuts it off (a Fault)`);
    return { cut: () => fleet.stopApiServer(member), restore: () => fleet.startApiServer(member) };
};

/** Cuts `first` off (its API server, unless `fault` says otherwise) and times Karmada's failover of `id` to `backup`, until it runs there. */
export async function outage(
    fleet: FleetView,
    id: string,
    first: string,
    backup: string,
    timeoutMs = 180_000,
    fault = apiServerDown(fleet, first),
): Promise<OutageTimeline> {
    const t0 = Date.now();
    await fault.cut();
    const steps = new Steps<keyof OutageTimeline>(t0);
    await until(`${id} Running on ${backup} after ${first} went down`, timeoutMs, async () => {
        const [cluster, p] = await Promise.all([clusterOf(fleet, first), placementOf(fleet, id)]);
        steps.see("notReady_s", ready(cluster) !== undefined && ready(cluster) !== "True");
        steps.see("tainted_s", tainted(cluster));
        steps.see("evicted_s", !p.clusters.includes(first));
        steps.see("scheduled_s", p.clusters.length === 1 && p.clusters[0] === backup);
        steps.see("failover_s", steps.at.scheduled_s !== undefined && p.running.includes(backup));
        return steps.at.failover_s !== undefined ? true : undefined;
    });
    // A step can only be seen at or before the one after it; a poll that saw two at once dates both.
    const at = steps.at as OutageTimeline;
    for (const k of ["scheduled_s", "evicted_s", "tainted_s", "notReady_s"] as const) at[k] ??= at.failover_s;
    return at;
}

/** Seconds from the first member's restart to each step, as first seen. */
export interface ReturnTimeline {
    /** The stale copy on the member that came back is gone. */
    stale_removed_s: number;
    /** Karmada's Cluster is Ready again (success threshold) and the failover taint is lifted. */
    ready_s: number;
}

/** Brings `first` back (its API server, unless `fault` says otherwise); times the removal of the stale copy and the member's return to Ready. */
export async function comeBack(fleet: FleetView, id: string, first: string, timeoutMs = 180_000, fault = apiServerDown(fleet, first)): Promise<ReturnTimeline> {
    const t0 = Date.now();
    await fault.restore();
    const steps = new Steps<keyof ReturnTimeline>(t0);
    await until(`${first} Ready without its stale copy of ${id}`, timeoutMs, async () => {
        const [cluster, copy] = await Promise.all([clusterOf(fleet, first), copyOn(fleet, first, id)]);
        steps.see("stale_removed_s", copy === undefined);
        steps.see("ready_s", ready(cluster) === "True" && !tainted(cluster));
        return steps.at.stale_removed_s !== undefined && steps.at.ready_s !== undefined ? true : undefined;
    });
    return steps.at as ReturnTimeline;
}

/** Waits until Karmada runs `id` on exactly `member` (binding, aggregated status and the member's copy). */
export async function runsOn(fleet: FleetView, id: string, member: string, timeoutMs = 180_000): Promise<Placement> {
    return until(`${id} running on ${member} only`, timeoutMs, async () => {
        const p = await placementOf(fleet, id);
        if (!(p.clusters.length === 1 && p.clusters[0] === member && p.running.includes(member))) return undefined;
        const copy = (await copyOn(fleet, member, id)) as KubeObject & { status?: { phase?: string } };
        return copy?.status?.phase === "Running" ? p : undefined;
    });
}

/**
 * Where `id`'s status stands at each hop to Karmada, for a failure's message: the member's copy (what
 * IKO reports), the Work (what the agent or Karmada reflected), the binding's aggregated entry and the
 * template's status. A status stuck at one hop names the component that did not pass it on.
 */
export async function statusTrail(fleet: FleetView, id: string, member: string): Promise<string> {
    const [namespace, name] = id.split("/");
    const k = fleet.karmada.client;
    const phase = (o: unknown) => (o as { status?: { phase?: string } } | undefined)?.status?.phase ?? "-";
    const copy = await copyOn(fleet, member, id).catch((e) => ({ error: String(e) }));
    type Work = KubeObject & {
        spec?: { workload?: { manifests?: Array<{ kind?: string; metadata?: { name?: string } }> } };
        status?: { manifestStatuses?: Array<{ identifier?: { kind?: string; name?: string }; status?: unknown }> };
    };
    const works = await k
        .get<KubeObject & { items?: Work[] }>(resourcePath("work.karmada.io/v1alpha1", "works", { namespace: `karmada-es-${member}` }))
        .catch((e: Error) => e);
    if (works instanceof Error) return `${id} on ${member}: ${phase(copy)}; Works unreadable: ${works.message}`;
    const work = works?.items?.find((w) => w.spec?.workload?.manifests?.some((m) => m.kind === "IrisCluster" && m.metadata?.name === name));
    const reflected = work?.status?.manifestStatuses?.find((m) => m.identifier?.kind === "IrisCluster" && m.identifier?.name === name);
    const binding = await k.get<Binding & { status?: { aggregatedStatus?: Array<{ clusterName: string; status?: unknown }> } }>(
        resourcePath("work.karmada.io/v1alpha2", "resourcebindings", { namespace, name: `${name}-iriscluster` }),
    );
    const aggregated = binding?.status?.aggregatedStatus?.find((a) => a.clusterName === member);
    const template = await k.get<Template>(resourcePath(IRIS_API, "irisclusters", { namespace, name }));
    const rv = (o: KubeObject | undefined) => o?.metadata?.resourceVersion ?? "-";
    return [
        `${id} on ${member}: ${phase(copy)} (rv ${rv(copy as KubeObject)})`,
        `Work ${work?.metadata?.name ?? `none of ${works?.items?.length ?? 0}`}: ${phase(reflected)} (rv ${rv(work)})`,
        `binding: ${aggregated ? phase(aggregated) : "no entry"} (rv ${rv(binding)})`,
        `template: ${JSON.stringify(template?.status ?? null)} (rv ${rv(template)})`,
    ].join("; ");
}

/** Waits until the member's API server has no copy of `id`. */
export async function goneFrom(fleet: FleetView, id: string, member: string, timeoutMs = 180_000): Promise<void> {
    await until(`${id} gone from ${member}`, timeoutMs, async () => ((await copyOn(fleet, member, id)) === undefined ? true : undefined));
}

/**
 * Freezes `member`'s API server for `blinkMs` and watches for `watchMs` (every 250 ms): resolves the
 * Ready states other than True that Karmada reported (none, when the blink is shorter than its
 * failure detection), and fails at once if `id` is placed anywhere else meanwhile.
 */
export async function blink(fleet: LoopbackFleet, member: string, id: string, blinkMs = 5_000, watchMs = 25_000): Promise<string[]> {
    const notReady: string[] = [];
    const frozen = fleet.freezeApiServer(member, blinkMs);
    const until = Date.now() + watchMs;
    while (Date.now() < until) {
        const ready = (await clusterOf(fleet, member))?.status?.conditions?.find((c) => c.type === "Ready");
        if (ready?.status !== "True") notReady.push(`${ready?.status} since ${ready?.lastTransitionTime}`);
        const placed = (await placementOf(fleet, id)).clusters;
        if (placed.length !== 1 || placed[0] !== member)
            throw new Error(`${id} was placed on ${placed.join(", ") || "nothing"} during a ${blinkMs} ms blink of ${member}`);
        await new Promise((r) => setTimeout(r, 250));
    }
    await frozen;
    return notReady;
}
