// KarmadaMember: what `karmadactl join` does in Push mode, as typed resources, so that preview
// shows the join and destroy undoes it.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DeepInput, KarmadaCluster, KarmadaClusterSpec } from "./crds";
import { KARMADA_CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABELS } from "./karmada";

/** Arguments of a KarmadaMember. */
export interface KarmadaMemberArgs {
    /** The member's name in Karmada (DNS-1123 label, at most 48 characters). */
    clusterName: string;
    /** Provider of the member cluster. */
    memberProvider: k8s.Provider;
    /** Provider of the Karmada API. */
    karmadaProvider: k8s.Provider;
    /** The `karmada-cluster` namespace in the Karmada API (an output, so the join waits for it). */
    karmadaClusterNamespace: pulumi.Input<string>;
    /** The member API server as Karmada's controllers reach it. */
    apiEndpoint: pulumi.Input<string>;
    /** Labels on the Karmada `Cluster`, matched by placements' `clusterLabels`. */
    labels?: Record<string, string>;
    /** `Cluster.spec.provider`, matched by overrides' `clusterProviders`. */
    provider?: string;
    /** `Cluster.spec.region`. */
    region?: pulumi.Input<string>;
    /** `Cluster.spec.zones`. */
    zones?: pulumi.Input<pulumi.Input<string>[]>;
    /** Resource whose deletion deletes the member cluster; member-side objects are then not deleted one by one. */
    memberLifecycle?: pulumi.Resource;
    /** Resource whose deletion deletes the Karmada control plane; Karmada-side objects likewise. */
    karmadaLifecycle?: pulumi.Resource;
    /**
     * Resources the member must have before it joins, e.g. IKO's release, which brings the
     * IrisCluster CRD. Karmada's first collection of the member's APIs then has it, and the
     * scheduler does not wait a status-sync period (10 s by default) to place IrisClusters there.
     */
    joinAfter?: pulumi.Resource[];
}

/** The names `karmadactl join` uses (pkg/util/names). */
export function joinNames(clusterName: string) {
    const serviceAccount = `karmada-${clusterName}`;
    return {
        serviceAccount,
        impersonator: "karmada-impersonator",
        clusterRole: `karmada-controller-manager:${serviceAccount}`,
        credentialsSecret: clusterName,
        impersonatorSecret: `${clusterName}-impersonator`,
    };
}

/** A member cluster joined to Karmada in Push mode. */
export class KarmadaMember extends pulumi.ComponentResource {
    /** The member's name in Karmada. */
    public readonly clusterName: string;
    /** The Karmada `Cluster` object. */
    public readonly cluster: KarmadaCluster;

    constructor(name: string, args: KarmadaMemberArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaMember", name, {}, opts);
        this.clusterName = args.clusterName;
        const n = joinNames(args.clusterName);
        const onMember: pulumi.CustomResourceOptions = { parent: this, provider: args.memberProvider, deletedWith: args.memberLifecycle };
        const onKarmada: pulumi.CustomResourceOptions = { parent: this, provider: args.karmadaProvider, deletedWith: args.karmadaLifecycle };
        const labels = KARMADA_SYSTEM_LABELS;

        // In the member: an identity for Karmada's controllers with full rights, and its token.
        const ns = new k8s.core.v1.Namespace(`${name}-member-ns`, { metadata: { name: KARMADA_CLUSTER_NAMESPACE, labels } }, onMember);
        const namespace = ns.metadata.name;
        const sa = new k8s.core.v1.ServiceAccount(`${name}-sa`, { metadata: { name: n.serviceAccount, namespace, labels } }, onMember);
        const impersonatorSa = new k8s.core.v1.ServiceAccount(
            `${name}-impersonator-sa`,
            { metadata: { name: n.impersonator, namespace, labels } },
            onMember,
        );
        const role = new k8s.rbac.v1.ClusterRole(
            `${name}-role`,
            {
                metadata: { name: n.clusterRole, labels },
                rules: [
                    { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
                    { nonResourceURLs: ["*"], verbs: ["get"] },
                ],
            },
            onMember,
        );
        const binding = new k8s.rbac.v1.ClusterRoleBinding(
            `${name}-binding`,
            {
                metadata: { name: n.clusterRole, labels },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role.metadata.name },
                subjects: [{ kind: "ServiceAccount", name: sa.metadata.name, namespace }],
            },
            onMember,
        );
        // Legacy token Secrets: the token controller fills them, and the provider waits until it has.
        const tokenSecret = (id: string, secretName: string, account: k8s.core.v1.ServiceAccount) =>
            new k8s.core.v1.Secret(
                `${name}-${id}`,
                {
                    metadata: { name: secretName, namespace, annotations: { "kubernetes.io/service-account.name": account.metadata.name } },
                    type: "kubernetes.io/service-account-token",
                },
                { ...onMember, dependsOn: [account] },
            );
        const token = tokenSecret("token", n.serviceAccount, sa);
        const impersonatorToken = tokenSecret("impersonator-token", n.impersonator, impersonatorSa);

        // In the Karmada API: the credentials and the Cluster object.
        const credentials = new k8s.core.v1.Secret(
            `${name}-credentials`,
            {
                metadata: { name: n.credentialsSecret, namespace: args.karmadaClusterNamespace, labels },
                type: "Opaque",
                data: { caBundle: token.data.apply((d) => d["ca.crt"]), token: token.data.apply((d) => d["token"]) },
            },
            onKarmada,
        );
        const impersonatorCredentials = new k8s.core.v1.Secret(
            `${name}-impersonator-credentials`,
            {
                metadata: { name: n.impersonatorSecret, namespace: args.karmadaClusterNamespace, labels },
                type: "Opaque",
                data: { token: impersonatorToken.data.apply((d) => d["token"]) },
            },
            onKarmada,
        );
        const spec: DeepInput<KarmadaClusterSpec> = {
            syncMode: "Push",
            apiEndpoint: args.apiEndpoint,
            secretRef: { namespace: args.karmadaClusterNamespace, name: n.credentialsSecret },
            impersonatorSecretRef: { namespace: args.karmadaClusterNamespace, name: n.impersonatorSecret },
            ...(args.provider !== undefined ? { provider: args.provider } : {}),
            ...(args.region !== undefined ? { region: args.region } : {}),
            ...(args.zones !== undefined ? { zones: args.zones } : {}),
        };
        this.cluster = new KarmadaCluster(
            `${name}-cluster`,
            // No labels is no `labels` key: the API server drops an empty map, and `labels: {}` then
            // shows as a change in every preview.
            { metadata: { name: args.clusterName, ...(args.labels && Object.keys(args.labels).length > 0 ? { labels: args.labels } : {}) }, spec },
            // The Cluster goes first on destroy: Karmada still needs the member's RBAC to clean up.
            { ...onKarmada, dependsOn: [credentials, impersonatorCredentials, binding, ...(args.joinAfter ?? [])] },
        );
        this.registerOutputs({ clusterName: this.clusterName });
    }
}
