// What `npm run status` shows: the fleet as the Karmada API sees it, read through one request
// function and judged by pure functions. The members (Karmada's Cluster objects), each IrisCluster of
// the stack (its ResourceBinding: placement, where it is scheduled, what each member's IKO reports as
// Karmada aggregates it, its dependencies' bindings), and its recent moves (Karmada's events on the
// binding, and the graceful eviction tasks still open on it). The shape is `FleetStatus`, printed as is
// by `--json`: fields may be added, never renamed or removed (docs/status.md).
import { describeError } from "./kube-read";
import { DependencyView, FleetStatus, IrisClusterView, IrisMemberView, MemberView, MoveView, StackOutputs } from "./fleet-status-shape";
import { KARMADA_KINDS, KARMADA_PATHS } from "../crds/karmada-api";

/** One request to the Karmada API (the real one: kubeRequest with the stack's Karmada kubeconfig). */
export type KarmadaGet = (path: string) => Promise<{ status: number; body: string }>;

/** The shape status returns and prints, defined beside it. */
export * from "./fleet-status-shape";

/** A failure to read the Karmada API: one line, with the fix. */
export class StatusError extends Error {}

type Condition = { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string };
type Cluster = {
    metadata?: { name?: string };
    spec?: { syncMode?: string; taints?: Array<{ key?: string; effect?: string; timeAdded?: string }> };
    status?: { kubernetesVersion?: string; conditions?: Condition[] };
};
type Aggregated = { clusterName?: string; applied?: boolean; health?: string; status?: { phase?: string; conditions?: Condition[] } };
/** The parts of a ResourceBinding status reads. */
export type Binding = {
    metadata?: { name?: string; uid?: string; labels?: Record<string, string> };
    spec?: {
        resource?: { kind?: string; name?: string };
        clusters?: Array<{ name?: string }>;
        placement?: { clusterAffinities?: Array<{ clusterNames?: string[] }>; spreadConstraints?: Array<{ spreadByField?: string; maxGroups?: number }> };
        gracefulEvictionTasks?: Array<{ fromCluster?: string; creationTimestamp?: string; reason?: string; message?: string }>;
        requiredBy?: Array<{ namespace?: string; name?: string }>;
    };
    status?: { aggregatedStatus?: Aggregated[] };
};
/** A Karmada Work: the copy of a binding's object for one member, in that member's execution namespace. */
export type Work = { metadata?: { namespace?: string; deletionTimestamp?: string } };
/** The member a Work is for: its namespace is `karmada-es-<member>`. */
const workMember = (w: Work) => (w.metadata?.namespace ?? "").replace(/^karmada-es-/, "");

/** A core/v1 Event as the API returns it. */
export type KubeEvent = {
    metadata?: { name?: string; creationTimestamp?: string };
    involvedObject?: { uid?: string };
    reason?: string;
    message?: string;
    count?: number;
    firstTimestamp?: string | null;
    lastTimestamp?: string | null;
    eventTime?: string | null;
};

/** A member from its Karmada Cluster (undefined: it has none). */
export function memberView(name: string, cluster: Cluster | undefined): MemberView {
    if (!cluster) return { name, syncMode: null, state: "NotJoined", since: null, reason: null, taints: [], kubernetesVersion: null };
    const ready = cluster.status?.conditions?.find((c) => c.type === "Ready");
    const state: MemberView["state"] = !ready ? "Joining" : ready.status === "True" ? "Ready" : ready.status === "False" ? "NotReady" : "Unknown";
    return {
        name,
        syncMode: cluster.spec?.syncMode ?? null,
        state,
        since: ready?.lastTransitionTime ?? null,
        reason: state === "Ready" || !ready ? null : [ready.reason, ready.message].filter(Boolean).join(": ") || null,
        taints: (cluster.spec?.taints ?? []).map((t) => ({ key: t.key ?? "", effect: t.effect ?? "", since: t.timeAdded ?? null })),
        kubernetesVersion: cluster.status?.kubernetesVersion ?? null,
    };
}

