// What Karmada's identity may do on a Push member (`kamino:karmada.memberAccess`), as RBAC rules.
// What it writes comes from the fleet plan: the IrisClusters, and what each follower says it needs
// (config/followers, read by join.ts memberAccessFor).
// Pure: no resources; KarmadaMember turns the plan into Roles and bindings. Every rule below is
// one Karmada v1.18 needs on a Push member (paths under karmada-io/karmada@v1.18.2, docs/security.md):
// a rule missing shows as `forbidden` in karmada-controller-manager's log, a rule more is a right
// nobody uses.
import type { PropagatedObject } from "../../config";

/** One RBAC PolicyRule, as `rbac.authorization.k8s.io/v1` writes it. */
export interface PolicyRule {
    apiGroups?: string[];
    resources?: string[];
    verbs: string[];
    resourceNames?: string[];
    nonResourceURLs?: string[];
}

/** Kinds Karmada writes on members for Kamino; `group` "" is the core group. */
export interface PropagatedKind {
    group: string;
    resource: string;
}

export const IRIS_CLUSTERS: PropagatedKind = { group: "intersystems.com", resource: "irisclusters" };
export const SECRETS: PropagatedKind = { group: "", resource: "secrets" };
export const CONFIG_MAPS: PropagatedKind = { group: "", resource: "configmaps" };

/**
 * The verbs of the execution controller's object watcher on a propagated object: get when its
 * informer has not synced yet (pkg/util/helper/cache.go getObjectFromSingleCluster), create, update
 * (a full PUT, never a patch) and delete (pkg/util/objectwatcher/objectwatcher.go Create/Update/Delete).
 */
export const WRITE_VERBS = ["get", "create", "update", "delete"];
/** An informer's verbs. */
export const READ_VERBS = ["list", "watch"];

