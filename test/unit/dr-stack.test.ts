// The dr stack from Pulumi.dr.yaml under mocks: federated-iris in failover mode over ikoclone then
// ikodr, the ClusterTaintPolicy that makes a dead member's IrisCluster move, and the Karmada flags
// behind it; the dev stack, without failover, keeps Karmada's plain behaviour.
import * as pulumi from "@pulumi/pulumi";
import { FAILOVER_TAINT } from "../../components/karmada/failover/failover";
import { Fleet } from "../../components/fleet";
import { fakeAgentReadyWaiter, fakeRunningWaiter, FIXTURE_CHART, MockRun, plain, providerName, stackConfig } from "../support/mocks";
import { runFleet, runStack } from "../support/stack-under-mocks";

/** karmada-controller-manager's failure-detection flags for Kamino's default 12 s (karmada/failover/detection.ts). */
const DETECTION_12S = {
    "cluster-status-update-frequency": "3s",
    "cluster-failure-threshold": "9s",
    "cluster-success-threshold": "0s",
    "cluster-monitor-period": "2s",
    "cluster-monitor-grace-period": "10s",
    "rate-limiter-max-delay": "10s",
};

const PP = "kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy";
const CTP = "kubernetes:policy.karmada.io/v1alpha1:ClusterTaintPolicy";
const RELEASE = "kubernetes:helm.sh/v3:Release";

describe.each([false, true])("dr stack (preview: %s)", (preview) => {
    let run: MockRun;
    const waits: string[] = [];
    const agentWaits: string[] = [];
    const seen: pulumi.ResourceTransformationArgs[] = [];
    let fleet: Fleet;
    beforeAll(async () => {
        const raw = stackConfig("Pulumi.dr.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });
        ({ run, fleet } = await runFleet(raw, {
            preview,
            stack: "dr",
            args: { runningWaiter: fakeRunningWaiter(waits), agentReadyWaiter: fakeAgentReadyWaiter(agentWaits) },
            transformations: [(a) => (seen.push(a), undefined)],
        }));
    });
    const dependsOn = (name: string) => [seen.find((s) => s.name === name)!.opts.dependsOn].flat() as pulumi.Resource[];

    test("federated-iris goes to one member at a time, ikoclone first, and moves 10 s after it fails", () => {
        const spec = plain(run.get(PP, "federated-iris-policy").inputs.spec);
        expect(spec).toEqual({
            resourceSelectors: [{ apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster", name: "federated-iris" }],
            placement: {
                clusterAffinities: [
                    { affinityName: "1-ikoclone", clusterNames: ["ikoclone"] },
                    { affinityName: "2-ikodr", clusterNames: ["ikodr"] },
                ],
                spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }],
                clusterTolerations: [{ key: "cluster.karmada.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }],
            },
            propagateDeps: true,
            failover: {
                application: { decisionConditions: { tolerationSeconds: 10 }, purgeMode: "Gracefully", gracePeriodSeconds: 600 },
                cluster: { purgeMode: "Gracefully" },
            },
        });
    });

    test("a ClusterTaintPolicy taints exactly the failover members NoExecute while they are not Ready, after they joined", () => {
        const policies = run.ofType(CTP);
        expect(policies).toHaveLength(1);
        const p = policies[0];
        expect(providerName(p)).toBe("karmada-api");
        expect(plain(p.inputs)).toMatchObject({
            metadata: { name: "kamino-failover" },
            spec: {
                targetClusters: { clusterNames: ["ikoclone", "ikodr"] },
                addOnConditions: [{ conditionType: "Ready", operator: "NotIn", statusValues: ["True"] }],
                removeOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }],
                taints: [FAILOVER_TAINT],
            },
        });
        for (const m of ["ikoclone", "ikodr"]) expect(dependsOn("failover-taint-policy")).toContain(fleet.members[m].cluster);
        // The IrisCluster is placed only once the policy that makes failover fire exists.
        expect(dependsOn("federated-iris-policy")).toContain(fleet.failover);
    });

    test("Karmada's chart runs the controller-manager with the Failover gate, NoExecute eviction and detection in 12 s", () => {
        const karmada = run.ofType(RELEASE).find((r) => r.inputs.chart === "karmada")!;
        expect(karmada.inputs.values.controllerManager).toEqual({
            featureGates: { Failover: true, PropagateDeps: true },
            extraCommandArgs: { "enable-no-execute-taint-eviction": "true", ...DETECTION_12S },
        });
    });

    test("the standby ikodr joins by Pull: Karmada's agent at the chart's version, dialling the host's node on the kind network", () => {
        expect(run.kind("Cluster").map((c) => c.inputs.metadata.name)).toEqual(["ikoclone"]);
        // `up` waits for its agent's Cluster to be Ready; a preview does not.
        expect(agentWaits).toEqual(preview ? [] : ["ikodr"]);
        const agent = run.get("kubernetes:apps/v1:Deployment", "ikodr-member-agent");
        expect(agent.inputs.spec.template.spec.containers[0].image).toBe("docker.io/karmada/karmada-agent:v1.18.1");
        if (!preview) {
            const kubeconfig = run.get("kubernetes:core/v1:Secret", "ikodr-member-agent-kubeconfig").inputs.stringData.value["karmada-kubeconfig"];
            expect(kubeconfig).toContain("server: https://dr-ikofett-control-plane:32443");
        }
    });

    test("up waits for it on the member Karmada chose, and says where it runs", async () => {
        if (preview) {
            expect(waits).toEqual([]);
            expect(await fleet.running).toEqual({});
        } else {
            expect(waits).toEqual(["default/federated-iris: ikoclone,ikodr (failover)"]);
            expect(await fleet.running).toEqual({ "default/federated-iris": ["ikoclone"] });
        }
        expect(fleet.irisClusters["default/federated-iris"].targetClusters).toEqual(["ikoclone", "ikodr"]);
    });
});

describe("the dev stack has no failover: Karmada as before", () => {
    let run: MockRun;
    beforeAll(async () => {
        ({ run } = await runStack(stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } })));
    });
    test("no ClusterTaintPolicy, no toleration, no Failover gate; the same failure detection", () => {
        expect(run.ofType(CTP)).toEqual([]);
        expect(plain(run.get(PP, "federated-iris-policy").inputs.spec.placement)).toEqual({ clusterAffinity: { clusterNames: ["ikoclone"] } });
        expect(run.ofType(RELEASE).find((r) => r.inputs.chart === "karmada")!.inputs.values.controllerManager).toEqual({
            featureGates: { PropagateDeps: true },
            extraCommandArgs: DETECTION_12S,
        });
    });
});