/**
 * Kamino's failover placement (components/karmada/failover/failover.ts): one affinity group per member, each
 * naming one member, and a spread constraint of one cluster group. The ordered list, or undefined
 * when the placement is another kind.
 */
export function failoverList(binding: Binding | undefined): string[] | undefined {
    const p = binding?.spec?.placement;
    const groups = p?.clusterAffinities ?? [];
    const oneGroup = (p?.spreadConstraints ?? []).some((s) => s.spreadByField === "cluster" && s.maxGroups === 1);
    if (groups.length === 0 || !oneGroup || groups.some((g) => g.clusterNames?.length !== 1)) return undefined;
    return groups.map((g) => g.clusterNames![0]);
}

/** IKO's first condition that is not True, as the running-wait prints it. */
function conditionText(conditions: Condition[] | undefined): string | null {
    const c = (conditions ?? []).find((x) => x.status !== "True");
    return c ? [`${c.type}=${c.status}`, c.reason, c.message?.slice(0, 200)].filter(Boolean).join(": ") : null;
}

/** The dependencies of a binding on a member, from the bindings that name it in `requiredBy`. */
function dependenciesOn(member: string, deps: Binding[]): DependencyView[] {
    return deps.map((d) => ({
        kind: d.spec?.resource?.kind ?? "",
        name: d.spec?.resource?.name ?? "",
        present: (d.status?.aggregatedStatus ?? []).some((a) => a.clusterName === member && a.applied === true),
    }));
}

/**
 * An IrisCluster from its binding (undefined: none yet), the bindings of its dependencies, the
 * stack's target list, the members as Karmada sees them and the binding's Works; judged here (see `asPlaced`).
 */
export function irisClusterView(
    id: string,
    targets: string[],
    binding: Binding | undefined,
    deps: Binding[],
    members: MemberView[],
    works: Work[] = [],
): IrisClusterView {
    const list = failoverList(binding);
    const mode: IrisClusterView["mode"] = !binding ? "unknown" : list ? "failover" : "all";
    const placement = list ?? targets;
    const scheduled = (binding?.spec?.clusters ?? []).map((c) => c.name ?? "");
    const evicting = (binding?.spec?.gracefulEvictionTasks ?? []).map((t) => ({
        member: t.fromCluster ?? "",
        since: t.creationTimestamp ?? null,
        reason: t.reason ?? null,
    }));
    const aggregated = binding?.status?.aggregatedStatus ?? [];
    const deleting = works.filter((w) => w.metadata?.deletionTimestamp).map(workMember);
    const names = [
        ...new Set([...placement, ...scheduled, ...evicting.map((e) => e.member), ...aggregated.map((a) => a.clusterName ?? ""), ...works.map(workMember)]),
    ];
    const rows: IrisMemberView[] = names.map((name) => {
        const a = aggregated.find((x) => x.clusterName === name);
        return {
            name,
            scheduled: scheduled.includes(name),
            evicting: evicting.some((e) => e.member === name),
            deleting: deleting.includes(name),
            applied: a ? a.applied === true : null,
            phase: a?.status?.phase ?? null,
            condition: conditionText(a?.status?.conditions),
            health: a?.health ?? null,
            dependencies: a || scheduled.includes(name) ? dependenciesOn(name, deps) : [],
        };
    });
    const ready = (m: string) => members.find((x) => x.name === m)?.state === "Ready";
    const runningOn = rows.filter((r) => r.scheduled && r.phase === "Running" && ready(r.name)).map((r) => r.name);
    const problem = placementProblem(mode, placement, scheduled, rows, members);
    return { id, mode, placement, scheduled, runningOn, evicting, members: rows, asPlaced: problem === null, problem };
}

