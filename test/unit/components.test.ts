// Each component alone, under mocks: what it registers, with which provider and options, and
// the outputs it promises (secret where they carry credentials).
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { Cilium } from "../../components/clusters/cilium";
import { CrdMirror, readMirrorSpec } from "../../components/karmada/control-plane/crd-mirror";
import { ExistingCluster } from "../../components/clusters/existing-cluster";
import { FederatedIrisCluster } from "../../components/federation/federated-iris";
import { GkeCluster } from "../../components/clusters/gke-cluster";
import { IrisClusterInterpreter } from "../../components/karmada/control-plane/interpreter";
import { IrisOperator } from "../../components/clusters/iris-operator";
import { KarmadaControlPlane } from "../../components/karmada/control-plane/control-plane";
import { KarmadaMember } from "../../components/karmada/members/member";
import { KindCluster } from "../../components/clusters/kind-cluster";
import { SecretSync } from "../../components/federation/secret-sync";
import { fakeCrdReader, fakeKubeconfig, fakeRunningWaiter, FIXTURE_CHART, isSecretInput, MockRun, plain, providerName, valueOf } from "../support/mocks";
import { runTempDir } from "../support/process-reaper";

let run: MockRun;
beforeEach(async () => {
    run = new MockRun(false);
    await run.install();
});
const provider = (name: string) => new k8s.Provider(name, { kubeconfig: "unused", clusterIdentifier: name });

test("KindCluster: create/delete commands, secret kubeconfigs, a provider with a static identifier", async () => {
    const kind = new KindCluster("c", { kindName: "lab-c", workers: 2 });
    await run.settle();
    expect(
        run
            .ofType("command:local:Command")
            .map((c) => c.name)
            .sort(),
    ).toEqual(["c-internal-kubeconfig", "c-kind", "c-kubeconfig"]);
    expect(YAML.parse(run.get("command:local:Command", "c-kind").inputs.stdin).nodes).toHaveLength(3);
    expect(await pulumi.isSecret(kind.kubeconfig)).toBe(true);
    expect(await pulumi.isSecret(kind.internalKubeconfig)).toBe(true);
    expect(await valueOf(kind.apiEndpoint)).toBe("https://lab-c-control-plane:6443");
    expect(run.get("pulumi:providers:kubernetes", "c-k8s").inputs.clusterIdentifier).toBe("kind-lab-c");
    expect(isSecretInput(run.get("pulumi:providers:kubernetes", "c-k8s").inputs.kubeconfig)).toBe(true);
});

test("ExistingCluster: reads the kubeconfig file as a secret and takes the API endpoint from it", async () => {
    const fs = await import("fs");
    const path = await import("path");
    const dir = runTempDir("kamino-unit-");
    const file = path.join(dir, "k");
    fs.writeFileSync(file, fakeKubeconfig("https://10.1.2.3:6443"));
    const c = new ExistingCluster("e", { kubeconfigPath: file });
    fs.rmSync(dir, { recursive: true });
    await run.settle();
    expect(await valueOf(c.apiEndpoint)).toBe("https://10.1.2.3:6443");
    expect(await pulumi.isSecret(c.kubeconfig)).toBe(true);
    expect(run.get("pulumi:providers:kubernetes", "e-k8s").inputs.clusterIdentifier).toBe("existing-e");
});

test("GkeCluster: exec-plugin kubeconfig (secret), endpoint, Karmada topology", async () => {
    const gke = new GkeCluster("g", {
        clusterName: "g",
        project: "p",
        region: "europe-west4",
        nodeCount: 1,
        machineType: "e2-medium",
        releaseChannel: "STABLE",
        authorizedNetworks: ["203.0.113.7/32"],
    });
    await run.settle();
    expect(gke.region).toBe("europe-west4");
    expect(gke.zones).toBeUndefined();
    expect(run.get("gcp:container/cluster:Cluster", "g-cluster").inputs.masterAuthorizedNetworksConfig).toEqual({
        cidrBlocks: [{ cidrBlock: "203.0.113.7/32" }],
    });
    expect(await pulumi.isSecret(gke.kubeconfig)).toBe(true);
    expect(await valueOf(gke.apiEndpoint)).toBe("https://34.1.2.3");
});

test("Cilium: one release into kube-system with the stack's values merged over kind's", async () => {
    new Cilium("c", {
        provider: provider("p"),
        version: "1.18.1",
        repo: "https://helm.cilium.io",
        values: { operator: { replicas: 2 }, hubble: { enabled: true } },
    });
    await run.settle();
    const r = run.get("kubernetes:helm.sh/v3:Release", "c-cilium");
    expect(providerName(r)).toBe("p");
    expect(r.inputs.values).toEqual({
        ipam: { mode: "kubernetes" },
        image: { pullPolicy: "IfNotPresent" },
        operator: { replicas: 2 },
        hubble: { enabled: true },
    });
});

