// Least privilege for Karmada on members: the pure rule builder, the `kamino:karmada.memberAccess`
// key, and what KarmadaMember registers for each mode. The cluster suite member-access.test.ts asks
// real member API servers the same questions through SubjectAccessReviews.
import * as k8s from "@pulumi/kubernetes";
import { ConfigError, loadFleetConfig } from "../../components/config";
import { KarmadaMember } from "../../components/karmada/members/member";
import { FULL_RULES, memberAccessPlan, namespaceObjectRules, PolicyRule, WRITE_VERBS } from "../../components/karmada/members/member-access";
import { MockRun, providerName } from "../support/mocks";

const NARROW = { mode: "narrow" as const, extraRules: [] };
const scope = { irisClusterNamespaces: ["default", "iris"], secretNamespaces: ["iris", "keys"] };

/** Whether `rules` allow `verb` on `group/resource` (named `name`), as RBAC matches them. */
function allows(rules: PolicyRule[], verb: string, group: string, resource: string, name?: string): boolean {
    const has = (list: string[] | undefined, v: string) => !!list && (list.includes("*") || list.includes(v));
    return rules.some(
        (r) =>
            has(r.verbs, verb) &&
            has(r.apiGroups, group) &&
            has(r.resources, resource) &&
            (!r.resourceNames || (name !== undefined && r.resourceNames.includes(name))),
    );
}