/** Why an IrisCluster does not run where its placement wants it, in one line; null when it does. */
export function placementProblem(
    mode: IrisClusterView["mode"],
    placement: string[],
    scheduled: string[],
    rows: IrisMemberView[],
    members: MemberView[],
): string | null {
    if (mode === "unknown") return "Karmada has no ResourceBinding for it (not propagated yet)";
    if (scheduled.length === 0) return "Karmada has not scheduled it on any member";
    if (mode === "failover") {
        if (scheduled.length !== 1) return `scheduled on ${scheduled.join(", ")}: failover placement wants exactly one member`;
        if (!placement.includes(scheduled[0])) return `scheduled on ${scheduled[0]}, which is not in its list (${placement.join(", ")})`;
    }
    const notRunning = scheduled.flatMap((name) => {
        const state = members.find((m) => m.name === name)?.state ?? "NotJoined";
        if (state !== "Ready") return [`${name} is ${state}`];
        const r = rows.find((x) => x.name === name);
        if (r?.phase === "Running") return [];
        return [`${name}: ${r?.phase ?? (r?.applied ? "no phase from IKO yet" : "not applied yet")}${r?.condition ? ` (${r.condition})` : ""}`];
    });
    return notRunning.length > 0 ? `not running on ${notRunning.join("; ")}` : null;
}

/** The time of an event's last occurrence, and its first when it happened more than once. */
function occurrences(e: KubeEvent): string[] {
    const last = e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp;
    const first = e.firstTimestamp ?? last;
    if (!last) return [];
    return first && first !== last && (e.count ?? 1) > 1 ? [first, last] : [last];
}

/** The members of a scheduler message: `Binding has been scheduled successfully. Result: {ikoclone:0, ikodr:0}`. */
export function scheduledMembers(message: string): string[] {
    const m = /Result: \{([^}]*)\}/.exec(message);
    return m
        ? m[1]
              .split(",")
              .map((s) => s.trim().replace(/:\d+$/, ""))
              .filter(Boolean)
        : [];
}

/**
 * The moves of one IrisCluster, oldest first: Karmada's scheduling and eviction events on its binding
 * (a schedule with the same result as the one before is not a move), and its open eviction tasks.
 */
export function movesOf(id: string, events: KubeEvent[], binding: Binding | undefined, failover: string[] | undefined): MoveView[] {
    type Seen = { at: string; reason: string; message: string; order: number };
    const seen: Seen[] = events.flatMap((e, order) => occurrences(e).map((at) => ({ at, reason: e.reason ?? "", message: e.message ?? "", order })));
    seen.sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order);
    const moves: MoveView[] = [];
    let last: string | undefined;
    for (const s of seen) {
        if (s.reason === "ScheduleBindingSucceed") {
            const to = scheduledMembers(s.message);
            const key = to.join(",");
            if (key === last) continue;
            const kind = last === undefined ? "scheduled" : failover && to.length === 1 && to[0] === failover[0] ? "failback" : "rescheduled";
            last = key;
            moves.push({ at: s.at, irisCluster: id, kind, members: to, message: s.message });
        } else if (s.reason === "ScheduleBindingFailed") {
            moves.push({ at: s.at, irisCluster: id, kind: "schedule-failed", members: [], message: s.message });
        } else if (s.reason === "EvictWorkloadFromClusterSucceed" || s.reason === "EvictWorkloadFromClusterFailed") {
            const from = /cluster (\S+?) (succeed|failed)/.exec(s.message)?.[1];
            moves.push({
                at: s.at,
                irisCluster: id,
                kind: s.reason.endsWith("Succeed") ? "evicted" : "evict-failed",
                members: from ? [from] : [],
                message: s.message,
            });
        }
    }
    for (const t of binding?.spec?.gracefulEvictionTasks ?? []) {
        if (!t.creationTimestamp) continue;
        moves.push({
            at: t.creationTimestamp,
            irisCluster: id,
            kind: "eviction",
            members: [t.fromCluster ?? ""],
            message: [t.reason, t.message].filter(Boolean).join(": ") || "eviction began",
        });
    }
    return moves.sort((a, b) => a.at.localeCompare(b.at));
}

