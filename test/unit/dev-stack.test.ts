// The dev stack, loaded from the repo's own Pulumi.dev.yaml, under mocks: which resources
// exist, on which provider, with which key inputs.
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { kaminoStack } from "../../components/stack";
import { memberAccessPlan } from "../../components/karmada/members/member-access";
import {
    FAKE_CA,
    FAKE_TOKEN,
    fakeCrdReader,
    fakeRunningWaiter,
    FIXTURE_CHART,
    isSecretInput,
    MockRun,
    plain,
    providerName,
    stackConfig,
    valueOf,
} from "../support/mocks";
import { healthyMachine } from "../support/standins";

const run = new MockRun(false);
const crdReads: string[] = [];
const runningWaits: string[] = [];
let stack: ReturnType<typeof kaminoStack>;

beforeAll(async () => {
    // The dev stack as committed; only the IKO chart (InterSystems', not public) is the test stand-in.
    const config = stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });
    await run.install(config);
    stack = kaminoStack(config, { crdReader: fakeCrdReader(crdReads), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter(runningWaits) });
    await run.settle();
});

test("up waits for federated-iris to run on the members its placement selects", () => {
    expect(runningWaits).toEqual(["default/federated-iris: ikoclone"]);
});

const CMD = "command:local:Command";
const RELEASE = "kubernetes:helm.sh/v3:Release";

describe("kind clusters", () => {
    test.each(["ikofett", "ikoclone"])("%s is created from kind config on stdin, deleted on destroy", (name) => {
        const create = run.get(CMD, `${name}-kind`);
        // The script's behaviour (create, adopt, refuse) is run under a shell in kind-scripts.test.ts.
        expect(create.inputs.create).toContain('exec kind create cluster --name "$name" --config -');
        expect(create.inputs.create).toContain('name="$KIND_CLUSTER_NAME"');
        expect(create.inputs.delete).toBe('kind delete cluster --name "$KIND_CLUSTER_NAME"');
        expect(create.inputs.environment).toEqual({ KIND_CLUSTER_NAME: name });
        const kindConfig = YAML.parse(create.inputs.stdin);
        expect(kindConfig.kind).toBe("Cluster");
        expect(kindConfig.networking.disableDefaultCNI).toBe(true);
        expect(kindConfig.nodes.map((n: { role: string }) => n.role)).toEqual(["control-plane", "worker"]);
        // A changed kind config must replace the cluster, not re-run create on it.
        expect(create.inputs.triggers).toEqual([create.inputs.stdin]);
    });

    test("only the Karmada host maps the Karmada API port to the host", () => {
        const host = YAML.parse(run.get(CMD, "ikofett-kind").inputs.stdin);
        const member = YAML.parse(run.get(CMD, "ikoclone-kind").inputs.stdin);
        expect(host.nodes[0].extraPortMappings).toEqual([{ containerPort: 32443, hostPort: 5443, listenAddress: "127.0.0.1", protocol: "TCP" }]);
        expect(member.nodes[0].extraPortMappings).toBeUndefined();
    });

    test("pod and service subnets do not overlap between clusters", () => {
        const nets = ["ikofett", "ikoclone"].map((n) => YAML.parse(run.get(CMD, `${n}-kind`).inputs.stdin).networking);
        const all = nets.flatMap((n) => [n.podSubnet, n.serviceSubnet]);
        expect(new Set(all).size).toBe(4);
    });

    test("kubeconfigs are read by kind, never logged, and re-read only when the cluster is replaced", () => {
        const kc = run.get(CMD, "ikoclone-kubeconfig");
        const internal = run.get(CMD, "ikoclone-internal-kubeconfig");
        expect(kc.inputs.create).toBe('kind get kubeconfig --name "$KIND_CLUSTER_NAME"');
        expect(internal.inputs.create).toBe('kind get kubeconfig --name "$KIND_CLUSTER_NAME" --internal');
        for (const r of [kc, internal]) {
            expect(r.inputs.logging).toBe("none");
            expect(r.inputs.triggers).toEqual(["ikoclone-kind-id"]);
        }
    });

    test("each cluster has a provider with a static cluster identifier", () => {
        const providers = run.ofType("pulumi:providers:kubernetes");
        const ids = Object.fromEntries(providers.map((p) => [p.name, p.inputs.clusterIdentifier]));
        expect(ids).toEqual({ "ikofett-k8s": "kind-ikofett", "ikoclone-k8s": "kind-ikoclone", "karmada-api": "karmada-ikofett" });
    });
});

