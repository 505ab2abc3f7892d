// The Fleet beyond the seed: a host with five members, the destroy order, and config errors
// that stop the program before anything is registered.
import * as pulumi from "@pulumi/pulumi";
import { Fleet } from "../../components/fleet";
import { kaminoStack } from "../../components/stack";
import { FIXTURE_CHART, MockRun, providerName } from "../support/mocks";
import { rawConfig as raw, runFleet } from "../support/stack-under-mocks";
const MEMBERS = ["m1", "m2", "m3", "m4", "m5"];
const bigFleet = {
    clusters: [
        { name: "hub", provider: "kind", karmadaHost: true },
        ...MEMBERS.map((name, i) => ({ name, provider: "kind", labels: { tier: i < 2 ? "ha" : "dr" } })),
    ],
    iko: { chartPath: FIXTURE_CHART },
    irisClusters: [
        { name: "everywhere", image: "iris:1" },
        { name: "dr-only", namespace: "iris", image: "iris:1", placement: { clusterLabels: { tier: "dr" } } },
    ],
};

describe("a host and five members", () => {
    let run: MockRun;
    const seen: pulumi.ResourceTransformationArgs[] = [];
    let fleet: Fleet;
    beforeAll(async () => {
        ({ run, fleet } = await runFleet(raw(bigFleet), { transformations: [(a) => (seen.push(a), undefined)] }));
    });

    test("six kind clusters with distinct subnets and one Karmada", () => {
        expect(run.ofType("command:local:Command").filter((c) => c.name.endsWith("-kind"))).toHaveLength(6);
        expect(run.ofType("kubernetes:helm.sh/v3:Release").filter((r) => r.inputs.chart === "karmada")).toHaveLength(1);
        const subnets = run
            .ofType("command:local:Command")
            .filter((c) => c.name.endsWith("-kind"))
            .map((c) => /podSubnet: (\S+)/.exec(c.inputs.stdin)![1]);
        expect(new Set(subnets).size).toBe(6);
    });

    test("every member is joined with its own provider, the host is not", () => {
        const clusters = run.kind("Cluster");
        expect(clusters.map((c) => c.inputs.metadata.name)).toEqual(MEMBERS);
        for (const m of MEMBERS) {
            expect(providerName(run.get("kubernetes:core/v1:Secret", `${m}-member-token`))).toBe(`${m}-k8s`);
            expect(run.get("kubernetes:cluster.karmada.io/v1alpha1:Cluster", `${m}-member-cluster`).inputs.metadata.labels).toEqual({
                tier: expect.any(String),
            });
        }
    });

    test("IKO and Cilium on all six", () => {
        const releases = run.ofType("kubernetes:helm.sh/v3:Release");
        expect(releases.filter((r) => r.inputs.chart === "cilium")).toHaveLength(6);
        expect(releases.filter((r) => r.inputs.chart === FIXTURE_CHART)).toHaveLength(6);
    });

    test("placements by label become Karmada label selectors; outputs list the targets", () => {
        const pp = run.get("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", "iris-dr-only-policy");
        expect(pp.inputs.spec.placement).toEqual({ clusterAffinity: { labelSelector: { matchLabels: { tier: "dr" } } } });
        expect(run.get("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", "everywhere-policy").inputs.spec.placement).toBeUndefined();
        expect(fleet.irisClusters["iris/dr-only"].targetClusters).toEqual(["m3", "m4", "m5"]);
        expect(fleet.irisClusters["default/everywhere"].targetClusters).toEqual(MEMBERS);
    });

    test("a non-default namespace is created in Karmada and adopted on members", () => {
        const ns = run.get("kubernetes:core/v1:Namespace", "karmada-ns-iris");
        expect(providerName(ns)).toBe("karmada-api");
        expect(ns.inputs.metadata.annotations).toEqual({ "work.karmada.io/conflict-resolution": "overwrite" });
    });

    const optsOf = (name: string) => {
        const found = seen.filter((s) => s.name === name);
        expect(found).toHaveLength(1);
        return found[0].opts;
    };
    const dependsOn = (name: string) => [optsOf(name).dependsOn].flat() as pulumi.Resource[];

    describe("destroy order", () => {
        test("workloads go before the joins: each IrisCluster depends on every Karmada Cluster", () => {
            const deps = dependsOn("everywhere");
            for (const m of MEMBERS) expect(deps).toContain(fleet.members[m].cluster);
            expect(deps).toContain(fleet.crdMirror);
        });

        test("the IrisCluster template itself (not just its component) waits for the CRD and the joins", () => {
            // Pulumi does not pass a component's dependsOn on to its children; Kamino does.
            for (const child of ["everywhere-template", "everywhere-policy"]) {
                const deps = dependsOn(child);
                expect(deps).toContain(fleet.crdMirror);
                for (const m of MEMBERS) expect(deps).toContain(fleet.members[m].cluster);
            }
        });

        test("IKO installs after the cluster's CNI, Karmada after the host's", () => {
            expect(dependsOn("m1-iko-iko")).toContain(fleet.clusters.m1.cilium!.release);
            expect(dependsOn("m1-iko-ns")).toContain(fleet.clusters.m1.cilium!.release);
            expect(dependsOn("karmada-chart")).toContain(fleet.clusters.hub.cilium);
        });

        test("a member joins once IKO is on it, and on destroy its Cluster goes before the RBAC that lets Karmada clean up", () => {
            // Resource names are internal to the SDK (`__name`); good enough to identify children here.
            const names = dependsOn("m1-member-cluster").map((r) => (r as unknown as { __name: string }).__name);
            expect(names.sort()).toEqual([
                "m1-iko",
                "m1-member-access-default-binding",
                "m1-member-access-iris-binding",
                "m1-member-access-iris-ns-binding",
                "m1-member-binding",
                "m1-member-credentials",
            ]);
        });

        test("objects inside a kind cluster are not deleted one by one when the cluster goes", () => {
            const memberLifecycle = fleet.clusters.m1.lifecycle;
            expect(optsOf("m1-member-binding").deletedWith).toBe(memberLifecycle);
            expect(optsOf("m1-iko").deletedWith).toBe(memberLifecycle);
            expect(optsOf("m1-cilium").deletedWith).toBe(memberLifecycle);
            // Karmada runs in the host: its objects go with the host cluster.
            const hostLifecycle = fleet.clusters.hub.lifecycle;
            expect(optsOf("karmada").deletedWith).toBe(hostLifecycle);
            expect(optsOf("m1-member-cluster").deletedWith).toBe(hostLifecycle);
            expect(optsOf("everywhere-template").deletedWith).toBe(hostLifecycle);
        });

        test("kind clusters are deleted before they are recreated (names are global)", () => {
            expect((optsOf("m1-kind") as pulumi.CustomResourceOptions).deleteBeforeReplace).toBe(true);
        });
    });
});

describe("bad config", () => {
    test("fails before any resource is registered", async () => {
        const run = new MockRun(false);
        const bad = {
            ...bigFleet,
            clusters: [
                { name: "hub", provider: "kind" },
                { name: "m1", provider: "kind" },
            ],
        };
        await run.install(raw(bad));
        expect(() => kaminoStack(raw(bad), { pathExists: () => true })).toThrow(
            /kamino:clusters = \[\{"name":"hub","provider":"kind"\},\{"name":"m1","provider":"…: no cluster has 'karmadaHost: true'; fix: mark exactly one/,
        );
        await run.settle();
        expect(run.resources).toEqual([]);
    });
});
