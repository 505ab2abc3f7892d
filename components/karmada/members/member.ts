// KarmadaMember: what `karmadactl join` does in Push mode, as typed resources, so that preview
// shows the join and destroy undoes it.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DeepInput, KarmadaCluster, KarmadaClusterSpec } from "../../crds";
import { KARMADA_CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABELS } from "../control-plane/control-plane";
import { FULL_RULES, MemberAccessPlan } from "./member-access";
import { AfterCleanup, gatedBy, grantClusterRights, grantNamespaceRights } from "./member-rights";
import { KarmadaContext } from "../../common/karmada-context";

/** Arguments of a KarmadaMember. */
export interface KarmadaMemberArgs {
    /** The member's name in Karmada (DNS-1123 label, at most 48 characters). */
    clusterName: string;
    /** Provider of the member cluster. */
    memberProvider: k8s.Provider;
    /** The Karmada it joins. */
    karmada: KarmadaContext;
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
    /**
     * Resources the member must have before it joins, e.g. IKO's release, which brings the
     * IrisCluster CRD. Karmada's first collection of the member's APIs then has it, and the
     * scheduler does not wait a status-sync period (10 s by default) to place IrisClusters there.
     */
    joinAfter?: pulumi.Resource[];
    /**
     * What Karmada's identity may do on the member (`memberAccessPlan`); default: everything, as
     * `karmadactl join` grants. The fleet passes the narrow plan of `kamino:karmada.memberAccess`.
     */
    access?: MemberAccessPlan;
    /**
     * Settles once Karmada has taken objects that leave the config off the members
     * (manifest-cleanup.ts); the access rules are written only then, so that a narrowing never
     * comes before Karmada's last delete with the wider rights.
     */
    narrowAfter?: pulumi.Input<unknown>;
    /** Settles when the join may write (JoinTarget.gate); a failure stops it before it writes anything. */
    gate?: pulumi.Output<unknown>;
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

/** Name of the Role and RoleBinding in a namespace Kamino propagates into, and of the ClusterRole naming that namespace. */
export function namespaceRoleName(clusterName: string, namespace: string): string {
    return `${joinNames(clusterName).clusterRole}:${namespace}`;
}

/** What the join makes on the member for Karmada's controllers. */
interface MemberIdentity {
    /** The ServiceAccount Karmada's controllers act as. */
    serviceAccount: { name: pulumi.Output<string>; namespace: pulumi.Output<string> };
    /** Its cluster-wide rights. */
    binding: k8s.rbac.v1.ClusterRoleBinding;
    /** Its token, and the impersonator's when the plan has one. */
    token: k8s.core.v1.Secret;
    impersonatorToken?: k8s.core.v1.Secret;
}

/** A member cluster joined to Karmada in Push mode. */
export class KarmadaMember extends pulumi.ComponentResource {
    /** The member's name in Karmada. */
    public readonly clusterName: string;
    /** The Karmada `Cluster` object. */
    public readonly cluster: KarmadaCluster;
    /**
     * The bindings that give Karmada its rights on the member. Whatever Karmada must write on the
     * member depends on them: created before, deleted after.
     */
    public readonly access: pulumi.Resource[];
    /**
     * What every object Karmada propagates to this member waits for, and outlives on destroy: the
     * access bindings (Karmada's controllers clean up with their rights still in place).
     */
    public readonly propagatesAfter: pulumi.Resource[];

    constructor(name: string, args: KarmadaMemberArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaMember", name, {}, opts);
        this.clusterName = args.clusterName;
        // Nothing of the join is written before its gate allows it (a sync-mode change is refused first).
        const onMember: pulumi.CustomResourceOptions = {
            parent: this,
            provider: args.memberProvider,
            deletedWith: args.memberLifecycle,
            ...gatedBy(args.gate),
        };
        const onKarmada: pulumi.CustomResourceOptions = {
            parent: this,
            provider: args.karmada.provider,
            deletedWith: args.karmada.lifecycle,
            ...gatedBy(args.gate),
        };
        const access = args.access ?? { mode: "full", clusterRules: FULL_RULES, namespaces: [], impersonator: true };
        const narrowAfter = args.narrowAfter;
        const afterCleanup = <T>(rules: T): pulumi.Input<T> =>
            narrowAfter === undefined ? rules : (pulumi.unsecret(pulumi.output(narrowAfter).apply(() => rules)) as pulumi.Output<T>);

        const identity = this.memberIdentity(name, args.clusterName, access, afterCleanup, onMember);
        const subject = { kind: "ServiceAccount", name: identity.serviceAccount.name, namespace: identity.serviceAccount.namespace };
        this.access = [
            identity.binding,
            ...grantNamespaceRights(name, { roleName: joinNames(args.clusterName).clusterRole, access, subject, afterCleanup }, onMember),
        ];
        this.propagatesAfter = this.access;
        this.cluster = this.karmadaCluster(name, args, identity, onKarmada);
        this.registerOutputs({ clusterName: this.clusterName });
    }

