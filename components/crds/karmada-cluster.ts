// Karmada's Cluster (cluster.karmada.io/v1alpha1): served by karmada-aggregated-apiserver, not a CRD.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DeepInput } from "./types";
import { KARMADA_API_VERSIONS, KARMADA_KINDS } from "./karmada-api";

/** `Cluster.spec` as `karmadactl join` fills it for Push mode. */
export interface KarmadaClusterSpec {
    /** Push: Karmada's controllers talk to the member; Pull: an agent on the member talks to Karmada. */
    syncMode: "Push" | "Pull";
    /** The member API server as Karmada's controllers reach it. */
    apiEndpoint: string;
    /** Secret in the Karmada API with keys `caBundle` and `token`. */
    secretRef?: { namespace: string; name: string };
    /** Secret with the impersonator token, for cluster proxy and search. */
    impersonatorSecretRef?: { namespace: string; name: string };
    insecureSkipTLSVerification?: boolean;
    /** Cloud provider name, matched by `fieldSelector` key `provider`. */
    provider?: string;
    region?: string;
    zones?: string[];
    id?: string;
    proxyURL?: string;
    taints?: Array<{ key: string; value?: string; effect: string }>;
}

/** Arguments of a Karmada Cluster. */
export interface KarmadaClusterArgs {
    /** Object metadata: the cluster `name` (DNS-1123 label, at most 48 characters) and `labels`. */
    metadata: pulumi.Input<k8s.types.input.meta.v1.ObjectMeta>;
    /** The Cluster spec. */
    spec: pulumi.Input<DeepInput<KarmadaClusterSpec>>;
}

/** A member cluster registered with the Karmada control plane. */
export class KarmadaCluster extends k8s.apiextensions.CustomResource {
    static readonly apiVersion = KARMADA_API_VERSIONS.cluster;
    static readonly kind = KARMADA_KINDS.cluster;
    constructor(name: string, args: KarmadaClusterArgs, opts?: pulumi.CustomResourceOptions) {
        super(name, { apiVersion: KarmadaCluster.apiVersion, kind: KarmadaCluster.kind, ...args }, opts);
    }
}
