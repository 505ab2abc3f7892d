// What a Pull member's karmada-agent is, as data: its names, its rights in the Karmada API and on
// its member, its command line and its Karmada kubeconfig. Pure; KarmadaPullMember (pull-member.ts)
// turns it into resources. Read from karmada-io/karmada@v1.18.2: cmd/agent/app (flags, what it
// calls), pkg/karmadactl/register/register.go (the rights `karmadactl register` grants) and
// pkg/controllers/certificate/approver (the CSR shape Karmada approves).
import * as YAML from "yaml";
import { activeCluster, parseKubeconfig } from "../../common/kubeconfig";
import { PolicyRule } from "./member-access";

/** Namespace of the agent on its member. */
export const AGENT_NAMESPACE = "karmada-system";
/** Namespace of the cluster Leases in the Karmada API (pkg/util NamespaceClusterLease). */
export const CLUSTER_LEASE_NAMESPACE = "karmada-cluster";
/** Where the agent's Secret (its Karmada kubeconfig) is mounted in its pod. */
export const AGENT_KUBECONFIG_DIR = "/etc/karmada/config";
/** The key of the Karmada kubeconfig in that Secret, as `karmadactl register` names it. */
export const AGENT_KUBECONFIG_KEY = "karmada-kubeconfig";
/** The group of every agent's user in the Karmada API; `agentcsrapproving` approves only this organization. */
export const AGENT_GROUP = "system:karmada:agents";
/** Signer of the agent's client certificate: the Karmada API server's client CA. */
export const AGENT_SIGNER = "kubernetes.io/kube-apiserver-client";
/** Lifetime Kamino asks for the agent's certificate (Karmada's signer may cap it; the default cap is one year). */
export const AGENT_CERT_SECONDS = 365 * 24 * 3600;

/** The names of everything a Pull member's agent is and holds. */
export function agentNames(clusterName: string) {
    return {
        /** The agent's user in the Karmada API: the CN of its client certificate. */
        user: `system:karmada:agent:${clusterName}`,
        /** ClusterRole and ClusterRoleBinding of its cluster-wide rights in Karmada, as register names them. */
        karmadaClusterRole: `system:karmada:${clusterName}:agent`,
        /** Role and RoleBinding on Works in its execution namespace. */
        workRole: `system:karmada:${clusterName}:agent-work`,
        /** Role and RoleBinding on its Leases. */
        leaseRole: `system:karmada:${clusterName}:agent-lease`,
        /** Karmada's namespace of the Works for this member (pkg/util/names GenerateExecutionSpaceName). */
        executionNamespace: `karmada-es-${clusterName}`,
        /** ServiceAccount, Deployment, ClusterRole and ClusterRoleBinding on the member. */
        agent: "karmada-agent",
        memberClusterRole: `karmada-agent:${clusterName}`,
        /** The member Secret with the agent's Karmada kubeconfig (the name its certRotation controller reads). */
        kubeconfigSecret: "karmada-kubeconfig",
    };
}

/**
 * The agent's cluster-wide rights in the Karmada API: what `karmadactl register` grants, minus what
 * Kamino's agent never does (CertificateSigningRequests: Kamino asks for the certificate; `delete` of
 * its Cluster: Kamino removes it), plus `update` of its own Cluster, which the agent calls when it
 * starts with a Cluster already there (CreateOrUpdateClusterObject) and register forgets.
 * `list` of all Clusters stays: registration refuses a name or id another Cluster uses (#6229).
 */
export function agentKarmadaRules(clusterName: string): PolicyRule[] {
    return [
        { apiGroups: ["cluster.karmada.io"], resources: ["clusters"], resourceNames: [clusterName], verbs: ["get", "update"] },
        { apiGroups: ["cluster.karmada.io"], resources: ["clusters"], verbs: ["create", "list", "watch"] },
        { apiGroups: ["cluster.karmada.io"], resources: ["clusters/status"], resourceNames: [clusterName], verbs: ["update"] },
        {
            apiGroups: ["config.karmada.io"],
            resources: ["resourceinterpreterwebhookconfigurations", "resourceinterpretercustomizations"],
            verbs: ["get", "list", "watch"],
        },
        { apiGroups: [""], resources: ["namespaces"], verbs: ["get"] },
        { apiGroups: [""], resources: ["services"], verbs: ["list", "watch"] },
        { apiGroups: [""], resources: ["events"], verbs: ["create", "patch", "update"] },
    ];
}

/** The agent's rights on the Works of its own execution namespace (a Role there). */
export const AGENT_WORK_RULES: PolicyRule[] = [
    { apiGroups: ["work.karmada.io"], resources: ["works"], verbs: ["get", "list", "watch", "update", "delete"] },
    { apiGroups: ["work.karmada.io"], resources: ["works/status"], verbs: ["patch", "update"] },
];