test("IrisOperator: namespace, pull Secret from credentials (secret), release naming it", async () => {
    const creds = pulumi.secret({ server: "containers.intersystems.com", username: "u", password: "hunter2" });
    new IrisOperator("o", {
        provider: provider("p"),
        chartPath: FIXTURE_CHART,
        namespace: "iko",
        releaseName: "iko",
        registryCredentials: creds,
        skipAwait: true,
        values: { operator: { tag: "3.8.0" } },
    });
    await run.settle();
    const secret = run.get("kubernetes:core/v1:Secret", "o-pull-secret");
    expect(secret.inputs.type).toBe("kubernetes.io/dockerconfigjson");
    expect(isSecretInput(secret.inputs.stringData)).toBe(true);
    expect(JSON.stringify(secret.inputs, (_, v) => (isSecretInput(v) ? "[secret]" : v))).not.toContain("hunter2");
    const release = run.get("kubernetes:helm.sh/v3:Release", "o-iko");
    expect(release.inputs).toMatchObject({ skipAwait: true, values: { imagePullSecrets: [{ name: "iko-pull-secret" }], operator: { tag: "3.8.0" } } });
});

test("KarmadaControlPlane with an existing control plane: no chart, a provider on the given kubeconfig", async () => {
    const cp = new KarmadaControlPlane("k", { existingKubeconfig: pulumi.secret(fakeKubeconfig("https://127.0.0.1:7443")), clusterIdentifier: "karmada-x" });
    await run.settle();
    expect(run.ofType("kubernetes:helm.sh/v3:Release")).toEqual([]);
    expect(run.get("pulumi:providers:kubernetes", "k-api").inputs.clusterIdentifier).toBe("karmada-x");
    expect(await valueOf(cp.clusterNamespace)).toBe("karmada-cluster");
    expect(await pulumi.isSecret(cp.kubeconfig)).toBe(true);
});

test("KarmadaControlPlane refuses both or neither install mode", () => {
    expect(() => new KarmadaControlPlane("bad", { clusterIdentifier: "x" })).toThrow(/exactly one of 'helm' and 'existingKubeconfig'/);
});

test("KarmadaMember: Push join with region and zones, on the two providers", async () => {
    const m = new KarmadaMember("m", {
        clusterName: "dr",
        memberProvider: provider("member"),
        karmada: { provider: provider("karmada") },
        karmadaClusterNamespace: "karmada-cluster",
        apiEndpoint: "https://10.0.0.1:6443",
        provider: "existing",
        region: "eu",
        zones: ["eu-a"],
        labels: { site: "dr" },
    });
    await run.settle();
    expect(run.resources.filter((r) => providerName(r) === "member")).toHaveLength(7);
    expect(run.resources.filter((r) => providerName(r) === "karmada")).toHaveLength(3);
    const spec = run.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", "m-cluster").inputs.spec;
    expect(spec).toMatchObject({ apiEndpoint: "https://10.0.0.1:6443", provider: "existing", region: "eu", zones: ["eu-a"] });
    expect(m.clusterName).toBe("dr");
});