describe("memberAccessPlan", () => {
    const plan = memberAccessPlan(NARROW, scope);
    const everyRule = [...plan.clusterRules, ...plan.namespaces.flatMap((n) => n.rules)];

    test("full is karmadactl's: everything, with an impersonator", () => {
        expect(memberAccessPlan({ mode: "full", extraRules: [] }, scope)).toEqual({
            mode: "full",
            clusterRules: FULL_RULES,
            namespaces: [],
            impersonator: true,
        });
    });

    test("narrow: write only the propagated kinds, only in the namespaces Kamino propagates into", () => {
        expect(plan.impersonator).toBe(false);
        expect(plan.namespaces.map((n) => [n.namespace, n.managed])).toEqual([
            ["default", false],
            ["iris", true],
            ["keys", true],
        ]);
        const iris = plan.namespaces.find((n) => n.namespace === "iris")!.rules;
        for (const verb of WRITE_VERBS) {
            expect(allows(iris, verb, "intersystems.com", "irisclusters")).toBe(true);
            expect(allows(iris, verb, "", "secrets")).toBe(true);
            expect(allows(iris, verb, "", "configmaps")).toBe(true);
        }
        // A namespace of `kamino:configMaps` only gets ConfigMaps.
        const cm = memberAccessPlan(NARROW, { ...scope, configMapNamespaces: ["cpf"] }).namespaces.find((n) => n.namespace === "cpf")!.rules;
        expect(cm).toEqual([{ apiGroups: [""], resources: ["configmaps"], verbs: WRITE_VERBS }]);
        // A namespace with synced Secrets only gets Secrets.
        const keys = plan.namespaces.find((n) => n.namespace === "keys")!.rules;
        expect(allows(keys, "create", "", "secrets")).toBe(true);
        expect(allows(keys, "create", "intersystems.com", "irisclusters")).toBe(false);
        expect(allows(keys, "create", "", "configmaps")).toBe(false);
        // Karmada only ever updates whole objects.
        expect(everyRule.some((r) => r.verbs.includes("patch") || r.verbs.includes("*"))).toBe(false);
    });

    test("narrow: cluster-wide only reads (what Karmada's informers list) and creating namespaces", () => {
        for (const [group, resource] of [
            ["", "nodes"],
            ["", "pods"],
            ["", "secrets"],
            ["", "configmaps"],
            ["", "namespaces"],
            ["intersystems.com", "irisclusters"],
        ]) {
            expect(allows(plan.clusterRules, "list", group, resource)).toBe(true);
            expect(allows(plan.clusterRules, "watch", group, resource)).toBe(true);
        }
        const clusterWrites = plan.clusterRules.filter((r) => r.resources && r.verbs.some((v) => !["get", "list", "watch"].includes(v)));
        expect(clusterWrites).toEqual([{ apiGroups: [""], resources: ["namespaces"], verbs: ["create"] }]);
        expect(plan.clusterRules.find((r) => r.nonResourceURLs)?.nonResourceURLs).toEqual(expect.arrayContaining(["/readyz", "/healthz", "/version", "/apis"]));
        expect(plan.clusterRules.some((r) => r.nonResourceURLs?.includes("*"))).toBe(false);
    });

    test("narrow: nothing on RBAC, impersonation, tokens or any other kind", () => {
        for (const [verb, group, resource] of [
            ["create", "rbac.authorization.k8s.io", "clusterrolebindings"],
            ["bind", "rbac.authorization.k8s.io", "clusterroles"],
            ["escalate", "rbac.authorization.k8s.io", "roles"],
            ["impersonate", "", "users"],
            ["impersonate", "", "serviceaccounts"],
            ["create", "", "serviceaccounts/token"],
            ["create", "", "pods"],
            ["create", "apps", "deployments"],
        ]) {
            expect([verb, group, resource, allows(everyRule, verb, group, resource)]).toEqual([verb, group, resource, false]);
        }
        // Cluster-wide, Secrets are only listed and watched (Karmada's informers), namespaces only created.
        expect(allows(plan.clusterRules, "get", "", "secrets")).toBe(false);
        expect(allows(plan.clusterRules, "delete", "", "namespaces")).toBe(false);
    });

    test("a namespace object is updated and deleted by its name only", () => {
        expect(allows(namespaceObjectRules("iris"), "delete", "", "namespaces", "iris")).toBe(true);
        expect(allows(namespaceObjectRules("iris"), "delete", "", "namespaces", "kube-system")).toBe(false);
    });

    test("the rules follow the config: a new namespace widens, a removed one narrows", () => {
        const wider = memberAccessPlan(NARROW, { ...scope, secretNamespaces: [...scope.secretNamespaces, "extra"] });
        expect(wider.namespaces.map((n) => n.namespace)).toEqual(["default", "extra", "iris", "keys"]);
        const narrower = memberAccessPlan(NARROW, { irisClusterNamespaces: ["default"], secretNamespaces: [] });
        expect(narrower.namespaces.map((n) => n.namespace)).toEqual(["default"]);
        // The cluster-wide rules do not move with namespaces: changing them would be an update that
        // lands before Karmada has cleaned up.
        expect(wider.clusterRules).toEqual(plan.clusterRules);
        expect(narrower.clusterRules).toEqual(plan.clusterRules);
    });

    test("extra rules are added to the member ClusterRole", () => {
        const extra = { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "watch", "create", "update", "delete"] };
        expect(memberAccessPlan({ mode: "narrow", extraRules: [extra] }, scope).clusterRules).toContainEqual(extra);
    });
});

describe("kamino:karmada.memberAccess", () => {
    const base = {
        clusters: [
            { name: "h", provider: "kind", karmadaHost: true },
            { name: "m", provider: "kind" },
        ],
    };
    const raw = (karmada: unknown) => ({ "kamino:clusters": JSON.stringify(base.clusters), "kamino:karmada": JSON.stringify(karmada) });
    const load = (karmada: unknown) => loadFleetConfig(raw(karmada), { pathExists: () => true });
    const problems = (karmada: unknown): string[] => {
        try {
            load(karmada);
        } catch (e) {
            expect(e).toBeInstanceOf(ConfigError);
            return (e as ConfigError).problems;
        }
        return [];
    };

    test("narrow by default; a mode alone or an object", () => {
        expect(load({}).karmada.memberAccess).toEqual({ mode: "narrow", extraRules: [] });
        expect(load({ memberAccess: "full" }).karmada.memberAccess).toEqual({ mode: "full", extraRules: [] });
        const extra = { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get"] };
        expect(load({ memberAccess: { extraRules: [extra] } }).karmada.memberAccess).toEqual({ mode: "narrow", extraRules: [extra] });
    });

    test("errors name the key, the value and the fix", () => {
        expect(problems({ memberAccess: "admin" }).join("\n")).toMatch(/kamino:karmada\.memberAccess.*"admin".*fix: /);
        expect(problems({ memberAccess: { mode: "full", extraRules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] } }).join("\n")).toMatch(
            /kamino:karmada\.memberAccess.*full already grants everything; fix: drop extraRules or set mode: narrow/,
        );
        expect(problems({ memberAccess: { extraRules: [{ apiGroups: [""], resources: ["pods"], verbs: [] }] } }).join("\n")).toMatch(
            /verbs.*at least one verb; fix: /,
        );
    });
});

