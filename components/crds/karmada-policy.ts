// Karmada policies (policy.karmada.io/v1alpha1), typed after the v1.15 CRDs in shared/schemas/karmada.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DeepInput } from "./types";
import { KARMADA_API_VERSIONS } from "./karmada-api";

const API_VERSION = KARMADA_API_VERSIONS.policy;

/** Selects resource templates in the Karmada API. */
export interface ResourceSelector {
    apiVersion: string;
    kind: string;
    namespace?: string;
    name?: string;
    labelSelector?: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
}

/** Which member clusters a placement or override targets. */
export interface ClusterAffinity {
    clusterNames?: string[];
    exclude?: string[];
    labelSelector?: { matchLabels?: Record<string, string> };
    fieldSelector?: { matchExpressions: Array<{ key: "provider" | "region" | "zone"; operator: "In" | "NotIn"; values: string[] }> };
}

/** Where propagated resources go. */
export interface Placement {
    clusterAffinity?: ClusterAffinity;
    clusterAffinities?: Array<ClusterAffinity & { affinityName: string }>;
    clusterTolerations?: Array<{ key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }>;
    spreadConstraints?: Array<{ spreadByField?: string; spreadByLabel?: string; maxGroups?: number; minGroups?: number }>;
    replicaScheduling?: Record<string, unknown>;
}

/** `PropagationPolicy.spec` and `ClusterPropagationPolicy.spec`. */
export interface PropagationSpec {
    resourceSelectors: ResourceSelector[];
    placement?: Placement;
    /** `Overwrite` adopts objects that already exist in members; Karmada's default is `Abort`. */
    conflictResolution?: "Abort" | "Overwrite";
    propagateDeps?: boolean;
    priority?: number;
    preserveResourcesOnDeletion?: boolean;
    dependentOverrides?: string[];
    failover?: Record<string, unknown>;
    [field: string]: unknown;
}

/** One Karmada plaintext overrider: a JSON-pointer patch. */
export interface PlaintextOverrider {
    path: string;
    operator: "add" | "remove" | "replace";
    value?: unknown;
}

/** `OverridePolicy.spec`. */
export interface OverrideSpec {
    resourceSelectors?: ResourceSelector[];
    overrideRules: Array<{
        targetCluster?: ClusterAffinity;
        overriders: {
            plaintext?: PlaintextOverrider[];
            labelsOverrider?: Array<{ operator: string; value?: Record<string, string> }>;
            annotationsOverrider?: Array<{ operator: string; value?: Record<string, string> }>;
            imageOverrider?: Array<{ predicate?: { path: string }; component: string; operator: string; value?: string }>;
        };
    }>;
}

/** A condition of a member's Karmada `Cluster` that a ClusterTaintPolicy matches. */
export interface MatchCondition {
    conditionType: string;
    operator: "In" | "NotIn";
    statusValues: Array<"True" | "False" | "Unknown">;
}

/** `ClusterTaintPolicy.spec`: taints Karmada adds to (and removes from) member Clusters by their conditions. */
export interface ClusterTaintPolicySpec {
    /** Clusters the policy applies to; absent means every cluster. */
    targetClusters?: ClusterAffinity;
    addOnConditions?: MatchCondition[];
    removeOnConditions?: MatchCondition[];
    taints: Array<{ key: string; effect: "NoSchedule" | "NoExecute"; value?: string }>;
}

/** Arguments of a Karmada policy resource. */
export interface PolicyArgs<Spec> {
    /** Object metadata: `name`, and `namespace` for the namespaced kinds. */
    metadata: pulumi.Input<k8s.types.input.meta.v1.ObjectMeta>;
    /** The policy spec. */
    spec: pulumi.Input<DeepInput<Spec>>;
}

/** Propagates namespaced resource templates to member clusters. */
export class PropagationPolicy extends k8s.apiextensions.CustomResource {
    static readonly apiVersion = API_VERSION;
    static readonly kind = "PropagationPolicy";
    constructor(name: string, args: PolicyArgs<PropagationSpec>, opts?: pulumi.CustomResourceOptions) {
        super(name, { apiVersion: API_VERSION, kind: PropagationPolicy.kind, ...args }, opts);
    }
}

/** Propagates cluster-scoped (or any namespace's) resource templates to member clusters. */
export class ClusterPropagationPolicy extends k8s.apiextensions.CustomResource {
    static readonly apiVersion = API_VERSION;
    static readonly kind = "ClusterPropagationPolicy";
    constructor(name: string, args: PolicyArgs<PropagationSpec>, opts?: pulumi.CustomResourceOptions) {
        super(name, { apiVersion: API_VERSION, kind: ClusterPropagationPolicy.kind, ...args }, opts);
    }
}

/** Changes propagated copies per member cluster. */
export class OverridePolicy extends k8s.apiextensions.CustomResource {
    static readonly apiVersion = API_VERSION;
    static readonly kind = "OverridePolicy";
    constructor(name: string, args: PolicyArgs<OverrideSpec>, opts?: pulumi.CustomResourceOptions) {
        super(name, { apiVersion: API_VERSION, kind: OverridePolicy.kind, ...args }, opts);
    }
}

/**
 * Taints member Clusters by their conditions (cluster-scoped). Since Karmada v1.14 this is the only
 * way a Cluster gets a NoExecute taint, and so the only way anything is evicted from a failed member.
 */
export class ClusterTaintPolicy extends k8s.apiextensions.CustomResource {
    static readonly apiVersion = API_VERSION;
    static readonly kind = "ClusterTaintPolicy";
    constructor(name: string, args: PolicyArgs<ClusterTaintPolicySpec>, opts?: pulumi.CustomResourceOptions) {
        super(name, { apiVersion: API_VERSION, kind: ClusterTaintPolicy.kind, ...args }, opts);
    }
}