test("CrdMirror: copies the live CRD into the target", async () => {
    const calls: string[] = [];
    new CrdMirror("m", {
        crdName: "irisclusters.intersystems.com",
        identity: { kind: "IrisCluster", plural: "irisclusters", scope: "Namespaced" },
        sourceKubeconfig: pulumi.secret(fakeKubeconfig("https://127.0.0.1:1")),
        sourceName: "host",
        sourceReady: "deployed",
        timeoutSeconds: 10,
        targetProvider: provider("karmada"),
        reader: fakeCrdReader(calls),
    });
    await run.settle();
    expect(calls).toEqual(["irisclusters.intersystems.com@https://127.0.0.1:1"]);
    const crd = run.get("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "m-crd");
    expect(providerName(crd)).toBe("karmada");
    expect(crd.inputs.spec.versions[0].subresources).toEqual({ status: {} });
});

test("CrdMirror: a CRD that never appears fails the up with what to check", async () => {
    const args = {
        crdName: "irisclusters.intersystems.com",
        identity: { kind: "IrisCluster", plural: "irisclusters", scope: "Namespaced" as const },
        sourceName: "ikofett",
        timeoutSeconds: 1,
    };
    const neverThere = async () => {
        throw new Error("timed out after 1s waiting for CRD irisclusters.intersystems.com (last result: not found)");
    };
    await expect(readMirrorSpec(neverThere, "kubeconfig", args)).rejects.toThrow(
        /^CRD irisclusters.intersystems.com could not be read from cluster 'ikofett': timed out after 1s .* IKO creates it when the operator starts: check the operator pod and its log on 'ikofett'/,
    );
    // Another operator's CRD under the same name is refused, not copied.
    const wrongScope = async () => ({ spec: { names: { kind: "IrisCluster", plural: "irisclusters" }, scope: "Cluster" } });
    await expect(readMirrorSpec(wrongScope, "kubeconfig", args)).rejects.toThrow(
        /expected \{"kind":"IrisCluster","plural":"irisclusters","scope":"Namespaced"\}/,
    );
});

const irisEntry = {
    name: "iris",
    namespace: "ha",
    image: "iris:1",
    placement: { mode: "all" as const, clusterNames: ["a", "b"] },
    failoverAfterSeconds: 10,
    overrides: [],
    waitForRunning: true,
    runningTimeoutSeconds: 120,
    spec: {},
};

describe("FederatedIrisCluster: waiting for IKO to run it", () => {
    const build = (config = irisEntry, calls: string[] = []) =>
        new FederatedIrisCluster("f", {
            config,
            karmada: { provider: provider("karmada"), kubeconfig: pulumi.secret("kc") },
            targetClusters: ["a", "b"],
            waitForRunning: fakeRunningWaiter(calls),
        });
    test("up waits for its target members", async () => {
        const calls: string[] = [];
        const f = build(irisEntry, calls);
        expect(await f.running).toEqual(["a", "b"]);
        await run.settle();
        expect(calls).toEqual(["ha/iris: a,b"]);
    });
    test("a member that is not running rejects with the waiter's message, as a ResourceError on the template", async () => {
        const failing = async () => {
            throw new Error("IrisCluster ha/iris is not running on 1 member(s) (failed):\n  b: Failed");
        };
        const f = new FederatedIrisCluster("f", {
            config: irisEntry,
            karmada: { provider: provider("karmada"), kubeconfig: "kc" },
            targetClusters: ["a", "b"],
            waitForRunning: failing,
        });
        const err = await f.running!.then(
            () => undefined,
            (e: unknown) => e,
        );
        expect(pulumi.ResourceError.isInstance(err)).toBe(true);
        expect((err as pulumi.ResourceError).message).toBe("IrisCluster ha/iris is not running on 1 member(s) (failed):\n  b: Failed");
        expect((err as pulumi.ResourceError).resource).toBe(f.template);
        expect((err as pulumi.ResourceError).hideStack).toBe(true);
        await run.settle();
    });
    test("waitForRunning: false does not wait", async () => {
        const calls: string[] = [];
        expect(build({ ...irisEntry, waitForRunning: false }, calls).running).toBeUndefined();
        await run.settle();
        expect(calls).toEqual([]);
    });
    test("preview never waits", async () => {
        const preview = new MockRun(true);
        await preview.install();
        const calls: string[] = [];
        expect(build(irisEntry, calls).running).toBeUndefined();
        await preview.settle();
        expect(calls).toEqual([]);
    });
});

test("FederatedIrisCluster: template, policy and override policy, all on the Karmada provider", async () => {
    const f = new FederatedIrisCluster("f", {
        config: { ...irisEntry, overrides: [{ clusterNames: ["b"], image: "iris:2" }] },
        karmada: { provider: provider("karmada") },
        targetClusters: ["a", "b"],
    });
    await run.settle();
    expect(f.targetClusters).toEqual(["a", "b"]);
    const all = run.resources.filter((r) => r.type.startsWith("kubernetes:"));
    expect(all.map((r) => r.name).sort()).toEqual(["f-overrides", "f-policy", "f-template"]);
    expect(all.every((r) => providerName(r) === "karmada")).toBe(true);
    expect(run.get("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", "f-policy").inputs.metadata).toEqual({ name: "iris-propagate", namespace: "ha" });
    expect(run.get("kubernetes:policy.karmada.io/v1alpha1:OverridePolicy", "f-overrides").inputs.spec.overrideRules[0].overriders.plaintext).toEqual([
        { path: "/spec/topology/data/image", operator: "replace", value: "iris:2" },
    ]);
});

test("SecretSync: values stay secret on the resource's inputs and outputs", async () => {
    const sync = new SecretSync("s", {
        secrets: [
            {
                config: { name: "k", namespace: "iris", type: "opaque", fromConfig: "lic", overwriteExisting: false },
                values: pulumi.secret({ "iris.key": "SECRET-VALUE" }),
                targetClusters: ["a"],
            },
        ],
        karmada: { provider: provider("karmada") },
    });
    await run.settle();
    const input = run.get("kubernetes:core/v1:Secret", "s-iris-k");
    expect(isSecretInput(input.inputs.stringData)).toBe(true);
    expect(plain(input.inputs.stringData)).toEqual({ "iris.key": "SECRET-VALUE" });
    expect(await pulumi.isSecret(sync.secrets["iris/k"].stringData)).toBe(true);
    expect(sync.targets).toEqual({ "iris/k": ["a"] });
});

test("IrisClusterInterpreter: one customization for IrisCluster in the Karmada API", async () => {
    new IrisClusterInterpreter("i", { karmada: { provider: provider("karmada") } });
    await run.settle();
    const ric = run.get("kubernetes:config.karmada.io/v1alpha1:ResourceInterpreterCustomization", "i-customization");
    expect(providerName(ric)).toBe("karmada");
    expect(Object.keys(ric.inputs.spec.customizations).sort()).toEqual([
        "dependencyInterpretation",
        "healthInterpretation",
        "retention",
        "statusAggregation",
        "statusReflection",
    ]);
});
