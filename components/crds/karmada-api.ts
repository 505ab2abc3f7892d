// The Karmada API as Kamino reaches it: its groups and versions (apiVersion of the objects it
// creates) and the REST paths it reads and writes, in one place. Versions are those of Karmada
// v1.15-v1.18, checked against the upstream schemas in ../shared/schemas/karmada by
// test/unit/karmada-api.test.ts. No imports: the live readers and the commands use it without
// loading Pulumi.

/** The apiVersion of each Karmada API group Kamino uses. */
export const KARMADA_API_VERSIONS = {
    /** Cluster: served by karmada-aggregated-apiserver, not a CRD. */
    cluster: "cluster.karmada.io/v1alpha1",
    /** PropagationPolicy, OverridePolicy, ClusterTaintPolicy. */
    policy: "policy.karmada.io/v1alpha1",
    /** Work: what Karmada applies on one member. */
    work: "work.karmada.io/v1alpha1",
    /** ResourceBinding: where Karmada scheduled a template. */
    binding: "work.karmada.io/v1alpha2",
    /** ResourceInterpreterCustomization. */
    config: "config.karmada.io/v1alpha1",
    /** WorkloadRebalancer. */
    apps: "apps.karmada.io/v1alpha1",
} as const;

/** The kinds Kamino reads or creates in the Karmada API, besides the policies of karmada-policy.ts. */
export const KARMADA_KINDS = {
    cluster: "Cluster",
    work: "Work",
    resourceBinding: "ResourceBinding",
    interpreterCustomization: "ResourceInterpreterCustomization",
    workloadRebalancer: "WorkloadRebalancer",
} as const;

/** The apiVersion of IKO's IrisCluster, whose templates live in the Karmada API too. */
export const IRIS_CLUSTER_API_VERSION = "intersystems.com/v1alpha1";

const apis = (apiVersion: string) => `/apis/${apiVersion}`;

/** REST paths of the Karmada API. */
export const KARMADA_PATHS = {
    /** Every member Cluster. */
    clusters: `${apis(KARMADA_API_VERSIONS.cluster)}/clusters`,
    /** One member Cluster. */
    cluster: (name: string) => `${KARMADA_PATHS.clusters}/${name}`,
    /** Every Work, in every execution namespace. */
    works: `${apis(KARMADA_API_VERSIONS.work)}/works`,
    /** The Works of one execution namespace (`karmada-es-<member>`). */
    worksIn: (namespace: string) => `${apis(KARMADA_API_VERSIONS.work)}/namespaces/${namespace}/works`,
    /** The ResourceBindings of a namespace. */
    resourceBindings: (namespace: string) => `${apis(KARMADA_API_VERSIONS.binding)}/namespaces/${namespace}/resourcebindings`,
    /** One PropagationPolicy. */
    propagationPolicy: (namespace: string, name: string) => `${apis(KARMADA_API_VERSIONS.policy)}/namespaces/${namespace}/propagationpolicies/${name}`,
    /** One IrisCluster template (what Karmada propagates). */
    irisClusterTemplate: (namespace: string, name: string) => `${apis(IRIS_CLUSTER_API_VERSION)}/namespaces/${namespace}/irisclusters/${name}`,
    /** WorkloadRebalancers (cluster-scoped). */
    workloadRebalancers: `${apis(KARMADA_API_VERSIONS.apps)}/workloadrebalancers`,
} as const;
