// Karmada's chart uninstalled from a host that stays (karmada/control-plane/chart-uninstall.ts): the
// guard that keeps the chart's post-delete Job from deleting the release's own namespace there. Its
// delete, run from its serialized code against a played API server, is in serialize.test.ts; the
// whole destroy on real pods in test/cluster/karmada-chart.test.ts.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { NAMESPACE_MANIFESTS_KEY, withoutNamespaceManifests } from "../../components/karmada/control-plane/chart-uninstall";
import { KarmadaControlPlane } from "../../components/karmada/control-plane/control-plane";
import { MockRun } from "../support/mocks";

test("the patch takes out the Namespace manifests alone, and only while the ConfigMap holds them", () => {
    expect(withoutNamespaceManifests({ data: { [NAMESPACE_MANIFESTS_KEY]: "kind: Namespace", "webhook-configuration.yaml": "x" } })).toEqual([
        { op: "remove", path: "/data/system-namespace.yaml" },
    ]);
    expect(withoutNamespaceManifests({ data: { "webhook-configuration.yaml": "x" } })).toBeUndefined();
    expect(withoutNamespaceManifests({})).toBeUndefined();
    expect(withoutNamespaceManifests(undefined)).toBeUndefined();
});

describe.each([true, false])("Karmada's chart on a host that is existing: %s", (existingHost) => {
    const seen: pulumi.ResourceTransformationArgs[] = [];
    beforeAll(async () => {
        const run = new MockRun(false);
        await run.install();
        new KarmadaControlPlane(
            "karmada",
            {
                clusterIdentifier: "karmada-hub",
                helm: {
                    hostProvider: new k8s.Provider("hub", { kubeconfig: "HOST-KUBECONFIG" }),
                    hostKubeconfig: pulumi.secret("HOST-KUBECONFIG"),
                    existingHost,
                    chartVersion: "v1.18.1",
                    chartRepo: "https://example.invalid/charts",
                    kubectlImage: "bitnamisecure/kubectl",
                    timeoutSeconds: 600,
                    featureGates: {},
                    nodePort: { apiServerNodePort: 32443, server: "https://192.0.2.10:32443", certHosts: ["192.0.2.10"] },
                },
            },
            { transformations: [(a) => (seen.push(a), undefined)] },
        );
        await run.settle();
    });

    test(existingHost ? "a guard, deleted before the release, with the host's kubeconfig a secret" : "no guard: the chart goes with its cluster", async () => {
        const guards = seen.filter((s) => s.name === "karmada-uninstall-guard");
        if (!existingHost) return expect(guards).toEqual([]);
        expect(guards).toHaveLength(1);
        const release = seen.find((s) => s.type === "kubernetes:helm.sh/v3:Release")!.resource;
        expect([guards[0].opts.dependsOn].flat()).toContain(release);
        expect(guards[0].props.namespace).toBe("karmada-system");
        expect(await pulumi.isSecret(guards[0].props.hostKubeconfig as pulumi.Output<string>)).toBe(true);
    });
});
