// The NetworkPolicy follower (config/followers/network-policies.ts): `kamino:irisClusters[].networkPolicy`
// isolates an IrisCluster's pods on whichever member it runs on. Its config and errors, the policy,
// how it reaches the members (created in Karmada, named by an annotation on the template that the
// interpreter's GetDependencies returns, so that Karmada sends it where the IrisCluster goes), the
// members' rights, a mirror's DR member, and what `npm run status` shows of it.
import * as pulumi from "@pulumi/pulumi";
import { ConfigError, loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { irisNetworkPolicy, NETWORK_POLICY_ANNOTATION } from "../../components/config/followers/network-policies";
import { memberIrisConfig } from "../../components/federation/iris-mirror";
import { DEPENDENCIES_LUA } from "../../components/karmada/control-plane/interpreter";
import { memberAccessFor } from "../../components/karmada/members/join";
import { irisClusterView, MemberView } from "../../components/live/fleet-status";
import { callLua } from "../support/lua";
import { FIXTURE_CHART, MockRun, plain, providerName, stackConfig } from "../support/mocks";
import { runFleet, runStack } from "../support/stack-under-mocks";

const IMAGE = "containers.intersystems.com/intersystems/iris:2025.1";
const NP = "kubernetes:networking.k8s.io/v1:NetworkPolicy";
const iris = (entry: Record<string, unknown>) => ({ name: "iris", namespace: "iris", image: IMAGE, placement: { clusterNames: ["ikoclone"] }, ...entry });
const dev = (irisClusters: unknown[], extra: Record<string, unknown> = {}) =>
    stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART }, "kamino:irisClusters": irisClusters, ...extra });
const ISOLATED = iris({ networkPolicy: { ingressFrom: ["10.20.0.0/16", "2001:db8::/64"], ingressFromNamespaces: ["apps"] } });
const problemsOf = (raw: Record<string, string>, files: Record<string, string> = {}): string => {
    try {
        loadFleetConfig(raw, { pathExists: () => true, readFile: (p) => files[p] ?? "" });
    } catch (e) {
        if (e instanceof ConfigError) return e.message;
        throw e;
    }
    return "";
};

describe("config", () => {
    test("off unless set; both lists default to empty", () => {
        const cfg = loadFleetConfig(dev([iris({}), iris({ name: "closed", networkPolicy: {} })]), { pathExists: () => true });
        expect(cfg.irisClusters[0].networkPolicy).toBeUndefined();
        expect(cfg.irisClusters[1].networkPolicy).toEqual({ ingressFrom: [], ingressFromNamespaces: [] });
    });

    test.each([
        [
            "a CIDR with its prefix out of range",
            { ingressFrom: ["10.0.0.0/99"] },
            /kamino:irisClusters\[0\]\.networkPolicy\.ingressFrom\[0\] = "10\.0\.0\.0\/99": must be a CIDR; fix: write it as address\/prefix/,
        ],
        ["an address without a prefix", { ingressFrom: ["10.0.0.1"] }, /networkPolicy\.ingressFrom\[0\] = "10\.0\.0\.1": must be a CIDR/],
        [
            "a namespace that is no DNS label",
            { ingressFromNamespaces: ["Apps"] },
            /networkPolicy\.ingressFromNamespaces\[0\] = "Apps": namespace must be a DNS-1123 label/,
        ],
        [
            "a field it does not know",
            { egressTo: ["10.0.0.0/8"] },
            /kamino:irisClusters\[0\]\.networkPolicy\.egressTo = \["10\.0\.0\.0\/8"\]: unknown field; fix: remove it/,
        ],
    ])("%s is refused, naming the key and the fix", (_, networkPolicy, expected) => {
        expect(problemsOf(dev([iris({ networkPolicy })]))).toMatch(expected);
    });

    test("refused on an IrisCluster with a mirror, whose members must reach each other across clusters", () => {
        const raw = stackConfig("Pulumi.dr.yaml", {
            "kamino:iko": { chartPath: FIXTURE_CHART },
            "kamino:irisClusters": [{ name: "iris", namespace: "iris", image: IMAGE, mirror: { primary: "ikoclone", drAsync: ["ikodr"] }, networkPolicy: {} }],
        });
        expect(problemsOf(raw)).toMatch(
            /kamino:irisClusters\[0\]\.networkPolicy = \{.*\}: is set, and the IrisCluster has a mirror.*; fix: remove networkPolicy/,
        );
    });

    test("a manifest that declares the same NetworkPolicy is refused, naming both places", () => {
        const file = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: iris-isolation, namespace: iris }\nspec: { podSelector: {} }\n";
        expect(problemsOf(dev([ISOLATED], { "kamino:manifests": [{ path: "np.yaml" }] }), { "np.yaml": file })).toMatch(
            /kamino:manifests\[0\]\.path = "np\.yaml": document 0: NetworkPolicy 'iris\/iris-isolation' is kamino:irisClusters\[0\]\.networkPolicy already; fix: keep it in one place/,
        );
    });
});