describe("add-ons", () => {
    test.each(["ikofett", "ikoclone"])("Cilium 1.18.0 from helm.cilium.io on %s, with kind values", (name) => {
        const cilium = run.get(RELEASE, `${name}-cilium-cilium`);
        expect(providerName(cilium)).toBe(`${name}-k8s`);
        expect(cilium.inputs).toMatchObject({
            name: "cilium",
            chart: "cilium",
            version: "1.18.0",
            namespace: "kube-system",
            repositoryOpts: { repo: "https://helm.cilium.io" },
            values: { ipam: { mode: "kubernetes" }, operator: { replicas: 1 } },
        });
    });

    test.each(["ikofett", "ikoclone"])("IKO from the local chart on %s, in its own namespace", (name) => {
        const iko = run.get(RELEASE, `${name}-iko-iko`);
        expect(providerName(iko)).toBe(`${name}-k8s`);
        expect(iko.inputs).toMatchObject({ name: "iko", chart: FIXTURE_CHART, namespace: "iko" });
        // The chart's default pull secret does not exist; Kamino names none without credentials.
        expect(iko.inputs.values.imagePullSecrets).toEqual([]);
        expect(iko.inputs.description).toMatch(/^kamino chart-sha256 [0-9a-f]{16}$/);
        expect(run.get("kubernetes:core/v1:Namespace", `${name}-iko-ns`).inputs.metadata.name).toBe("iko");
    });

    test("Karmada v1.18.1 from its chart repo on the host only, with the kubectl image override, NodePort and the images the tests run", () => {
        const releases = run.ofType(RELEASE).filter((r) => r.inputs.chart === "karmada");
        expect(releases).toHaveLength(1);
        const karmada = releases[0];
        expect(providerName(karmada)).toBe("ikofett-k8s");
        expect(karmada.inputs).toMatchObject({
            name: "karmada",
            version: "v1.18.1",
            namespace: "karmada-system",
            createNamespace: true,
            repositoryOpts: { repo: "https://raw.githubusercontent.com/karmada-io/karmada/master/charts" },
            timeout: 900,
            values: {
                installMode: "host",
                kubectl: { image: { repository: "bitnamisecure/kubectl" } },
                apiServer: { serviceType: "NodePort", nodePort: 32443, image: { tag: "v1.36.3" } },
                kubeControllerManager: { image: { tag: "v1.36.3" } },
                etcd: { internal: { image: { tag: "3.6.14-0" } } },
                controllerManager: { featureGates: { PropagateDeps: true } },
            },
        });
        // Helm replaces lists: the chart's default SANs must all still be there.
        expect(karmada.inputs.values.certs.auto.hosts).toEqual(expect.arrayContaining(["localhost", "127.0.0.1", "ikofett-control-plane"]));
        expect(karmada.inputs.values.certs.auto.hosts).toHaveLength(7);
    });
});

describe("Karmada API", () => {
    test("its kubeconfig is the chart's, pointed at the host port and kept secret", async () => {
        const read = run.resources.find((r) => r.name === "karmada-generated-kubeconfig")!;
        expect(read.id).toBe("karmada-system/karmada-kubeconfig");
        const text = await valueOf(stack.fleet.karmada.kubeconfig);
        expect(YAML.parse(text!).clusters[0].cluster.server).toBe("https://127.0.0.1:5443");
        expect(await pulumi.isSecret(stack.fleet.karmada.kubeconfig)).toBe(true);
    });

    test("karmada-cluster is Karmada's own namespace: the chart creates it, Kamino does not", () => {
        const onKarmada = run.ofType("kubernetes:core/v1:Namespace").filter((r) => providerName(r) === "karmada-api");
        expect(onKarmada).toEqual([]);
    });
});

describe("join of ikoclone (Push mode, as karmadactl does it)", () => {
    test("member side: namespace, service account, narrow rights (kamino:karmada.memberAccess), token secret; no impersonator", () => {
        const onMember = run.resources.filter((r) => r.name.startsWith("ikoclone-member-") && providerName(r) === "ikoclone-k8s");
        expect(onMember.map((r) => `${r.type.split(":")[1]}:${r.inputs.metadata.name}`).sort()).toEqual([
            "core/v1:karmada-cluster",
            "core/v1:karmada-ikoclone",
            "core/v1:karmada-ikoclone",
            "rbac.authorization.k8s.io/v1:karmada-controller-manager:karmada-ikoclone",
            "rbac.authorization.k8s.io/v1:karmada-controller-manager:karmada-ikoclone",
            // federated-iris is in `default`: a Role and RoleBinding there, no namespace to make.
            "rbac.authorization.k8s.io/v1:karmada-controller-manager:karmada-ikoclone:default",
            "rbac.authorization.k8s.io/v1:karmada-controller-manager:karmada-ikoclone:default",
        ]);
        const role = run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "ikoclone-member-role");
        expect(role.inputs.rules).toEqual(
            memberAccessPlan({ mode: "narrow", extraRules: [] }, { irisClusterNamespaces: ["default"], secretNamespaces: [] }).clusterRules,
        );
        const token = run.get("kubernetes:core/v1:Secret", "ikoclone-member-token");
        expect(token.inputs.type).toBe("kubernetes.io/service-account-token");
        expect(token.inputs.metadata.annotations).toEqual({ "kubernetes.io/service-account.name": "karmada-ikoclone" });
    });

    test("Karmada side: credentials from the member's token and the Cluster object", () => {
        const creds = run.get("kubernetes:core/v1:Secret", "ikoclone-member-credentials");
        expect(providerName(creds)).toBe("karmada-api");
        expect(creds.inputs.metadata).toMatchObject({ name: "ikoclone", namespace: "karmada-cluster" });
        // The token stays a secret on its way from the member to Karmada.
        expect(isSecretInput(creds.inputs.data)).toBe(true);
        expect(plain(creds.inputs.data)).toEqual({ caBundle: FAKE_CA, token: FAKE_TOKEN });
        const cluster = run.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", "ikoclone-member-cluster");
        expect(providerName(cluster)).toBe("karmada-api");
        expect(cluster.inputs.metadata.name).toBe("ikoclone");
        expect(cluster.inputs.spec).toEqual({
            syncMode: "Push",
            apiEndpoint: "https://ikoclone-control-plane:6443",
            secretRef: { namespace: "karmada-cluster", name: "ikoclone" },
            provider: "kind",
        });
    });

    test("the host is not joined", () => {
        expect(run.kind("Cluster").map((c) => c.inputs.metadata.name)).toEqual(["ikoclone"]);
    });
});

