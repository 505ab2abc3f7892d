// KarmadaFailover: the Karmada-wide half of failover placement, the ClusterTaintPolicy that taints a
// failover member NoExecute while Karmada cannot reach it. The per-IrisCluster half (ordered groups,
// tolerations, application failover) is in each IrisCluster's PropagationPolicy (federated-iris.ts).
import * as pulumi from "@pulumi/pulumi";
import { ClusterTaintPolicy } from "../../crds";
import { FAILOVER_TAINT_POLICY_NAME, failoverTaintPolicySpec } from "./failover";
import { inheritedDependsOn } from "../../common/options";
import { KarmadaContext } from "../../common/karmada-context";

/** Arguments of a KarmadaFailover. */
export interface KarmadaFailoverArgs {
    /** The members some failover placement names; only they are tainted. */
    members: string[];
    /** The Karmada API its objects are made in. */
    karmada: KarmadaContext;
}

/** The ClusterTaintPolicy that lets Karmada evict IrisClusters from an unreachable failover member. */
export class KarmadaFailover extends pulumi.ComponentResource {
    /** The policy in the Karmada API. */
    public readonly taintPolicy: ClusterTaintPolicy;

    constructor(name: string, args: KarmadaFailoverArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaFailover", name, {}, opts);
        this.taintPolicy = new ClusterTaintPolicy(
            `${name}-taint-policy`,
            { metadata: { name: FAILOVER_TAINT_POLICY_NAME }, spec: failoverTaintPolicySpec(args.members) },
            { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: inheritedDependsOn(opts) },
        );
        this.registerOutputs({});
    }
}