/** What `karmadactl join` grants: everything (pkg/util/clusterrole.go). */
export const FULL_RULES: PolicyRule[] = [
    { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
    { nonResourceURLs: ["*"], verbs: ["get"] },
];

/**
 * Non-resource paths the cluster-status controller reads: /readyz then /healthz (health), /version,
 * and discovery for `status.apiEnablements` (pkg/controllers/status/cluster_status_controller.go
 * getClusterHealthStatus, getKubernetesVersion, getAPIEnablements). Kubernetes' default
 * system:public-info-viewer and system:discovery bindings already allow them to every
 * authenticated user; they are granted here too so that a member whose defaults were tightened
 * still reports Ready.
 */
export const STATUS_PATHS = ["/readyz", "/healthz", "/livez", "/version", "/api", "/api/*", "/apis", "/apis/*"];

/**
 * The write rules on cluster-scoped objects (of manifests): get/update/delete by name, and create
 * of the kind (RBAC cannot limit create by name), as for namespaces.
 */
function clusterScopedWriteRules(objects: PropagatedObject[]): PolicyRule[] {
    const byKind = new Map<string, { kind: PropagatedKind; names: string[] }>();
    for (const o of objects) {
        const key = `${o.group}/${o.resource}`;
        const entry = byKind.get(key) ?? { kind: { group: o.group, resource: o.resource }, names: [] };
        if (o.name === undefined) throw new Error(`a cluster-scoped ${key} Karmada writes on members needs its name`);
        if (!entry.names.includes(o.name)) entry.names.push(o.name);
        byKind.set(key, entry);
    }
    return [...byKind.keys()].sort().flatMap((key) => {
        const { kind, names } = byKind.get(key)!;
        return [
            { apiGroups: [kind.group], resources: [kind.resource], verbs: ["create"] },
            { apiGroups: [kind.group], resources: [kind.resource], resourceNames: [...names].sort(), verbs: WRITE_VERBS.filter((v) => v !== "create") },
        ];
    });
}

/** The rules Karmada's identity holds in one namespace Kamino propagates into. */
export interface NamespaceAccess {
    /** The namespace. */
    namespace: string;
    /**
     * Whether Kamino makes the namespace (anything but `default`): Karmada's namespace sync then
     * creates, updates and finally deletes it on every member, so it may update and delete it by name.
     */
    managed: boolean;
    /** Write rules for the kinds propagated into it (a Role in the namespace). */
    rules: PolicyRule[];
}

/** Everything Karmada's identity may do on one member. */
export interface MemberAccessPlan {
    /** `narrow` (this plan) or `full` (karmadactl's rights; `clusterRules` is FULL_RULES, no namespaces). */
    mode: "narrow" | "full";
    /** Rules of the member's ClusterRole `karmada-controller-manager:karmada-<cluster>`. */
    clusterRules: PolicyRule[];
    /** Per namespace: a Role and RoleBinding, and for a managed one a ClusterRole naming it. */
    namespaces: NamespaceAccess[];
    /**
     * Whether to join with an impersonator (`Cluster.spec.impersonatorSecretRef`). Its only users are
     * the cluster proxy (`clusters/proxy`) and karmada-search's proxy, which Kamino does not use; with
     * it, the unified-auth controller writes a ClusterRole and ClusterRoleBinding to every member
     * (pkg/controllers/unifiedauth/unified_auth_controller.go), which narrow rules refuse.
     */
    impersonator: boolean;
}

/** `kamino:karmada.memberAccess`, as the config schema normalizes it. */
export interface MemberAccessConfig {
    /** `narrow` (default) or `full`. */
    mode: "narrow" | "full";
    /** Rules added to the member ClusterRole in narrow mode, for kinds propagated by the user's own policies. */
    extraRules: PolicyRule[];
}

/** What Kamino propagates, from the stack config. */
export interface PropagationScope {
    /** Namespaces of the federated IrisClusters. */
    irisClusterNamespaces: string[];
    /** Namespaces of the synced Secrets (`kamino:secrets`). */
    secretNamespaces?: string[];
    /** Namespaces of ConfigMaps (`kamino:configMaps`, a mirror's merge files). */
    configMapNamespaces?: string[];
    /**
     * Every other object Karmada writes there for Kamino (what the followers say they need: the
     * objects of `kamino:manifests`, a mirror's Services, a follower's own objects), each by its
     * kind's group and resource, its namespace (none: cluster-scoped) and, cluster-scoped, its name.
     */
    objects?: PropagatedObject[];
}

export type { PropagatedObject };

function rule(kinds: PropagatedKind[], verbs: string[]): PolicyRule[] {
    const groups = [...new Set(kinds.map((k) => k.group))].sort();
    return groups.map((g) => ({
        apiGroups: [g],
        resources: kinds
            .filter((k) => k.group === g)
            .map((k) => k.resource)
            .sort(),
        verbs,
    }));
}

/**
 * The rules of Karmada's identity on each member. Narrow:
 * - cluster-wide `list`/`watch` of nodes and pods (the cluster-status controller's resource
 *   summary: typed informers, cluster_status_controller.go buildInformerForCluster, on by default
 *   with --enable-cluster-resource-modeling) and of every kind Kamino propagates: the work-status
 *   controller and the object watcher read members through one cluster-wide dynamic informer per
 *   kind (work_status_controller.go registerInformersAndStart; pkg/util/fedinformer/genericmanager,
 *   a factory with no namespace), which a namespaced grant cannot satisfy. For Secrets that is a
 *   read of every Secret on the member: the one broad right Karmada forces;
 * - `create` namespaces (namespace sync creates every Karmada namespace on every member,
 *   pkg/controllers/namespace/namespace_sync_controller.go; RBAC cannot limit create by name);
 * - per namespace Kamino propagates into: get/create/update/delete of the kinds it puts there
 *   (IrisCluster, and the ConfigMaps and Secrets that follow it as dependencies; Secrets of
 *   `kamino:secrets`; ConfigMaps of `kamino:configMaps`; the kinds of the other objects the
 *   followers put in it), and get/update/delete of the namespace itself by name;
 * - for cluster-scoped objects (of `kamino:manifests`): create of their kinds, get/update/delete
 *   of them by name, and list/watch of their kinds (the informer, as above);
 * - nothing on RBAC, no impersonation, no other namespace.
 */
export function memberAccessPlan(config: MemberAccessConfig, scope: PropagationScope): MemberAccessPlan {
    if (config.mode === "full") return { mode: "full", clusterRules: FULL_RULES, namespaces: [], impersonator: true };
    const byNamespace = new Map<string, PropagatedKind[]>();
    const add = (ns: string, ...kinds: PropagatedKind[]) => {
        const have = byNamespace.get(ns) ?? [];
        for (const k of kinds) if (!have.includes(k)) have.push(k);
        byNamespace.set(ns, have);
    };
    // An IrisCluster's ConfigMaps and Secrets follow it into its namespace (PropagateDeps and the
    // interpreter's dependencies), whatever the stack's own Secrets are.
    for (const ns of scope.irisClusterNamespaces) add(ns, IRIS_CLUSTERS, CONFIG_MAPS, SECRETS);
    for (const ns of scope.secretNamespaces ?? []) add(ns, SECRETS);
    for (const ns of scope.configMapNamespaces ?? []) add(ns, CONFIG_MAPS);
    // One PropagatedKind object per kind, so that `add` (which compares objects) keeps kinds unique.
    const otherKinds = new Map<string, PropagatedKind>();
    const kindOf = (o: PropagatedObject) => {
        const key = `${o.group}/${o.resource}`;
        const known = [IRIS_CLUSTERS, CONFIG_MAPS, SECRETS].find((k) => `${k.group}/${k.resource}` === key);
        if (!otherKinds.has(key)) otherKinds.set(key, known ?? { group: o.group, resource: o.resource });
        return otherKinds.get(key)!;
    };
    const objects = scope.objects ?? [];
    for (const o of objects) if (o.namespace !== undefined) add(o.namespace, kindOf(o));
    const clusterScoped = objects.filter((o) => o.namespace === undefined);
    clusterScoped.forEach(kindOf);
    const namespaces = [...byNamespace.keys()].sort().map((namespace) => ({
        namespace,
        managed: namespace !== "default",
        rules: rule(byNamespace.get(namespace)!, WRITE_VERBS),
    }));
    const clusterRules: PolicyRule[] = [
        { nonResourceURLs: STATUS_PATHS, verbs: ["get"] },
        { apiGroups: [""], resources: ["nodes", "pods"], verbs: READ_VERBS },
        // Read always, even before a kind is propagated: an informer Karmada started keeps watching
        // after the last object of its kind is gone, and a watch that turns forbidden logs forever.
        ...rule([IRIS_CLUSTERS, CONFIG_MAPS, SECRETS, { group: "", resource: "namespaces" }], READ_VERBS),
        { apiGroups: [""], resources: ["namespaces"], verbs: ["create"] },
        // The kinds the followers bring, beyond those above: read cluster-wide (the informer), and
        // written by name where cluster-scoped. They go when the last object of the kind goes.
        ...rule(
            [...otherKinds.values()].filter((k) => ![IRIS_CLUSTERS, CONFIG_MAPS, SECRETS].includes(k)),
            READ_VERBS,
        ),
        ...clusterScopedWriteRules(clusterScoped),
        ...config.extraRules,
    ];
    return { mode: "narrow", clusterRules, namespaces, impersonator: false };
}

/** The rules on one Kamino namespace object itself, by name (a ClusterRole: namespaces are cluster-scoped). */
export function namespaceObjectRules(namespace: string): PolicyRule[] {
    return [{ apiGroups: [""], resources: ["namespaces"], resourceNames: [namespace], verbs: ["get", "update", "delete"] }];
}
