// What the plan asks of the KarmadaControlPlane (karmada/control-plane/control-plane-args.ts): the
// chart with its kind settings on a kind host, or an existing control plane by its kubeconfig file.
// The published (highly available) install is the prod stack's, under mocks in production-gcp.test.ts.
import * as k8s from "@pulumi/kubernetes";
import { loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { controlPlaneArgs } from "../../components/karmada/control-plane/control-plane-args";
import { stackConfig } from "../support/mocks";

const planOf = (file: string, overrides: Record<string, unknown> = {}) =>
    resolveFleetPlan(loadFleetConfig(stackConfig(file, overrides), { pathExists: () => true, readFile: () => "" }));
const host = { provider: {} as k8s.Provider, kubeconfig: "HOST-KUBECONFIG" };
const parent = {} as never;

test("a kind host: the chart, its API on the NodePort mapped to this machine, the node's name in its certificate, failover flags", () => {
    const plan = planOf("Pulumi.dr.yaml");
    const args = controlPlaneArgs(plan, host, {
        pullEgress: [],
        parent,
        readFile: () => {
            throw new Error("no file is read for an installed Karmada");
        },
    });
    expect(args.existingKubeconfig).toBeUndefined();
    expect(args.clusterIdentifier).toBe("karmada-ikofett");
    expect(args.helm).toMatchObject({
        hostProvider: host.provider,
        hostKubeconfig: "HOST-KUBECONFIG",
        chartVersion: plan.config.karmada.chartVersion,
        failover: true,
        kind: {
            apiServerNodePort: plan.config.karmada.apiServerNodePort,
            apiServerHostPort: plan.config.karmada.apiServerHostPort,
            hostNodeName: "dr-ikofett-control-plane",
        },
    });
    expect(args.helm?.published).toBeUndefined();
    expect(Object.keys(args.helm?.detectionArgs ?? {}).length).toBeGreaterThan(0);
});

test("an existing Karmada: its kubeconfig read from the configured file, its endpoint parsed, no chart", () => {
    const plan = planOf("Pulumi.dev.yaml", {
        "kamino:clusters": [
            { name: "ikofett", provider: "existing", karmadaHost: true, kubeconfigPath: "/k/host.yaml" },
            { name: "ikoclone", provider: "existing", kubeconfigPath: "/k/member.yaml" },
        ],
        "kamino:karmada": { existingKubeconfigPath: "/k/karmada.yaml", endpoint: "10.0.0.5:6443" },
    });
    const read: string[] = [];
    const args = controlPlaneArgs(plan, host, { pullEgress: [], parent, readFile: (p) => (read.push(p), "KARMADA-KUBECONFIG") });
    expect(args).toEqual({
        clusterIdentifier: "karmada-ikofett",
        existingKubeconfig: "KARMADA-KUBECONFIG",
        existingEndpoint: { host: "10.0.0.5", port: 6443 },
    });
    expect(read).toEqual(["/k/karmada.yaml"]);
});
