// The gcp stack from Pulumi.gcp.yaml: the dev fleet plus a GKE member, under mocks, in update and
// preview mode.
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { kaminoStack } from "../../components/stack";
import { FIXTURE_CHART, MockRun, plain, providerName, stackConfig } from "../support/mocks";
import { runStack } from "../support/stack-under-mocks";

const config = stackConfig("Pulumi.gcp.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });

describe.each([false, true])("gcp stack (preview: %s)", (preview) => {
    let run: MockRun;
    beforeAll(async () => {
        ({ run } = await runStack(config, { preview, stack: "gcp" }));
    }, 60_000); // loading @pulumi/gcp with a cold cache on a busy machine takes longer than jest's 5 s

    test("GKE cluster: no default pool, Dataplane V2, Workload Identity, release channel, destroyable", () => {
        const c = run.get("gcp:container/cluster:Cluster", "ikogke-cluster");
        expect(c.inputs).toMatchObject({
            name: "ikogke",
            project: "my-gcp-project",
            location: "us-central1-a",
            removeDefaultNodePool: true,
            initialNodeCount: 1,
            deletionProtection: false,
            datapathProvider: "ADVANCED_DATAPATH",
            releaseChannel: { channel: "REGULAR" },
            workloadIdentityConfig: { workloadPool: "my-gcp-project.svc.id.goog" },
        });
        expect(providerName(c)).toBe("ikogke-gcp");
        expect(run.get("pulumi:providers:gcp", "ikogke-gcp").inputs.project).toBe("my-gcp-project");
    });

    test("node pool from config", () => {
        const p = run.get("gcp:container/nodePool:NodePool", "ikogke-nodes");
        expect(p.inputs).toMatchObject({ nodeCount: 2, nodeConfig: { machineType: "e2-standard-4", workloadMetadataConfig: { mode: "GKE_METADATA" } } });
    });

    test("no Cilium on GKE, IKO on all three clusters", () => {
        const releases = run.ofType("kubernetes:helm.sh/v3:Release");
        expect(
            releases
                .filter((r) => r.inputs.chart === "cilium")
                .map(providerName)
                .sort(),
        ).toEqual(["ikoclone-k8s", "ikofett-k8s"]);
        expect(
            releases
                .filter((r) => r.inputs.chart === FIXTURE_CHART)
                .map(providerName)
                .sort(),
        ).toEqual(["ikoclone-k8s", "ikofett-k8s", "ikogke-k8s"]);
    });

    test("the GKE join is built with the GKE provider and points Karmada at the public endpoint", () => {
        expect(providerName(run.get("kubernetes:core/v1:Secret", "ikogke-member-token"))).toBe("ikogke-k8s");
        expect(providerName(run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "ikogke-member-binding"))).toBe("ikogke-k8s");
        const cluster = run.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", "ikogke-member-cluster");
        expect(providerName(cluster)).toBe("karmada-api");
        expect(cluster.inputs.metadata.labels).toEqual({ cloud: "gcp" });
        expect(cluster.inputs.spec).toMatchObject({ syncMode: "Push", provider: "gke", region: "us-central1", zones: ["us-central1-a"] });
        if (preview) expect(pulumi.isUnknown(cluster.inputs.spec.apiEndpoint)).toBe(true);
        else expect(cluster.inputs.spec.apiEndpoint).toBe("https://34.1.2.3");
    });

    test("the GKE provider uses the gcloud plugin kubeconfig and a static identifier", () => {
        const p = run.get("pulumi:providers:kubernetes", "ikogke-k8s");
        expect(p.inputs.clusterIdentifier).toBe("gke-my-gcp-project-us-central1-a-ikogke");
        if (!preview) expect(YAML.parse(plain(p.inputs.kubeconfig) as string).users[0].user.exec.command).toBe("gke-gcloud-auth-plugin");
    });

    test("federated-iris goes to ikoclone and the GKE member; the override targets only GKE", () => {
        const pp = run.get("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", "federated-iris-policy");
        expect(pp.inputs.spec.placement).toEqual({ clusterAffinity: { clusterNames: ["ikoclone", "ikogke"] } });
        expect(pp.inputs.spec.dependentOverrides).toEqual(["federated-iris-overrides"]);
        const op = run.get("kubernetes:policy.karmada.io/v1alpha1:OverridePolicy", "federated-iris-overrides");
        expect(op.inputs.spec.overrideRules).toEqual([
            {
                targetCluster: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["gke"] }] } },
                overriders: { plaintext: [{ path: "/spec/storageClassName", operator: "add", value: "standard-rwo" }] },
            },
        ]);
    });

    test("kind clusters carry the stack prefix; Karmada names do not", () => {
        const kind = run.get("command:local:Command", "ikoclone-kind");
        expect(kind.inputs.environment).toEqual({ KIND_CLUSTER_NAME: "gcp-ikoclone" });
        expect(run.kind("Cluster").map((c) => c.inputs.metadata.name)).toEqual(["ikoclone", "ikogke"]);
        const host = YAML.parse(run.get("command:local:Command", "ikofett-kind").inputs.stdin);
        expect(host.nodes[0].extraPortMappings[0].hostPort).toBe(5444);
    });
});

describe("GKE config errors", () => {
    const raw = (clusters: unknown[]) => ({ ...config, "kamino:clusters": JSON.stringify(clusters) });
    const gke = (extra: Record<string, unknown>) => ({ name: "g", provider: "gke", project: "p", zone: "us-central1-a", ...extra });
    const host = { name: "h", provider: "kind", karmadaHost: true };
    test.each([
        [
            "no project",
            [host, gke({ project: undefined })],
            /kamino:clusters\[1\]\.project is missing: a gke cluster needs the GCP project to create 'g' in; fix: pulumi config set --path 'kamino:clusters\[1\]\.project' <project-id>/,
        ],
        ["no location", [host, gke({ zone: undefined })], /kamino:clusters\[1\]\.region is missing: a gke cluster needs a location; fix: set 'region'/],
        [
            "zone and region",
            [host, gke({ region: "us-central1" })],
            /kamino:clusters\[1\]\.zone = "us-central1-a": 'region' is set too; fix: set either 'region' \(a regional cluster\) or 'zone' \(a zonal cluster\), not both/,
        ],
        [
            "GKE Karmada host with a kind Push member",
            [
                { ...gke({}), karmadaHost: true },
                { name: "k", provider: "kind" },
            ],
            /kamino:clusters\[1\]\.syncMode = "Push" \(default\): Karmada on 'g' \(gke\) cannot call the kind cluster 'k'/,
        ],
        ["node count 0", [host, gke({ nodeCount: 0 })], /kamino:clusters\[1\]\.nodeCount = 0: is less than 1; fix: use a number of at least 1/],
        ["node count 500", [host, gke({ nodeCount: 500 })], /kamino:clusters\[1\]\.nodeCount = 500: is more than 100; fix: use a number of at most 100/],
        ["bad zone", [host, gke({ zone: "central" })], /kamino:clusters\[1\]\.zone = "central": must be a GCP zone such as us-central1-a; fix: /],
        ["name too long for GKE", [host, gke({ name: "g".repeat(41) })], /GKE cluster names start with a letter and have at most 40 characters/],
    ])("%s", async (_, clusters, expected) => {
        const run = new MockRun(false);
        await run.install(raw(clusters));
        expect(() => kaminoStack(raw(clusters), { pathExists: () => true })).toThrow(expected);
        await run.settle();
        expect(run.resources).toEqual([]);
    });
});