const CLUSTERS = KARMADA_PATHS.clusters;
/** The label Karmada puts on a binding and on each of its Works. */
const PERMANENT_ID = "resourcebinding.karmada.io/permanent-id";
const worksOf = (permanentId: string) => `${KARMADA_PATHS.works}?labelSelector=${encodeURIComponent(`${PERMANENT_ID}=${permanentId}`)}`;
const bindings = KARMADA_PATHS.resourceBindings;
const bindingEvents = (namespace: string, binding: string) =>
    `/api/v1/namespaces/${namespace}/events?fieldSelector=${encodeURIComponent(`involvedObject.kind=${KARMADA_KINDS.resourceBinding},involvedObject.name=${binding}`)}`;

/** GETs one path; 404 is undefined, any other failure a StatusError naming what was read. */
async function getJson<T>(get: KarmadaGet, path: string, what: string): Promise<T | undefined> {
    const res = await get(path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new StatusError(`reading ${what} from the Karmada API failed: ${describeError({ code: res.status, body: res.body })}`);
    return JSON.parse(res.body) as T;
}

/** How many moves status shows (the latest). */
export const MAX_MOVES = 12;

/** Reads the fleet of a stack from the Karmada API and judges it. Unreachable: the request's error, as thrown. */
export async function readFleetStatus(get: KarmadaGet, stack: string, outputs: StackOutputs, now: () => Date = () => new Date()): Promise<FleetStatus> {
    const clusterList = await getJson<{ items?: Cluster[] }>(get, CLUSTERS, "the member clusters");
    const members = outputs.members.map((name) =>
        memberView(
            name,
            clusterList?.items?.find((c) => c.metadata?.name === name),
        ),
    );
    const irisClusters: IrisClusterView[] = [];
    let moves: MoveView[] = [];
    const bindingsByNamespace = new Map<string, Binding[]>();
    for (const [id, targets] of Object.entries(outputs.irisClusters).sort(([a], [b]) => a.localeCompare(b))) {
        const [namespace, name] = id.split("/");
        if (!bindingsByNamespace.has(namespace)) {
            bindingsByNamespace.set(
                namespace,
                (await getJson<{ items?: Binding[] }>(get, bindings(namespace), `the ResourceBindings in ${namespace}`))?.items ?? [],
            );
        }
        const all = bindingsByNamespace.get(namespace)!;
        const bindingName = `${name}-iriscluster`;
        const binding = all.find((b) => b.metadata?.name === bindingName);
        const deps = all.filter((b) => (b.spec?.requiredBy ?? []).some((r) => r.name === bindingName && (r.namespace ?? namespace) === namespace));
        const permanentId = binding?.metadata?.labels?.[PERMANENT_ID];
        const works = permanentId ? ((await getJson<{ items?: Work[] }>(get, worksOf(permanentId), `the Works of ${id}`))?.items ?? []) : [];
        irisClusters.push(irisClusterView(id, targets, binding, deps, members, works));
        // Only this binding's: an earlier one of the same name (a stack destroyed and brought up again) has its own uid.
        const uid = binding?.metadata?.uid;
        const events = ((await getJson<{ items?: KubeEvent[] }>(get, bindingEvents(namespace, bindingName), `the events of ${id}`))?.items ?? []).filter(
            (e) => !uid || !e.involvedObject?.uid || e.involvedObject.uid === uid,
        );
        moves = moves.concat(movesOf(id, events, binding, failoverList(binding)));
    }
    moves.sort((a, b) => a.at.localeCompare(b.at));
    return { version: 1, stack, readAt: now().toISOString(), ok: irisClusters.every((i) => i.asPlaced), members, irisClusters, moves: moves.slice(-MAX_MOVES) };
}

/** The exit code of a status: 0 when every IrisCluster runs where its placement wants it, else 1. */
export const exitCodeOf = (status: FleetStatus): 0 | 1 => (status.ok ? 0 : 1);
