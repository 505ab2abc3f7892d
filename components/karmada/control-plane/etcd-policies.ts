// What the namespace of Karmada's control plane needs off kind besides the etcd members (pure):
// the quota that lets critical-priority pods in on GKE, the NetworkPolicy that lets only Karmada's
// apiservers, the peers and Kamino's maintenance Jobs reach etcd, and a StorageClass that keeps the
// members' disks when their claims go.
import * as k8s from "@pulumi/kubernetes";
import { AGGREGATED_APISERVER_POD_LABELS, APISERVER_POD_LABELS } from "./chart-values";
import { EtcdClusterNames, etcdLabels, ETCD_PORTS } from "./etcd-cluster";

/** Name of the ResourceQuota that admits critical-priority pods in Karmada's namespace. */
export const CRITICAL_PODS_QUOTA = "karmada-critical-pods";
/** The classes Kamino's etcd and every component of Karmada's chart use by default. */
export const CRITICAL_PRIORITY_CLASSES = ["system-node-critical", "system-cluster-critical"];

/**
 * A ResourceQuota scoped to the critical priority classes. GKE (and any cluster whose ResourceQuota
 * admission is configured with `limitedResources` for them, as Kubernetes documents under "Limit
 * Priority Class consumption by default") admits pods of these classes outside kube-system only
 * where such a quota exists; otherwise their pods fail with `insufficient quota to match these
 * scopes`. Elsewhere the quota only counts. 100 pods: Karmada at two replicas of six components and
 * five etcd members is 17 pods, about 23 during a rolling update; 100 leaves room for components a
 * stack adds through `values` without a second number to tune, and still bounds what this namespace
 * can take at a priority that preempts ordinary workloads.
 */
export function criticalPodsQuotaSpec(pods = "100"): k8s.types.input.core.v1.ResourceQuotaSpec {
    return {
        hard: { pods },
        scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: CRITICAL_PRIORITY_CLASSES }] },
    };
}

/** Labels of the pods of Kamino's etcd Jobs (defragmentation, backup); the NetworkPolicy lets them in. */
export const ETCD_JOB_LABELS = { app: "karmada-etcd-maintenance", "karmada.io/system": "true" };

/**
 * Pods of Karmada's chart that dial etcd: karmada-apiserver and karmada-aggregated-apiserver, by the
 * `app` labels Kamino sets on them in the chart's values (chart-values.ts, the chart's defaults too).
 */
export const ETCD_CLIENT_POD_LABELS = [APISERVER_POD_LABELS, AGGREGATED_APISERVER_POD_LABELS];

/**
 * Who may reach the members: Karmada's apiservers and Kamino's Jobs on the client port, the other
 * members on the peer port. Nothing else, in this namespace or another. The kubelet's probes come
 * from the node, which a NetworkPolicy does not block; a metrics scraper would need a rule added.
 */
export function etcdNetworkPolicySpec(n: EtcdClusterNames): k8s.types.input.networking.v1.NetworkPolicySpec {
    return {
        podSelector: { matchLabels: etcdLabels(n) },
        policyTypes: ["Ingress"],
        ingress: [
            {
                from: [...ETCD_CLIENT_POD_LABELS, ETCD_JOB_LABELS].map((matchLabels) => ({ podSelector: { matchLabels } })),
                ports: [{ protocol: "TCP", port: ETCD_PORTS.client }],
            },
            { from: [{ podSelector: { matchLabels: etcdLabels(n) } }], ports: [{ protocol: "TCP", port: ETCD_PORTS.peer }] },
        ],
    };
}

/** Name of the StorageClass Kamino makes for etcd on a gke host. */
export const ETCD_STORAGE_CLASS = "karmada-etcd-retain";

/**
 * GKE's balanced persistent disk with `Retain`: deleting a claim (the StatefulSet or the namespace
 * replaced, a `destroy`) leaves the disk and its PersistentVolume, so the data can be bound again.
 * `WaitForFirstConsumer` creates each disk in the zone its member was scheduled to.
 */
export function etcdStorageClass(diskType = "pd-balanced"): Omit<k8s.storage.v1.StorageClassArgs, "metadata"> {
    return {
        provisioner: "pd.csi.storage.gke.io",
        parameters: { type: diskType },
        reclaimPolicy: "Retain",
        volumeBindingMode: "WaitForFirstConsumer",
        allowVolumeExpansion: true,
    };
}
