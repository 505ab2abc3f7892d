// What the plan asks of the KarmadaControlPlane (karmada/control-plane/control-plane-args.ts): the
// chart single on its NodePort on a kind host or an existing host that asks for it, or an existing
// control plane by its kubeconfig file.
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
        nodePort: {
            apiServerNodePort: plan.config.karmada.apiServerNodePort,
            server: `https://127.0.0.1:${plan.config.karmada.apiServerHostPort}`,
            certHosts: ["dr-ikofett-control-plane"],
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

describe("a single Karmada on an existing host (a hand-made kind, minikube or bare-metal cluster)", () => {
    const existingHost = (karmada: Record<string, unknown>) =>
        planOf("Pulumi.dev.yaml", {
            "kamino:clusters": [
                { name: "ikofett", provider: "existing", karmadaHost: true, kubeconfigPath: "/k/host.yaml" },
                { name: "ikoclone", provider: "existing", kubeconfigPath: "/k/member.yaml" },
            ],
            "kamino:karmada": { topology: "single", ...karmada },
        });

    test("the chart on its NodePort, reached at the endpoint, whose host goes into the certificate; no etcd or load balancer of Kamino's", () => {
        const plan = existingHost({ endpoint: "192.0.2.10" });
        expect(plan.karmada.topology).toBe("single");
        expect(plan.config.protect).toBe(false);
        const args = controlPlaneArgs(plan, host, { pullEgress: [], parent });
        expect(args.helm?.nodePort).toEqual({ apiServerNodePort: 32443, server: "https://192.0.2.10:32443", certHosts: ["192.0.2.10"] });
        expect(args.helm?.published).toBeUndefined();
    });

    test("the endpoint's port when it names one (a forward to the NodePort), an IPv6 address in brackets", () => {
        expect(controlPlaneArgs(existingHost({ endpoint: "10.1.2.3:5443" }), host, { pullEgress: [], parent }).helm?.nodePort?.server).toBe(
            "https://10.1.2.3:5443",
        );
        expect(controlPlaneArgs(existingHost({ endpoint: "[2001:db8::1]:5443" }), host, { pullEgress: [], parent }).helm?.nodePort).toMatchObject({
            server: "https://[2001:db8::1]:5443",
            certHosts: ["2001:db8::1"],
        });
    });
});
