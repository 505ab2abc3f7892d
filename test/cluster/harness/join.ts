// What `karmadactl join` (Push mode) and `karmadactl unjoin` do, over plain HTTPS, for tests that
// need a member joined without Pulumi (karmada-io/karmada pkg/karmadactl/join, pkg/util/credential.go;
// ../shared/notes/karmada.md §2). Kamino's KarmadaMember component creates the same objects.
import { KARMADA_SYSTEM_LABELS } from "../../../components/karmada/control-plane/control-plane";
import { joinNames } from "../../../components/karmada/members/member";
import { KubeClient, KubeObject, resourcePath } from "./kube-client";
import { KARMADA_CLUSTER_NAMESPACE } from "./karmada-objects";
import { waitFor } from "./wait";

// The names and labels are Kamino's own (the product and the harness must agree on them).
export { joinNames, KARMADA_SYSTEM_LABELS };
export const CLUSTER_API_VERSION = "cluster.karmada.io/v1alpha1";

type Condition = { type: string; status: string; reason?: string; message?: string };
export type KarmadaClusterObject = KubeObject & { spec?: Record<string, unknown>; status?: { conditions?: Condition[]; kubernetesVersion?: string } };
type SecretObject = KubeObject & { data?: Record<string, string> };

export interface JoinOptions {
    /** Name of the Cluster in Karmada. */
    clusterName: string;
    /** Admin client of the member API server. */
    member: KubeClient;
    /** Admin client of the Karmada API server. */
    karmada: KubeClient;
    /** URL Karmada's controllers use to reach the member (here the member's loopback URL). */
    apiEndpoint: string;
    /** Labels on the Cluster. */
    labels?: Record<string, string>;
    /** How long the token controller may take to fill the token Secrets (join's own limit is 30 s). */
    tokenTimeoutMs?: number;
}

export interface JoinResult {
    cluster: KarmadaClusterObject;
    /** ms until the member's token controller populated both Secrets. */
    tokenMs: number;
}

const ns = KARMADA_CLUSTER_NAMESPACE;

async function tokenSecret(member: KubeClient, name: string, serviceAccount: string, timeoutMs: number): Promise<SecretObject> {
    await member.apply(resourcePath("v1", "secrets", { namespace: ns, name }), {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/service-account-token",
        metadata: { name, namespace: ns, annotations: { "kubernetes.io/service-account.name": serviceAccount } },
    });
    return waitFor(
        `token and ca.crt in member Secret ${ns}/${name} (filled by the member's kube-controller-manager token controller)`,
        async () => {
            const s = await member.get<SecretObject>(resourcePath("v1", "secrets", { namespace: ns, name }));
            return s?.data?.token && s.data["ca.crt"] ? s : undefined;
        },
        { timeoutMs, intervalMs: 200 },
    );
}

/** In the member: the join namespace, the two service accounts, and full rights for the one Karmada uses. */
async function applyMemberIdentity(m: KubeClient, n: ReturnType<typeof joinNames>): Promise<void> {
    const labels = KARMADA_SYSTEM_LABELS;
    await m.apply(resourcePath("v1", "namespaces", { name: ns }), { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels } });
    for (const sa of [n.impersonator, n.serviceAccount]) {
        await m.apply(resourcePath("v1", "serviceaccounts", { namespace: ns, name: sa }), {
            apiVersion: "v1",
            kind: "ServiceAccount",
            metadata: { name: sa, namespace: ns, labels },
        });
    }
    await m.apply(resourcePath("rbac.authorization.k8s.io/v1", "clusterroles", { name: n.clusterRole }), {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: n.clusterRole, labels },
        rules: [
            { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
            { nonResourceURLs: ["*"], verbs: ["get"] },
        ],
    });
    await m.apply(resourcePath("rbac.authorization.k8s.io/v1", "clusterrolebindings", { name: n.clusterRole }), {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: n.clusterRole, labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: n.clusterRole },
        subjects: [{ kind: "ServiceAccount", name: n.serviceAccount, namespace: ns }],
    });
}

/** Join a member in Push mode; returns once the Cluster object exists (not yet Ready). */
export async function joinCluster(o: JoinOptions): Promise<JoinResult> {
    const n = joinNames(o.clusterName);
    const labels = KARMADA_SYSTEM_LABELS;
    const m = o.member;

    // In the member: namespace, two service accounts, full rights for one, two token Secrets.
    await applyMemberIdentity(m, n);
    const t = Date.now();
    const timeout = o.tokenTimeoutMs ?? 30_000;
    const [impersonatorToken, credentials] = await Promise.all([
        tokenSecret(m, n.impersonator, n.impersonator, timeout),
        tokenSecret(m, n.serviceAccount, n.serviceAccount, timeout),
    ]);
    const tokenMs = Date.now() - t;
    const kubeSystem = await m.get(resourcePath("v1", "namespaces", { name: "kube-system" }));

    // In Karmada: the credentials as Opaque Secrets, then the Cluster.
    const k = o.karmada;
    await k.apply(resourcePath("v1", "namespaces", { name: ns }), { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels } });
    const secrets: [string, Record<string, string>][] = [
        [n.credentialsSecret, { caBundle: credentials.data!["ca.crt"], token: credentials.data!.token }],
        [n.impersonatorSecret, { token: impersonatorToken.data!.token }],
    ];
    for (const [name, data] of secrets) {
        await k.apply(resourcePath("v1", "secrets", { namespace: ns, name }), {
            apiVersion: "v1",
            kind: "Secret",
            type: "Opaque",
            metadata: { name, namespace: ns, labels },
            data,
        });
    }
    const cluster = await k.create<KarmadaClusterObject>(resourcePath(CLUSTER_API_VERSION, "clusters"), {
        apiVersion: CLUSTER_API_VERSION,
        kind: "Cluster",
        metadata: { name: o.clusterName, ...(o.labels ? { labels: o.labels } : {}) },
        spec: {
            syncMode: "Push",
            apiEndpoint: o.apiEndpoint,
            ...(kubeSystem?.metadata?.uid ? { id: kubeSystem.metadata.uid } : {}),
            secretRef: { namespace: ns, name: n.credentialsSecret },
            impersonatorSecretRef: { namespace: ns, name: n.impersonatorSecret },
        },
    });
    // Owner references let Karmada's garbage collector remove the Secrets with the Cluster.
    const owner = {
        apiVersion: CLUSTER_API_VERSION,
        kind: "Cluster",
        name: o.clusterName,
        uid: cluster.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
    };
    for (const [name] of secrets) {
        await k.mergePatch(resourcePath("v1", "secrets", { namespace: ns, name }), { metadata: { ownerReferences: [owner] } });
    }
    return { cluster, tokenMs };
}

/** The Cluster's condition of `type`, if any. */
export function clusterCondition(c: KarmadaClusterObject | undefined, type: string): Condition | undefined {
    return c?.status?.conditions?.find((x) => x.type === type);
}

/** `karmadactl unjoin --cluster-kubeconfig`: member-side objects (the namespace takes SAs and Secrets). */
export async function removeMemberJoinObjects(member: KubeClient, clusterName: string): Promise<void> {
    const n = joinNames(clusterName);
    await member.delete(resourcePath("rbac.authorization.k8s.io/v1", "clusterrolebindings", { name: n.clusterRole }));
    await member.delete(resourcePath("rbac.authorization.k8s.io/v1", "clusterroles", { name: n.clusterRole }));
    await member.delete(resourcePath("v1", "serviceaccounts", { namespace: ns, name: n.serviceAccount }));
    await member.delete(resourcePath("v1", "namespaces", { name: ns }));
}