    /** In the member: an identity for Karmada's controllers, its cluster-wide rights and its tokens. */
    private memberIdentity(
        name: string,
        clusterName: string,
        access: MemberAccessPlan,
        afterCleanup: AfterCleanup,
        onMember: pulumi.CustomResourceOptions,
    ): MemberIdentity {
        const n = joinNames(clusterName);
        const labels = KARMADA_SYSTEM_LABELS;
        const ns = new k8s.core.v1.Namespace(`${name}-member-ns`, { metadata: { name: KARMADA_CLUSTER_NAMESPACE, labels } }, onMember);
        const namespace = ns.metadata.name;
        const sa = new k8s.core.v1.ServiceAccount(`${name}-sa`, { metadata: { name: n.serviceAccount, namespace, labels } }, onMember);
        const impersonatorSa = access.impersonator
            ? new k8s.core.v1.ServiceAccount(`${name}-impersonator-sa`, { metadata: { name: n.impersonator, namespace, labels } }, onMember)
            : undefined;
        const subject = { kind: "ServiceAccount", name: sa.metadata.name, namespace };
        const binding = grantClusterRights(name, { roleName: n.clusterRole, rules: afterCleanup(access.clusterRules), subject }, onMember);
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
        const impersonatorToken = impersonatorSa ? tokenSecret("impersonator-token", n.impersonator, impersonatorSa) : undefined;
        return { serviceAccount: { name: sa.metadata.name, namespace }, binding, token, impersonatorToken };
    }

    /** In the Karmada API: the member's credentials and its Cluster object. */
    private karmadaCluster(name: string, args: KarmadaMemberArgs, identity: MemberIdentity, onKarmada: pulumi.CustomResourceOptions): KarmadaCluster {
        const n = joinNames(args.clusterName);
        const labels = KARMADA_SYSTEM_LABELS;
        const { token, impersonatorToken } = identity;
        const credentials = new k8s.core.v1.Secret(
            `${name}-credentials`,
            {
                metadata: { name: n.credentialsSecret, namespace: args.karmadaClusterNamespace, labels },
                type: "Opaque",
                data: { caBundle: token.data.apply((d) => d["ca.crt"]), token: token.data.apply((d) => d["token"]) },
            },
            onKarmada,
        );
        const impersonatorCredentials = impersonatorToken
            ? new k8s.core.v1.Secret(
                  `${name}-impersonator-credentials`,
                  {
                      metadata: { name: n.impersonatorSecret, namespace: args.karmadaClusterNamespace, labels },
                      type: "Opaque",
                      data: { token: impersonatorToken.data.apply((d) => d["token"]) },
                  },
                  onKarmada,
              )
            : undefined;
        const spec: DeepInput<KarmadaClusterSpec> = {
            syncMode: "Push",
            apiEndpoint: args.apiEndpoint,
            secretRef: { namespace: args.karmadaClusterNamespace, name: n.credentialsSecret },
            // Without it, Karmada's unified-auth controller pushes no RBAC objects to the member.
            ...(impersonatorCredentials ? { impersonatorSecretRef: { namespace: args.karmadaClusterNamespace, name: n.impersonatorSecret } } : {}),
            ...(args.provider !== undefined ? { provider: args.provider } : {}),
            ...(args.region !== undefined ? { region: args.region } : {}),
            ...(args.zones !== undefined ? { zones: args.zones } : {}),
        };
        return new KarmadaCluster(
            `${name}-cluster`,
            // No labels is no `labels` key: the API server drops an empty map, and `labels: {}` then
            // shows as a change in every preview.
            { metadata: { name: args.clusterName, ...(args.labels && Object.keys(args.labels).length > 0 ? { labels: args.labels } : {}) }, spec },
            // The Cluster goes first on destroy: Karmada still needs the member's RBAC to clean up.
            {
                ...onKarmada,
                dependsOn: [credentials, ...(impersonatorCredentials ? [impersonatorCredentials] : []), ...this.access, ...(args.joinAfter ?? [])],
            },
        );
    }
}
