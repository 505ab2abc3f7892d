// The rights of whoever acts for Karmada on a member, as RBAC objects on that member: Karmada's
// ServiceAccount in Push mode (member.ts), the agent's in Pull mode (pull-member.ts). Both follow
// the same MemberAccessPlan (member-access.ts); only the subject and the role names differ.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KARMADA_SYSTEM_LABELS } from "../control-plane/control-plane";
import { MemberAccessPlan, namespaceObjectRules, PolicyRule } from "./member-access";

/** Holds back member rules until removed manifests are cleaned up (KarmadaMemberArgs.narrowAfter). */
export type AfterCleanup = <T>(rules: T) => pulumi.Input<T>;

/**
 * Options that hold a resource back until `gate` settles and fail it if the gate fails (a
 * `dependsOn` that is an output): a join's every object waits for its gate (JoinTarget.gate).
 */
export function gatedBy(gate: pulumi.Output<unknown> | undefined): pulumi.CustomResourceOptions {
    return gate === undefined ? {} : { dependsOn: gate.apply(() => [] as pulumi.Resource[]) };
}

/** An RBAC subject on the member. */
export interface RightsSubject {
    kind: string;
    name: pulumi.Input<string>;
    namespace: pulumi.Input<string>;
}

/** A ClusterRole of `rules` and its binding to `subject`, both named `roleName`; returns the binding. */
export function grantClusterRights(
    name: string,
    a: { roleName: string; rules: pulumi.Input<PolicyRule[]>; subject: RightsSubject },
    onMember: pulumi.CustomResourceOptions,
): k8s.rbac.v1.ClusterRoleBinding {
    const labels = KARMADA_SYSTEM_LABELS;
    const role = new k8s.rbac.v1.ClusterRole(`${name}-role`, { metadata: { name: a.roleName, labels }, rules: a.rules }, onMember);
    return new k8s.rbac.v1.ClusterRoleBinding(
        `${name}-binding`,
        {
            metadata: { name: a.roleName, labels },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role.metadata.name },
            subjects: [a.subject],
        },
        onMember,
    );
}

/**
 * Narrow rights in each namespace Kamino propagates into, named `<roleName>:<namespace>`. Kamino
 * makes the namespace on the member itself (Karmada's namespace sync adopts it: the template says
 * conflict-resolution overwrite), so that the Role can exist before Karmada writes there, and the
 * join depends on it, so that on destroy Karmada cleans up with these rights still in place.
 * A namespace removed from the config narrows in this order: Karmada's objects, then the member
 * namespace (its delete waits until the namespace and all in it are gone, and takes the Role with
 * it: Karmada's informers then see nothing left to delete), then the ClusterRole naming it.
 */
export function grantNamespaceRights(
    name: string,
    a: { roleName: string; access: MemberAccessPlan; subject: RightsSubject; afterCleanup: AfterCleanup },
    onMember: pulumi.CustomResourceOptions,
): pulumi.Resource[] {
    const labels = KARMADA_SYSTEM_LABELS;
    const subjects = [a.subject];
    return a.access.namespaces.flatMap((ns) => {
        const id = `${name}-access-${ns.namespace}`;
        const roleName = `${a.roleName}:${ns.namespace}`;
        const memberNs = ns.managed ? new k8s.core.v1.Namespace(`${id}-ns`, { metadata: { name: ns.namespace } }, onMember) : undefined;
        const inNs: pulumi.CustomResourceOptions = memberNs ? { ...onMember, deletedWith: memberNs } : onMember;
        const target = memberNs ? memberNs.metadata.name : pulumi.output(ns.namespace);
        const nsRole = new k8s.rbac.v1.Role(`${id}-role`, { metadata: { name: roleName, namespace: target, labels }, rules: a.afterCleanup(ns.rules) }, inNs);
        const nsBinding = new k8s.rbac.v1.RoleBinding(
            `${id}-binding`,
            {
                metadata: { name: roleName, namespace: target, labels },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: nsRole.metadata.name },
                subjects,
            },
            inNs,
        );
        if (!memberNs) return [nsBinding];
        const afterNs: pulumi.CustomResourceOptions = { ...onMember, dependsOn: [memberNs] };
        const objectRole = new k8s.rbac.v1.ClusterRole(
            `${id}-ns-role`,
            { metadata: { name: roleName, labels }, rules: namespaceObjectRules(ns.namespace) },
            afterNs,
        );
        const objectBinding = new k8s.rbac.v1.ClusterRoleBinding(
            `${id}-ns-binding`,
            {
                metadata: { name: roleName, labels },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: objectRole.metadata.name },
                subjects,
            },
            afterNs,
        );
        return [nsBinding, objectBinding];
    });
}
