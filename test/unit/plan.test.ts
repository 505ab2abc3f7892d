// The fleet plan: what the shipped stacks' configs imply, derived once (config/plan.ts).
import { loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { stackConfig } from "../support/mocks";

const IMAGE = "containers.intersystems.com/intersystems/iris-community:2025.1";
const planOf = (file: string, overrides: Record<string, unknown> = {}) =>
    resolveFleetPlan(loadFleetConfig(stackConfig(file, overrides), { pathExists: () => true, readFile: () => "" }));

describe("the fleet plan", () => {
    test("dr stack: roles, sync modes, kind names under the prefix, numbered in config order", () => {
        const plan = planOf("Pulumi.dr.yaml");
        expect(plan.clusters.map((c) => [c.name, c.role, c.syncMode, c.kind, c.hostsKarmadaChart])).toEqual([
            ["ikofett", "karmada-host", undefined, { clusterName: "dr-ikofett", controlPlaneNode: "dr-ikofett-control-plane", index: 0 }, true],
            ["ikoclone", "member", "Push", { clusterName: "dr-ikoclone", controlPlaneNode: "dr-ikoclone-control-plane", index: 1 }, false],
            ["ikodr", "member", "Pull", { clusterName: "dr-ikodr", controlPlaneNode: "dr-ikodr-control-plane", index: 2 }, false],
        ]);
        expect(plan.host.name).toBe("ikofett");
        expect(plan.members.map((m) => m.name)).toEqual(["ikoclone", "ikodr"]);
    });

    test("dr stack: the Karmada it installs, reached by Pull agents on the kind network at the host's NodePort", () => {
        const plan = planOf("Pulumi.dr.yaml");
        expect(plan.karmada).toEqual({
            source: "chart",
            hostName: "ikofett",
            clusterIdentifier: "karmada-ikofett",
            existingKubeconfigPath: undefined,
            endpoint: undefined,
            installsOn: "kind",
            knownVersion: plan.config.karmada.chartVersion,
            kindNetworkServer: `https://dr-ikofett-control-plane:${plan.config.karmada.apiServerNodePort}`,
            topology: "single",
        });
    });

    test("dr stack: failover members in list order, and the IrisCluster's targets first choice first", () => {
        const plan = planOf("Pulumi.dr.yaml");
        expect(plan.failoverMembers).toEqual(["ikoclone", "ikodr"]);
        expect(plan.failover).toBe(true);
        expect(plan.irisClusters.map((i) => [i.id, i.resourceName, i.targets])).toEqual([["default/federated-iris", "federated-iris", ["ikoclone", "ikodr"]]]);
    });

    test("gcp stack: a gke member has no kind names, and the kind clusters keep their indexes around it", () => {
        const plan = planOf("Pulumi.gcp.yaml", {
            "kamino:clusters": [
                { name: "ikofett", provider: "kind", karmadaHost: true },
                { name: "ikogke", provider: "gke", project: "p", zone: "us-central1-a", authorizedNetworks: ["203.0.113.7/32"] },
                { name: "ikoclone", provider: "kind" },
            ],
        });
        expect(plan.clusters.map((c) => c.kind?.index)).toEqual([0, undefined, 1]);
        expect(plan.failover).toBe(false);
        // Outside failover mode, targets come in fleet order, not the order clusterNames gives.
        expect(plan.irisClusters[0].targets).toEqual(["ikogke", "ikoclone"]);
    });

    test("an existing Karmada: not installed, no known version, its endpoint parsed once", () => {
        const plan = planOf("Pulumi.dev.yaml", { "kamino:karmada": { existingKubeconfigPath: "karmada.kubeconfig", endpoint: "karmada.example.com:6443" } });
        expect(plan.karmada).toMatchObject({
            source: "existing",
            existingKubeconfigPath: "karmada.kubeconfig",
            endpoint: { host: "karmada.example.com", port: 6443 },
            installsOn: undefined,
            knownVersion: undefined,
            kindNetworkServer: undefined,
        });
        expect(plan.host.hostsKarmadaChart).toBe(false);
    });

    test("namespaces: every one the objects use, once, but default; resource names carry a namespace outside default", () => {
        const plan = planOf("Pulumi.dev.yaml", {
            "kamino:irisClusters": [
                { name: "a", namespace: "iris", image: IMAGE, placement: { clusterNames: ["ikoclone"] } },
                { name: "b", image: IMAGE, placement: { clusterNames: ["ikoclone"] } },
            ],
            "kamino:configMaps": [{ name: "cpf", namespace: "tools", data: { k: { value: "v" } }, placement: {} }],
        });
        expect(plan.namespaces).toEqual(["iris", "tools"]);
        expect(plan.irisClusters.map((i) => i.resourceName)).toEqual(["iris-a", "b"]);
        expect(plan.configMaps.map((c) => [c.ownPlacement, c.targetClusters])).toEqual([[true, ["ikoclone"]]]);
    });
});