describe("KarmadaMember with narrow access", () => {
    let run: MockRun;
    beforeEach(async () => {
        run = new MockRun(false);
        await run.install();
    });
    const provider = (name: string) => new k8s.Provider(name, { kubeconfig: "unused", clusterIdentifier: name });
    const member = (mode: "narrow" | "full") =>
        new KarmadaMember("m", {
            clusterName: "dr",
            memberProvider: provider("member"),
            karmada: { provider: provider("karmada") },
            karmadaClusterNamespace: "karmada-cluster",
            apiEndpoint: "https://10.0.0.1:6443",
            access: memberAccessPlan({ mode, extraRules: [] }, { irisClusterNamespaces: ["default"], secretNamespaces: ["iris"] }),
        });

    test("no impersonator; a Role per namespace, the namespace it makes, and a ClusterRole naming it; the Cluster waits for them", async () => {
        const m = member("narrow");
        await run.settle();
        const onMember = run.resources.filter((r) => providerName(r) === "member").map((r) => `${r.type.replace(/^kubernetes:/, "")} ${r.name}`);
        expect(onMember.sort()).toEqual(
            [
                "core/v1:Namespace m-member-ns",
                "core/v1:ServiceAccount m-sa",
                "core/v1:Secret m-token",
                "rbac.authorization.k8s.io/v1:ClusterRole m-role",
                "rbac.authorization.k8s.io/v1:ClusterRoleBinding m-binding",
                "rbac.authorization.k8s.io/v1:Role m-access-default-role",
                "rbac.authorization.k8s.io/v1:RoleBinding m-access-default-binding",
                "core/v1:Namespace m-access-iris-ns",
                "rbac.authorization.k8s.io/v1:Role m-access-iris-role",
                "rbac.authorization.k8s.io/v1:RoleBinding m-access-iris-binding",
                "rbac.authorization.k8s.io/v1:ClusterRole m-access-iris-ns-role",
                "rbac.authorization.k8s.io/v1:ClusterRoleBinding m-access-iris-ns-binding",
            ].sort(),
        );
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:Role", "m-access-iris-role").inputs.metadata).toMatchObject({
            name: "karmada-controller-manager:karmada-dr:iris",
            namespace: "iris",
        });
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "m-access-iris-ns-role").inputs.rules).toEqual(namespaceObjectRules("iris"));
        expect(run.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", "m-cluster").inputs.spec.impersonatorSecretRef).toBeUndefined();
        expect(run.resources.filter((r) => providerName(r) === "karmada").map((r) => r.name)).toEqual(["m-credentials", "m-cluster"]);
        expect(m.access).toHaveLength(4);
    });

    test("full: karmadactl's objects, as before", async () => {
        member("full");
        await run.settle();
        expect(run.resources.filter((r) => providerName(r) === "member")).toHaveLength(7);
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "m-role").inputs.rules).toEqual(FULL_RULES);
        expect(run.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", "m-cluster").inputs.spec.impersonatorSecretRef).toEqual({
            namespace: "karmada-cluster",
            name: "dr-impersonator",
        });
    });
});
