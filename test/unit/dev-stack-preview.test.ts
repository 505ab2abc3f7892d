// The dev stack in preview mode, as on a fresh stack: every kubeconfig is unknown, so nothing
// may be computed from it (no apply on unknowns) and the plan must still hold every resource.
import * as pulumi from "@pulumi/pulumi";
import { kaminoStack } from "../../components/stack";
import { fakeCrdReader, fakeRunningWaiter, FIXTURE_CHART, isSecretInput, MockRun, stackConfig } from "../support/mocks";
import { healthyMachine } from "../support/standins";

const preview = new MockRun(true);
const update = new MockRun(false);
const crdReads: string[] = [];
const reader = async () => {
    crdReads.push("read");
    throw new Error("the CRD must not be read while the host's kubeconfig is unknown");
};
const config = stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });
let previewStack: ReturnType<typeof kaminoStack>;

beforeAll(async () => {
    await update.install(config);
    kaminoStack(config, { crdReader: fakeCrdReader(), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter() });
    await update.settle();

    await preview.install(config);
    // Preview spawns nothing: a machine whose every process or port probe fails the test.
    const noProcess = (): never => {
        throw new Error("preview must not run kind, docker or a port probe");
    };
    previewStack = kaminoStack(config, { crdReader: reader, preflight: { run: noProcess, probePort: noProcess } });
    await preview.settle();
});

// Unknown, and still marked secret: SDKs since 3.249 keep the secret flag on an unknown value.
const isUnknownSecret = (v: unknown) => isSecretInput(v) && pulumi.isUnknown((v as { value: unknown }).value);

const key = (r: { type: string; name: string }) => `${r.type}::${r.name}`;

test("preview registers the same resources as an update", () => {
    expect(preview.resources.map(key).sort()).toEqual(update.resources.map(key).sort());
});

test("nothing reads the live cluster while its kubeconfig is unknown", () => {
    expect(crdReads).toEqual([]);
});

test("values that come from clusters are unknown, the rest is planned exactly", () => {
    const provider = preview.get("pulumi:providers:kubernetes", "ikoclone-k8s");
    expect(isUnknownSecret(provider.inputs.kubeconfig)).toBe(true);
    expect(provider.inputs.clusterIdentifier).toBe("kind-ikoclone");

    const cluster = preview.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", "ikoclone-member-cluster");
    expect(cluster.inputs.spec.apiEndpoint).toBe("https://ikoclone-control-plane:6443");
    expect(cluster.inputs.spec.syncMode).toBe("Push");

    const creds = preview.get("kubernetes:core/v1:Secret", "ikoclone-member-credentials");
    expect(isUnknownSecret(creds.inputs.data)).toBe(true);

    const crd = preview.get("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "iris-crd-crd");
    // The Kubernetes provider checks a CRD's group, kind and scope even while the live CRD is
    // unknown (the real engine failed on "spec.group accessor error" before); they stay known.
    expect(crd.inputs.spec).toMatchObject({ group: "intersystems.com", names: { kind: "IrisCluster", plural: "irisclusters" }, scope: "Namespaced" });
    expect(pulumi.isUnknown(crd.inputs.spec.versions)).toBe(true);

    const iris = preview.get("kubernetes:intersystems.com/v1alpha1:IrisCluster", "federated-iris-template");
    expect(iris.inputs.spec.topology.data.image).toBe("containers.intersystems.com/intersystems/iris-community:2025.1");
});

test("outputs that depend on clusters stay unknown instead of failing", async () => {
    const known = await new Promise<boolean>((resolve) => {
        // isKnown is internal to the SDK; a resolved promise of the output tells us without apply.
        (previewStack.fleet.karmada.kubeconfig as unknown as { isKnown: Promise<boolean> }).isKnown.then(resolve);
    });
    expect(known).toBe(false);
    expect(previewStack.outputs.members).toEqual(["ikoclone"]);
});
