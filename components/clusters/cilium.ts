// Cilium: the CNI of kind clusters (their default CNI is disabled), as a Helm release.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { mergeValues, Values } from "../common/values";

/** Arguments of a Cilium release. */
export interface CiliumArgs {
    /** Provider of the cluster to install into. */
    provider: k8s.Provider;
    /** Chart version, e.g. `1.18.0`. */
    version: string;
    /** Chart repository URL. */
    repo: string;
    /** Extra Helm values, merged over Kamino's kind defaults. */
    values?: Values;
}

/** The values Cilium needs on kind (per Cilium's kind guide): kube-managed IPAM, one operator. */
export const CILIUM_KIND_VALUES: Values = {
    ipam: { mode: "kubernetes" },
    image: { pullPolicy: "IfNotPresent" },
    operator: { replicas: 1 },
};

/** Cilium installed into `kube-system`. */
export class Cilium extends pulumi.ComponentResource {
    /** The Helm release; add-ons that need pod networking depend on it. */
    public readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: CiliumArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:Cilium", name, {}, opts);
        this.release = new k8s.helm.v3.Release(
            `${name}-cilium`,
            {
                name: "cilium",
                chart: "cilium",
                version: args.version,
                repositoryOpts: { repo: args.repo },
                namespace: "kube-system",
                values: mergeValues(CILIUM_KIND_VALUES, args.values ?? {}),
                timeout: 600,
            },
            { parent: this, provider: args.provider },
        );
        this.registerOutputs({ status: this.release.status });
    }
}
