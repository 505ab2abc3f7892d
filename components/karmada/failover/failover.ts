// Failover placement: what Karmada v1.18 needs so that an IrisCluster runs on exactly one member at a
// time and moves down an ordered list when that member fails. Pure: policy specs and flag sets, used
// by the components, the chart values, the loopback harness and the tests alike.
import { ClusterTaintPolicySpec, Placement, PropagationSpec } from "../../crds";

/**
 * The taint Kamino's ClusterTaintPolicy puts on a failover member while Karmada cannot reach it. The
 * key is the one Karmada's cluster controller uses for its own NoSchedule taint; the effect differs,
 * and a taint is its key and effect, so the two live side by side.
 */
export const FAILOVER_TAINT = { key: "cluster.karmada.io/not-ready", effect: "NoExecute" } as const;

/** Name of the ClusterTaintPolicy in the Karmada API. */
export const FAILOVER_TAINT_POLICY_NAME = "kamino-failover";

/** karmada-controller-manager feature gates failover needs: the taint manager and the ClusterTaintPolicy controller. */
export const FAILOVER_FEATURE_GATES: Readonly<Record<string, boolean>> = { Failover: true };

/** karmada-controller-manager flags failover needs: act on NoExecute taints (off by default since v1.14). */
export const FAILOVER_CONTROLLER_ARGS: Readonly<Record<string, string>> = { "enable-no-execute-taint-eviction": "true" };

/**
 * karmada-webhook flags failover needs where the webhook validates ClusterTaintPolicies (`karmadactl
 * init`, Karmada's deploy scripts). Karmada's Helm chart (v1.15.0 to v1.18.2) does not route
 * ClusterTaintPolicies to the webhook at all, so it needs none, and has no value to set it anyway.
 */
export const FAILOVER_WEBHOOK_ARGS: Readonly<Record<string, string>> = { "allow-no-execute-taint-policy": "true" };

/** `{a: "b"}` -> `["--a=b"]`, as Karmada's chart renders `extraCommandArgs`. */
export const commandArgs = (args: Readonly<Record<string, string>>): string[] => Object.entries(args).map(([k, v]) => `--${k}=${v}`);

/** `{A: true, B: false}` -> `--feature-gates=A=true,B=false`, as Karmada's chart renders `featureGates`. */
export const featureGatesArg = (gates: Readonly<Record<string, boolean>>): string =>
    `--feature-gates=${Object.entries(gates)
        .map(([k, v]) => `${k}=${v}`)
        .join(",")}`;

/**
 * Taint the failover members NoExecute while their Ready condition is not True (False: unreachable;
 * Unknown: not heard from), and lift the taint once it is True again. Only these members: other
 * members, and other users' workloads on a shared Karmada, keep today's behaviour.
 */
export function failoverTaintPolicySpec(members: string[]): ClusterTaintPolicySpec {
    return {
        targetClusters: { clusterNames: [...members].sort() },
        addOnConditions: [{ conditionType: "Ready", operator: "NotIn", statusValues: ["True"] }],
        removeOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }],
        taints: [{ key: FAILOVER_TAINT.key, effect: FAILOVER_TAINT.effect }],
    };
}

/** Toleration for policies that keep every selected member whatever happens (placement mode `all`, synced Secrets). */
export const TOLERATE_FAILOVER_TAINT = { key: FAILOVER_TAINT.key, operator: "Exists", effect: FAILOVER_TAINT.effect } as const;

/** Karmada's limit on `affinityName` (a qualified name of at most 32 characters). */
const MAX_AFFINITY_NAME = 32;

/** The affinity group of the i-th member of a failover list: its rank and name, cut to Karmada's limit. */
export function affinityName(index: number, member: string): string {
    return `${index + 1}-${member}`.slice(0, MAX_AFFINITY_NAME).replace(/[^a-z0-9]+$/, "");
}

/**
 * One member at a time, in list order. One affinity group per member: Karmada's scheduler starts at
 * the first group and moves to the next only when the current one has no feasible member, and never
 * moves back by itself (see failback in docs/disaster-recovery.md). The spread constraint keeps it on
 * one member even if a group ever held more. The toleration delays eviction from a member that turns
 * unreachable by `failoverAfterSeconds`; Karmada's NoSchedule taint still keeps the scheduler off it.
 */
export function failoverPlacement(members: string[], failoverAfterSeconds: number): Placement {
    return {
        clusterAffinities: members.map((m, i) => ({ affinityName: affinityName(i, m), clusterNames: [m] })),
        spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }],
        clusterTolerations: [{ ...TOLERATE_FAILOVER_TAINT, tolerationSeconds: failoverAfterSeconds }],
    };
}

/**
 * The rest of a failover policy. Application failover moves the IrisCluster when Kamino's health
 * interpreter calls it Unhealthy (IKO reports it Failed) for `failoverAfterSeconds`; Karmada requires
 * `propagateDeps` with it. Both failovers purge Gracefully: the old copy goes once the new one is
 * healthy (or at once, when its member is unreachable, as soon as the member is back).
 */
export function failoverPolicyFields(failoverAfterSeconds: number): Pick<PropagationSpec, "propagateDeps" | "failover"> {
    return {
        propagateDeps: true,
        failover: {
            application: { decisionConditions: { tolerationSeconds: failoverAfterSeconds }, purgeMode: "Gracefully", gracePeriodSeconds: GRACE_PERIOD_SECONDS },
            cluster: { purgeMode: "Gracefully" },
        },
    };
}

/**
 * How long Karmada keeps the old copy after an application failover while the new one is not yet
 * healthy; Karmada's webhook sets 600 when it is absent, so it is stated to keep previews empty.
 */
export const GRACE_PERIOD_SECONDS = 600;