test("the policy: the IrisCluster's pods take connections from its own pods, IKO's namespace and the listed sources only", () => {
    const cfg = loadFleetConfig(dev([ISOLATED]), { pathExists: () => true });
    expect(irisNetworkPolicy(cfg.irisClusters[0], "iko")).toEqual({
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        metadata: { name: "iris-isolation", namespace: "iris" },
        spec: {
            podSelector: { matchLabels: { "intersystems.com/name": "iris" } },
            policyTypes: ["Ingress"],
            ingress: [
                {
                    from: [
                        { podSelector: { matchLabels: { "intersystems.com/name": "iris" } } },
                        { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "iko" } } },
                        { ipBlock: { cidr: "10.20.0.0/16" } },
                        { ipBlock: { cidr: "2001:db8::/64" } },
                        { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "apps" } } },
                    ],
                },
            ],
        },
    });
});

describe("a stack with one isolated IrisCluster and one open", () => {
    let run: MockRun;
    beforeAll(async () => {
        ({ run } = await runStack(dev([ISOLATED, iris({ name: "open" })])));
    });
    const template = (name: string) => run.get("kubernetes:intersystems.com/v1alpha1:IrisCluster", `iris-${name}-template`).inputs;

    test("its NetworkPolicy is in Karmada, labelled as the follower's, with no policy of its own", () => {
        const np = run.get(NP, "network-policies-iris-iris-isolation");
        expect(providerName(np)).toBe("karmada-api");
        expect(np.inputs.metadata.labels).toEqual({ "kamino.io/follower": "network-policies" });
        expect(run.ofType(NP)).toHaveLength(1);
        const policies = run.ofType("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy");
        expect(policies.flatMap((p) => plain(p.inputs.spec.resourceSelectors) as Array<{ kind: string }>).filter((s) => s.kind === "NetworkPolicy")).toEqual(
            [],
        );
    });

    test("the template names it by an annotation, and Karmada's GetDependencies returns it; the open one names none", () => {
        expect(template("iris").metadata.annotations).toEqual({ [NETWORK_POLICY_ANNOTATION]: "iris-isolation" });
        expect(template("open").metadata.annotations).toBeUndefined();
        const withDeps = (name: string) =>
            callLua(DEPENDENCIES_LUA, "GetDependencies", plain({ apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster", ...template(name) }));
        expect(withDeps("iris")).toEqual([{ apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespace: "iris", name: "iris-isolation" }]);
        expect(withDeps("open")).toEqual({});
        // Karmada sends what GetDependencies returns only with propagateDeps, which the policy sets.
        expect(run.get("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", "iris-iris-policy").inputs.spec.propagateDeps).toBe(true);
    });

    test("Karmada may write NetworkPolicies in the IrisCluster's namespace on each member, and watch them", () => {
        const role = run.get("kubernetes:rbac.authorization.k8s.io/v1:Role", "ikoclone-member-access-iris-role");
        expect(plain(role.inputs.rules)).toContainEqual({
            apiGroups: ["networking.k8s.io"],
            resources: ["networkpolicies"],
            verbs: ["get", "create", "update", "delete"],
        });
        const clusterRole = run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "ikoclone-member-role");
        expect(plain(clusterRole.inputs.rules)).toContainEqual({ apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["list", "watch"] });
    });
});

test("without a networkPolicy, members get no right on NetworkPolicies", () => {
    const access = memberAccessFor(resolveFleetPlan(loadFleetConfig(dev([iris({})]), { pathExists: () => true })));
    expect(JSON.stringify(access)).not.toContain("networkpolicies");
});

test("the NetworkPolicy exists in Karmada before the IrisCluster that names it, so the first schedule sends it", async () => {
    const seen: pulumi.ResourceTransformationArgs[] = [];
    const { fleet } = await runFleet(dev([ISOLATED]), { transformations: [(a) => (seen.push(a), undefined)] });
    const deps = [seen.find((s) => s.name === "iris-iris")!.opts.dependsOn].flat();
    expect(deps).toContain(fleet.followers["network-policies"]);
});

test("a mirror's DR member would not get it (drMembers: dropped), the pair would", () => {
    const entry = loadFleetConfig(dev([ISOLATED]), { pathExists: () => true }).irisClusters[0];
    const member = (role: "pair" | "drasync") => ({
        member: "m",
        role,
        irisClusterName: role === "pair" ? "iris" : "iris-m",
        serviceName: "x",
        declared: true,
    });
    expect(memberIrisConfig(entry, member("drasync"), undefined).networkPolicy).toBeUndefined();
    expect(memberIrisConfig(entry, member("pair"), undefined).networkPolicy).toEqual(entry.networkPolicy);
});

test("npm run status lists it among what Karmada sent with the IrisCluster, present or not on each member", () => {
    const members: MemberView[] = [{ name: "ikoclone", syncMode: "Push", state: "Ready", since: null, reason: null, taints: [], kubernetesVersion: "v1.33.0" }];
    const binding = {
        metadata: { name: "iris-iriscluster" },
        spec: { clusters: [{ name: "ikoclone" }] },
        status: { aggregatedStatus: [{ clusterName: "ikoclone", applied: true, status: { phase: "Running" } }] },
    };
    const npBinding = (applied: boolean) => ({
        spec: { resource: { kind: "NetworkPolicy", name: "iris-isolation" }, requiredBy: [{ name: "iris-iriscluster", namespace: "iris" }] },
        status: { aggregatedStatus: [{ clusterName: "ikoclone", applied }] },
    });
    for (const applied of [true, false])
        expect(irisClusterView("iris/iris", ["ikoclone"], binding, [npBinding(applied)], members).members[0].dependencies).toEqual([
            { kind: "NetworkPolicy", name: "iris-isolation", present: applied },
        ]);
});