/**
 * Its cluster Lease (in `karmada-cluster`), a Role there. register grants Leases cluster-wide, for the
 * leader-election Lease too, which Kamino's agent does not take (`--leader-elect=false`, agentArgs).
 */
export const AGENT_LEASE_RULES: PolicyRule[] = [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] }];

/**
 * What the agent needs on its member for itself, beyond the rights of Karmada's identity there
 * (memberAccessPlan): the `kube-system` namespace, whose uid is the Cluster's `spec.id`; its
 * `--cluster-namespace`, which it checks for at start even with `--report-secrets=None`
 * (pkg/util/credential.go ObtainCredentialsFromMemberCluster); and its own events.
 */
export const AGENT_SELF_MEMBER_RULES: PolicyRule[] = [
    { apiGroups: [""], resources: ["namespaces"], resourceNames: ["kube-system", AGENT_NAMESPACE], verbs: ["get"] },
    { apiGroups: [""], resources: ["events"], verbs: ["create", "patch", "update"] },
];

/** How the agent is started. */
export interface AgentCommandArgs {
    clusterName: string;
    /** The member's API server as Karmada records it (`Cluster.spec.apiEndpoint`). */
    apiEndpoint: string;
    provider?: string;
    region?: string;
    zones?: string[];
    /** Failure-detection flags (detection.ts `agent`). */
    detection?: Record<string, string>;
}

/**
 * The agent's arguments. Both kubeconfigs are explicit: with no `--karmada-kubeconfig` the agent
 * falls back to `KUBECONFIG` and then to the in-cluster config, the member itself (§9 of the notes);
 * the member is reached in-cluster, through its ServiceAccount. `--report-secrets=None`: the agent
 * uploads no credential of the member to Karmada.
 */
export function agentArgs(a: AgentCommandArgs): string[] {
    return [
        `--karmada-kubeconfig=${AGENT_KUBECONFIG_DIR}/${AGENT_KUBECONFIG_KEY}`,
        "--karmada-context=karmada",
        `--cluster-name=${a.clusterName}`,
        `--cluster-api-endpoint=${a.apiEndpoint}`,
        ...(a.provider ? [`--cluster-provider=${a.provider}`] : []),
        ...(a.region ? [`--cluster-region=${a.region}`] : []),
        ...(a.zones && a.zones.length > 0 ? [`--cluster-zones=${a.zones.join(",")}`] : []),
        "--report-secrets=None",
        // Where reported credentials would go, which the agent makes sure exists on the member even
        // when it reports none: its own namespace, rather than an empty karmada-cluster there.
        `--cluster-namespace=${AGENT_NAMESPACE}`,
        // One agent per member, never two at once (a Recreate rollout): no leader election. With it,
        // an agent cut off from Karmada for its renew deadline (10 s; Karmada's etcd path stalled
        // 11-14 s when a node of the production control plane lost power) exits and crash-loops, and
        // a new one reports nothing until the old one's lease runs out: its member read Unknown, and
        // its IrisCluster moved, on a restart or an upgrade (docs/disaster-recovery.md, "Why an agent runs without leader election").
        "--leader-elect=false",
        "--metrics-bind-address=:8080",
        "--health-probe-bind-address=:10357",
        ...Object.entries(a.detection ?? {}).map(([k, v]) => `--${k}=${v}`),
    ];
}

/** The agent's kubeconfig for the Karmada API: its client certificate and key, PEM. */
export function agentKubeconfig(server: string, caPem: string, certPem: string, keyPem: string): string {
    const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
    return YAML.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "karmada", cluster: { server, "certificate-authority-data": b64(caPem) } }],
        users: [{ name: "karmada-agent", user: { "client-certificate-data": b64(certPem), "client-key-data": b64(keyPem) } }],
        contexts: [{ name: "karmada", context: { cluster: "karmada", user: "karmada-agent" } }],
        "current-context": "karmada",
    });
}

/** The Karmada API server and its CA (PEM) from a kubeconfig: what the agent dials and trusts. */
export function karmadaServer(kubeconfigText: string): { server: string; caPem: string } {
    const { server, "certificate-authority-data": ca } = activeCluster(parseKubeconfig(kubeconfigText)).cluster;
    if (!server || !ca)
        throw new Error("the Karmada kubeconfig has no server or no certificate-authority-data for its current context; a Pull member's agent needs both");
    return { server, caPem: Buffer.from(ca, "base64").toString("utf8") };
}

/** The image tag of a karmada-controller-manager image reference (`…/karmada-controller-manager:v1.18.2` -> `v1.18.2`). */
export function imageTag(image: string): string | undefined {
    const m = /:([\w][\w.-]{0,127})$/.exec(image.replace(/@sha256:[0-9a-f]+$/, ""));
    return m && !m[1].includes("/") ? m[1] : undefined;
}
