// The shape of what `npm run status` reads (fleet-status.ts) and prints: `FleetStatus` and its views,
// printed as is by `--json`: fields may be added, never renamed or removed (docs/status.md).
/** A member's taint, as Karmada's Cluster carries it. */
export interface TaintView {
    key: string;
    /** `NoSchedule` or `NoExecute`. */
    effect: string;
    /** When it was added (ISO 8601); null when Karmada did not say. */
    since: string | null;
}

/** A member of the stack, as its Karmada `Cluster` shows it. A member that is down is a state here, not an error. */
export interface MemberView {
    name: string;
    /** `Cluster.spec.syncMode`: `Push` or `Pull`; null when the member has no Cluster in Karmada. */
    syncMode: string | null;
    /**
     * `Ready` (its Ready condition is True), `NotReady` (False: Karmada cannot reach it), `Unknown`
     * (Karmada has not heard from it), `Joining` (no Ready condition yet) or `NotJoined` (no Cluster).
     */
    state: "Ready" | "NotReady" | "Unknown" | "Joining" | "NotJoined";
    /** Since when it is in that state: the Ready condition's lastTransitionTime (ISO 8601), or null. */
    since: string | null;
    /** The Ready condition's reason and message when it is not Ready, else null. */
    reason: string | null;
    taints: TaintView[];
    /** `Cluster.status.kubernetesVersion`, e.g. `v1.36.3`; null before Karmada has read it. */
    kubernetesVersion: string | null;
}

/** A dependency of an IrisCluster on one member: an object Karmada sends with it (a follower's, config/followers). */
export interface DependencyView {
    /** Its kind, as its binding names it (`ConfigMap`, `Secret`, `NetworkPolicy`...). */
    kind: string;
    name: string;
    /** Karmada applied it on that member (its binding's aggregated status says so). */
    present: boolean;
}

/** One member of an IrisCluster: scheduled there, evicted from there, or in its placement list. */
export interface IrisMemberView {
    name: string;
    /** In the binding's `spec.clusters`: Karmada wants it there now. */
    scheduled: boolean;
    /** A graceful eviction task from this member is open: the old copy is on its way out. */
    evicting: boolean;
    /**
     * Karmada is deleting its copy there (its Work has a deletion timestamp): while the member is
     * unreachable that old copy may still run there, and goes once Karmada reaches it again.
     */
    deleting: boolean;
    /** Karmada applied the IrisCluster there (`aggregatedStatus[].applied`); null when it reports nothing for the member. */
    applied: boolean | null;
    /**
     * IKO's phase there as Karmada last reflected it (`Running`, `Creating`, `Failed`...); null before
     * IKO reported one. Stale while the member is not Ready (the human view says `(stale)`).
     */
    phase: string | null;
    /** IKO's first condition there that is not True, as `Type=Status: reason: message`; null when none. */
    condition: string | null;
    /** Karmada's health of it there (`Healthy`, `Unhealthy`, `Unknown`); null when it reports nothing. */
    health: string | null;
    /** What Karmada sends with it, whatever the kind (their bindings name it in `requiredBy`). */
    dependencies: DependencyView[];
}

/** An open graceful eviction task on the binding: the IrisCluster is being taken off a member. */
export interface EvictionView {
    member: string;
    /** When the eviction began (ISO 8601), or null. */
    since: string | null;
    /** Why, as Karmada says (`TaintUntolerated`, `ApplicationFailure`...), or null. */
    reason: string | null;
}

/** An IrisCluster of the stack, and whether it runs where its placement wants it. */
export interface IrisClusterView {
    /** `namespace/name`. */
    id: string;
    /**
     * `failover`: one member at a time down `members` (Kamino's failover PropagationPolicy); `all`:
     * every member of `members` (the stack's targets); `unknown`: Karmada has no binding for it yet.
     */
    mode: "failover" | "all" | "unknown";
    /** The members its placement names, in order. */
    placement: string[];
    /** Where Karmada scheduled it: the binding's `spec.clusters`. */
    scheduled: string[];
    /** Scheduled members that are Ready and where IKO reports it Running. */
    runningOn: string[];
    evicting: EvictionView[];
    /** Its placement members, then any other member Karmada reports it on, in that order. */
    members: IrisMemberView[];
    /** It runs where its placement wants it (failover: on one Ready member of its list, Running; all: on every scheduled member, Ready and Running). */
    asPlaced: boolean;
    /** Why not, in one line; null when it is as placed. */
    problem: string | null;
}

/** A move Karmada made, from its events on the binding and its open eviction tasks. */
export interface MoveView {
    /** When (ISO 8601). */
    at: string;
    /** The IrisCluster, `namespace/name`. */
    irisCluster: string;
    /**
     * `scheduled` (first placement), `rescheduled` (to other members), `failback` (back to the first
     * member of a failover list), `eviction` (an eviction began), `evicted` (the old copy is gone),
     * `evict-failed`, `schedule-failed`.
     */
    kind: "scheduled" | "rescheduled" | "failback" | "eviction" | "evicted" | "evict-failed" | "schedule-failed";
    /** The members it went to (scheduling) or left (eviction). */
    members: string[];
    /** Karmada's message (the event's, or the eviction task's reason). */
    message: string;
}

/** One IRIS instance of a mirror: a pod of its pair, or the DR async pod on one member. */
export interface MirrorMemberView {
    member: string;
    /** The IrisCluster there: the pair's, or the DR one (`<name>-<member>`). */
    irisCluster: string;
    pod: string;
    /**
     * Its role by the stack's config: `failover` (a pair pod), `drasync`, `promoted` (the DR member
     * acting as primary), `fenced` (a pair pod while a DR member is promoted), `rejoining` (a pair pod
     * declared again to rejoin as DR async).
     */
    role: "failover" | "drasync" | "promoted" | "fenced" | "rejoining";
    /** IKO's `intersystems.com/mirrorRole` label on the pod as IKO set it (`primary`, `backup`); null when it has none or was not read. */
    label: string | null;
    /** The pod's phase (`Running`, `Pending`...), `no pod`, `not read: <member> is <state>` (Karmada's view), or `unreadable: <why>`. */
    podState: string;
}

/** An IRIS mirror of the stack (the stack output `mirrors`), each member's role read from its pods. */
export interface MirrorView {
    /** `namespace/name` of the pair's IrisCluster. */
    id: string;
    /** The IRIS mirror's name. */
    name: string;
    /** The member of the failover pair. */
    primary: string;
    /** The DR member acting as primary (`mirror.promoted` as the last `pulumi up` saw it), or null. */
    promoted: string | null;
    members: MirrorMemberView[];
}

/** What `npm run status -- --json` prints. Stable: fields are added, never renamed or removed. */
export interface FleetStatus {
    /** The version of this shape: 1. */
    version: 1;
    stack: string;
    /** When it was read (ISO 8601). */
    readAt: string;
    /** Every IrisCluster runs where its placement wants it: the exit code is 0, else 1. */
    ok: boolean;
    members: MemberView[];
    irisClusters: IrisClusterView[];
    /** Recent moves, oldest first (Karmada keeps events for an hour by default). */
    moves: MoveView[];
    /** The stack's IRIS mirrors and each member's role; absent when the stack has none. Lag is not shown (it needs a session in IRIS). */
    mirrors?: MirrorView[];
}

/** The stack outputs status reads (`pulumi stack output --json`). */
export interface StackOutputs {
    members: string[];
    /** For each IrisCluster `namespace/name`, the members it is propagated to (failover: the ordered list). */
    irisClusters: Record<string, string[]>;
}
