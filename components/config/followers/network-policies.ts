// The follower `network-policies`: `kamino:irisClusters[].networkPolicy` isolates an IrisCluster's
// pods on every member it runs on. A NetworkPolicy per IrisCluster, created in Karmada and sent with
// the IrisCluster (an annotation on its template names it), so it follows failover: it is on the
// member the IrisCluster runs on and nowhere else. Its pods then take connections only from the
// IrisCluster's own pods (mirror pair, arbiter, compute, web gateway), from IKO's namespace, and
// from the sources the entry lists: addresses outside the cluster (`ingressFrom`, CIDRs) and the pods
// of namespaces (`ingressFromNamespaces`). Namespaces, because Cilium (kind members, GKE's Dataplane
// V2) does not apply an ipBlock to traffic between pods it manages: an in-cluster client cannot be
// let in by its address. Egress is not restricted.
import { z } from "zod";
import { IKO_POD_LABELS } from "../../crds/iko-labels";
import { cidr, dnsLabel } from "../schema-parts";
import type { CheckedConfig } from "../context";
import type { Problem } from "../problems";
import type { IrisClusterConfig } from "../schema";
import type { Follower, KarmadaObject } from "./follower";

const FIELDS = {
    /** Isolate this IrisCluster's pods: only its own pods, IKO and the sources listed here reach them. */
    networkPolicy: z
        .object({
            /** Addresses outside the cluster that may connect, as CIDRs (IPv4 or IPv6). */
            ingressFrom: z.array(cidr()).default([]),
            /** Namespaces whose pods may connect (on the same member). */
            ingressFromNamespaces: z.array(dnsLabel("namespace")).default([]),
        })
        .strict()
        .optional(),
};

/** The annotation on an IrisCluster template that names its NetworkPolicy, for Karmada's interpreter. */
export const NETWORK_POLICY_ANNOTATION = "kamino.io/network-policy";

/** The NetworkPolicy of an IrisCluster entry, by name. */
export const networkPolicyName = (irisClusterName: string) => `${irisClusterName}-isolation`;

/** The label Kubernetes puts on every namespace with its name (since 1.21), which a namespaceSelector can match. */
const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** The NetworkPolicy of one entry; `ikoNamespace` is where IKO runs on each member (`kamino:iko.namespace`). */
export function irisNetworkPolicy(ic: IrisClusterConfig, ikoNamespace: string): KarmadaObject {
    const np = ic.networkPolicy!;
    const ownPods = { matchLabels: { [IKO_POD_LABELS.name]: ic.name } };
    const namespace = (name: string) => ({ namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: name } } });
    return {
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        metadata: { name: networkPolicyName(ic.name), namespace: ic.namespace },
        spec: {
            podSelector: ownPods,
            policyTypes: ["Ingress"],
            ingress: [
                {
                    from: [
                        // Its own pods: the mirror pair and arbiter, ECP from compute, the web gateway.
                        { podSelector: ownPods },
                        // IKO, which manages them (it may call them; not verified that it does, so let in).
                        namespace(ikoNamespace),
                        ...np.ingressFrom.map((c) => ({ ipBlock: { cidr: c } })),
                        ...np.ingressFromNamespaces.map(namespace),
                    ],
                },
            ],
        },
    };
}

/**
 * An IrisCluster with a mirror reaches its other members' IRIS across clusters, from addresses a
 * NetworkPolicy cannot name in advance (ClusterMesh identities, load balancers' sources): refused.
 */
export function checkNetworkPolicies(cfg: CheckedConfig): Problem[] {
    return (cfg.irisClusters ?? []).flatMap((ic, i): Problem[] =>
        ic.networkPolicy && ic.mirror
            ? [
                  {
                      path: ["irisClusters", i, "networkPolicy"],
                      reason: "is set, and the IrisCluster has a mirror, whose members reach each other's IRIS from other clusters at addresses Kamino cannot list",
                      fix: "remove networkPolicy; isolate a mirror with NetworkPolicies of your own in kamino:manifests that let the other members' addresses in",
                  },
              ]
            : [],
    );
}

export const networkPoliciesFollower: Follower<Record<never, never>, typeof FIELDS> = {
    id: "network-policies",
    irisClusterFields: FIELDS,
    checks: [checkNetworkPolicies],
    declares: (cfg) =>
        (cfg.irisClusters ?? []).flatMap((ic, i) =>
            ic.networkPolicy
                ? [
                      {
                          object: { group: "networking.k8s.io", kind: "NetworkPolicy", namespace: ic.namespace, name: networkPolicyName(ic.name) },
                          at: ["irisClusters", i, "networkPolicy"],
                      },
                  ]
                : [],
        ),
    objects: {
        describe: (plan) => plan.irisClusters.flatMap((ic) => (ic.config.networkPolicy ? [irisNetworkPolicy(ic.config, plan.config.iko.namespace)] : [])),
    },
    lookup: {
        annotation: NETWORK_POLICY_ANNOTATION,
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        nameFor: (ic) => (ic.networkPolicy ? networkPolicyName(ic.name) : undefined),
    },
    // A mirror cannot have one (checkNetworkPolicies); were it allowed, a DR member would not get it.
    drMembers: "dropped",
};