describe("IrisCluster CRD and the seed's federated-iris", () => {
    test("the CRD is read from the host and created in Karmada with its spec only", () => {
        expect(crdReads).toEqual(["irisclusters.intersystems.com@https://127.0.0.1:40701"]);
        const crd = run.get("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "iris-crd-crd");
        expect(providerName(crd)).toBe("karmada-api");
        expect(crd.inputs.metadata).toEqual({ name: "irisclusters.intersystems.com" });
        expect(crd.inputs.spec.group).toBe("intersystems.com");
        // A conversion webhook would point at a Service that exists only on the host.
        expect(crd.inputs.spec.conversion).toBeUndefined();
        expect(crd.inputs.status).toBeUndefined();
        expect(isSecretInput(crd.inputs.spec)).toBe(false);
    });

    test("federated-iris is the seed's template, with the Service template where IKO documents it", () => {
        const iris = run.get("kubernetes:intersystems.com/v1alpha1:IrisCluster", "federated-iris-template");
        expect(providerName(iris)).toBe("karmada-api");
        expect(iris.inputs.metadata).toEqual({ name: "federated-iris", namespace: "default" });
        expect(iris.inputs.spec).toEqual({
            topology: { data: { image: "containers.intersystems.com/intersystems/iris-community:2025.1" } },
            serviceTemplate: { spec: { type: "LoadBalancer" } },
        });
    });

    test("iriscluster-propagate places it on ikoclone", () => {
        const policy = run.get("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", "federated-iris-policy");
        expect(providerName(policy)).toBe("karmada-api");
        expect(policy.inputs.metadata).toEqual({ name: "iriscluster-propagate", namespace: "default" });
        expect(policy.inputs.spec).toEqual({
            resourceSelectors: [{ apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster", name: "federated-iris" }],
            placement: { clusterAffinity: { clusterNames: ["ikoclone"] } },
            propagateDeps: true,
        });
        expect(run.kind("OverridePolicy")).toHaveLength(0);
    });

    test("an interpreter gives IrisCluster real health in Karmada", () => {
        const ric = run.get("kubernetes:config.karmada.io/v1alpha1:ResourceInterpreterCustomization", "iris-interpreter-customization");
        expect(ric.inputs.spec.target).toEqual({ apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster" });
    });
});

describe("stack outputs", () => {
    test("clusters, members, placements and commands", async () => {
        const o = stack.outputs;
        expect(o.karmadaHost).toBe("ikofett");
        expect(o.members).toEqual(["ikoclone"]);
        expect(o.irisClusters).toEqual({ "default/federated-iris": ["ikoclone"] });
        const clusters = await Promise.all(o.clusters.map(async (c) => ({ ...c, apiEndpoint: await valueOf(c.apiEndpoint) })));
        expect(clusters).toEqual([
            { name: "ikofett", provider: "kind", karmadaHost: true, apiEndpoint: "https://ikofett-control-plane:6443" },
            { name: "ikoclone", provider: "kind", karmadaHost: false, apiEndpoint: "https://ikoclone-control-plane:6443" },
        ]);
        expect(o.commands["2-members-ready"]).toBe("kubectl --kubeconfig karmada.kubeconfig get clusters");
        expect(o.commands["5-on-ikoclone"]).toContain("kind get kubeconfig --name ikoclone");
    });

    test("kubeconfigs are secret and hold every cluster", async () => {
        expect(await pulumi.isSecret(stack.outputs.kubeconfigs)).toBe(true);
        expect(Object.keys((await valueOf(stack.outputs.kubeconfigs))!)).toEqual(["ikofett", "ikoclone"]);
    });

    test("the dev stack's resource count", () => {
        // Keep in step with the README; a change here is a change users see in `pulumi up`.
        expect(run.resources.filter((r) => !r.id).length).toMatchInlineSnapshot(`41`);
    });
});
