// The loopback test harness: real etcd, kube-apiservers, kube-controller-managers and Karmada on
// 127.0.0.1. See fleet.ts for what runs; LoopbackFleet is the entry point.
export { LoopbackFleet, DEFAULT_KARMADA_CRD_DIR } from "./fleet";
export type { ApiServer, LoopbackFleetOptions, Timing } from "./fleet";
export { KubeClient, KubeApiError, resourcePath } from "./kube-client";
export type { KubeObject, KubeCredentials } from "./kube-client";
export { findBinaries, BINARY_NAMES, REPO_ROOT } from "./binaries";
export type { Binaries } from "./binaries";
export { writeKubeconfig, kubeconfigYaml } from "./kubeconfig";
export { waitFor, WaitError } from "./wait";
export * from "./karmada-objects";
export { joinCluster, joinNames, clusterCondition, removeMemberJoinObjects, CLUSTER_API_VERSION, KARMADA_SYSTEM_LABELS } from "./join";
export type { JoinOptions, JoinResult, KarmadaClusterObject } from "./join";
export { IkoPlayer } from "./iko-player";
export { AgentPlayer } from "./agent-player";
export { LoadBalancer, PUBLISHED_ADDRESS } from "./load-balancer";
export type { AgentPlayerOptions } from "./agent-player";
export type { IkoReport } from "./iko-player";
export { MemberFront } from "./member-front";
export { FreezableFront } from "./tcp-pipe";
