// IRIS mirrors across members (issue 35) under mocks: every refusal before any resource, the
// objects for kind members (Cilium ClusterMesh) and gke members (internal load balancers), the
// fence a promotion leaves and the pair's way back, and the outputs the commands read.
import { ConfigError, loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { memberAccessFor } from "../../components/karmada/members/join";
import { CILIUM_KEYS, CILIUM_MESH_CLUSTER_FIELDS, CLUSTER_MESH_NODE_PORT } from "../../components/clusters/cluster-mesh";
import { drAsyncMergeLines, gcpName, withDataMerge } from "../../components/federation/iris-mirror";
import { kaminoStack } from "../../components/stack";
import {
    fakeAgentReadyWaiter,
    fakeCrdReader,
    fakeInternalAddress,
    fakeRunningWaiter,
    FAKE_MESH_CA_CERT,
    FAKE_MESH_CA_KEY,
    FIXTURE_CHART,
    isSecretInput,
    MockRun,
    plain,
    stackConfig,
} from "../support/mocks";
import { runStack } from "../support/stack-under-mocks";
import { healthyMachine } from "../support/standins";

const IMAGE = "containers.intersystems.com/intersystems/iris:2025.1";
const RELEASE = "kubernetes:helm.sh/v3:Release";
/** Dotted paths of a values tree; lists are leaves. */
const valuePaths = (v: Record<string, unknown>, prefix = ""): string[] =>
    Object.entries(v).flatMap(([k, x]) => {
        const p = prefix ? `${prefix}.${k}` : k;
        const leaf = typeof x !== "object" || x === null || Array.isArray(x) || "__pulumiUnknown" in x;
        return leaf ? [p] : valuePaths(x as Record<string, unknown>, p);
    });
const fakes = { crdReader: fakeCrdReader(), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter(), agentReadyWaiter: fakeAgentReadyWaiter() };

/** The dr stack with a mirrored IrisCluster `iris/iris` beside federated-iris. */
const drWith = (mirror: Record<string, unknown>, entry: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    stackConfig("Pulumi.dr.yaml", {
        "kamino:iko": { chartPath: FIXTURE_CHART },
        "kamino:irisClusters": [
            { name: "federated-iris", image: IMAGE, placement: { mode: "failover", clusterNames: ["ikoclone", "ikodr"] } },
            { name: "iris", namespace: "iris", image: IMAGE, mirror, ...entry },
        ],
        ...extra,
    });
const problemsOf = (raw: Record<string, string>): string => {
    try {
        loadFleetConfig(raw, { pathExists: () => true, readFile: () => "" });
    } catch (e) {
        if (e instanceof ConfigError) return e.message;
        throw e;
    }
    return "";
};

describe("mirror config: refused before any resource, naming key and fix", () => {
    test.each([
        [{ primary: "ikomars", drAsync: ["ikodr"] }, "kamino:irisClusters[1].mirror.primary", "is not a cluster of this fleet"],
        [{ primary: "ikofett", drAsync: ["ikodr"] }, "kamino:irisClusters[1].mirror.primary", "is the Karmada host"],
        [{ primary: "ikoclone", drAsync: ["ikofett"] }, "kamino:irisClusters[1].mirror.drAsync[0]", "is the Karmada host"],
        [{ primary: "ikoclone", drAsync: ["ikodr", "ikoclone"] }, "kamino:irisClusters[1].mirror.drAsync[1]", "is the primary too"],
        [{ primary: "ikoclone", drAsync: ["ikodr", "ikodr"] }, "kamino:irisClusters[1].mirror.drAsync[1]", "names 'ikodr' twice"],
        [{ primary: "ikoclone", drAsync: [] }, "kamino:irisClusters[1].mirror.drAsync", "names no member"],
        [{ primary: "ikoclone", drAsync: ["ikodr"], promoted: "ikoclone" }, "kamino:irisClusters[1].mirror.promoted", "is not one of mirror.drAsync"],
        [{ primary: "ikoclone", drAsync: ["ikodr"], rejoin: true }, "kamino:irisClusters[1].mirror.rejoin", "without mirror.promoted"],
        [{ primary: "ikoclone", drAsync: ["ikodr"], name: "my-mirror" }, "kamino:irisClusters[1].mirror.name", "is not an IRIS mirror name"],
    ])("%j", (mirror, key, reason) => {
        const message = problemsOf(drWith(mirror));
        expect(message).toContain(key);
        expect(message).toContain(reason);
        expect(message).toMatch(/fix: /);
    });

    test("with placement: failover would move the pair without its data; any placement is the mirror's to decide", () => {
        const failover = problemsOf(
            drWith({ primary: "ikoclone", drAsync: ["ikodr"] }, { placement: { mode: "failover", clusterNames: ["ikoclone", "ikodr"] } }),
        );
        expect(failover).toContain("kamino:irisClusters[1].placement.mode");
        expect(failover).toContain("npm run promote");
        const placed = problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }, { placement: { clusterNames: ["ikoclone"] } }));
        expect(placed).toContain("kamino:irisClusters[1].placement = ");
        expect(placed).toContain("fix: remove placement");
    });

    test("more than 14 async members", () => {
        const members = Array.from({ length: 15 }, (_, i) => ({ name: `m${i}`, provider: "kind" }));
        const raw = drWith(
            { primary: "ikoclone", drAsync: members.map((m) => m.name) },
            {},
            {
                "kamino:clusters": [
                    { name: "ikofett", provider: "kind", karmadaHost: true },
                    { name: "ikoclone", provider: "kind" },
                    { name: "ikodr", provider: "kind" },
                    ...members,
                ],
            },
        );
        expect(problemsOf(raw)).toMatch(/kamino:irisClusters\[1\]\.mirror\.drAsync = .*names 15 members; an IRIS mirror has at most 14 async members/);
    });

    test("members with no network in common: kind with gke, existing clusters, gke in two VPCs", () => {
        const clusters = (dr: Record<string, unknown>) => ({
            "kamino:clusters": [
                { name: "ikofett", provider: "kind", karmadaHost: true },
                { name: "ikoclone", provider: "kind" },
                { name: "ikodr", ...dr },
            ],
        });
        const gke = { provider: "gke", project: "p", zone: "us-central1-a", authorizedNetworks: ["203.0.113.7/32"] };
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }, {}, clusters(gke)))).toMatch(
            /kamino:irisClusters\[1\]\.mirror = .*has no way for its members to reach each other: its members are kind and gke clusters.*fix: mirror kind members with kind members/,
        );
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }, {}, clusters({ provider: "existing", kubeconfigPath: "k" })))).toContain(
            "Kamino cannot tell how existing clusters reach each other",
        );
        const twoVpcs = {
            "kamino:clusters": [
                { name: "ikofett", provider: "kind", karmadaHost: true },
                { name: "ikoclone", ...gke, network: "vpc-a" },
                { name: "ikodr", ...gke, network: "vpc-b" },
            ],
        };
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }, {}, twoVpcs))).toContain(
            "its gke members are in different VPC networks (p/vpc-a, p/vpc-b)",
        );
    });

    test("existing clusters reach each other at addresses the stack gives, for every member and only those", () => {
        const existing = {
            "kamino:clusters": [
                { name: "ikofett", provider: "kind", karmadaHost: true },
                { name: "ikoclone", provider: "existing", kubeconfigPath: "a" },
                { name: "ikodr", provider: "existing", kubeconfigPath: "b" },
            ],
        };
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"], addresses: { ikoclone: "10.0.0.5", ikodr: "10.1.0.5" } }, {}, existing))).toBe("");
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"], addresses: { ikoclone: "10.0.0.5" } }, {}, existing))).toMatch(
            /kamino:irisClusters\[1\]\.mirror\.addresses = .*gives no address for 'ikodr'.*fix: add ikodr: /,
        );
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"], addresses: { ikoclone: "a", ikodr: "b", ikomars: "c" } }, {}, existing))).toContain(
            'kamino:irisClusters[1].mirror.addresses.ikomars = "c": is not a member of this mirror',
        );
    });

    test("a DR IrisCluster name that another entry has, or too long for IKO's StatefulSet", () => {
        const raw = stackConfig("Pulumi.dr.yaml", {
            "kamino:iko": { chartPath: FIXTURE_CHART },
            "kamino:irisClusters": [
                { name: "iris-ikodr", namespace: "iris", image: IMAGE },
                { name: "iris", namespace: "iris", image: IMAGE, mirror: { primary: "ikoclone", drAsync: ["ikodr"] } },
            ],
        });
        expect(problemsOf(raw)).toContain("gives the DR IrisCluster 'iris/iris-ikodr', which kamino:irisClusters declares already");
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }, { name: "a".repeat(42) }))).toContain("longer than 47 characters");
    });

    test("a valid mirror passes", () => {
        expect(problemsOf(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }))).toBe("");
    });
});

describe("member access", () => {
    test("narrow rights on each member let Karmada write the mirror's merge files and Services in its namespace", () => {
        const plan = resolveFleetPlan(loadFleetConfig(drWith({ primary: "ikoclone", drAsync: ["ikodr"] }), { pathExists: () => true, readFile: () => "" }));
        const ns = memberAccessFor(plan).namespaces.find((n) => n.namespace === "iris")!;
        const resources = ns.rules.flatMap((r) => r.resources ?? []);
        expect(resources).toEqual(expect.arrayContaining(["configmaps", "irisclusters", "services"]));
        // Without the mirror, the namespace's rules have no Services: the mirror put them there.
        const plain = resolveFleetPlan(
            loadFleetConfig(
                stackConfig("Pulumi.dr.yaml", {
                    "kamino:iko": { chartPath: FIXTURE_CHART },
                    "kamino:irisClusters": [{ name: "iris", namespace: "iris", image: IMAGE }],
                }),
                {
                    pathExists: () => true,
                },
            ),
        );
        expect(
            memberAccessFor(plain)
                .namespaces.find((n) => n.namespace === "iris")!
                .rules.flatMap((r) => r.resources ?? []),
        ).not.toContain("services");
    });
});

describe("merge files", () => {
    test("a DR member joins as DR async at the pair's address and creates the mirrored databases", () => {
        const lines = drAsyncMergeLines(
            { name: "IRISMIRROR1", config: { databases: ["IRISCLUSTER", "APP"] } } as Parameters<typeof drAsyncMergeLines>[0],
            "iris-mirror.iris.svc.cluster.local",
        );
        expect(lines.split("\n")).toEqual([
            "[Actions]",
            "ConfigMirror:Name=IRISMIRROR1,Member=drasync,Primary=iris-mirror.iris.svc.cluster.local",
            "CreateDatabase:Name=IRISCLUSTER,Directory=/irissys/data/IRIS/mgr/IRISCLUSTER,MirrorSetName=IRISMIRROR1,MirrorDBName=IRISCLUSTER",
            "CreateDatabase:Name=APP,Directory=/irissys/data/IRIS/mgr/APP,MirrorSetName=IRISMIRROR1,MirrorDBName=APP",
        ]);
    });
    test("the entry's own configSource files are kept; the lines go after its data.cpf", () => {
        expect(withDataMerge({ "common.cpf": "[Startup]\nX=1", "data.cpf": "[config]\nY=2\n\n" }, "[Actions]\nZ")).toEqual({
            "common.cpf": "[Startup]\nX=1",
            "data.cpf": "[config]\nY=2\n\n[Actions]\nZ\n",
        });
        expect(withDataMerge({}, "[Actions]\nZ")).toEqual({ "data.cpf": "[Actions]\nZ\n" });
    });
    test("GCP names stay within 63 characters, distinct by a hash", () => {
        expect(gcpName("short")).toBe("short");
        const a = gcpName(`${"x".repeat(70)}-a`);
        const b = gcpName(`${"x".repeat(70)}-b`);
        expect(a.length).toBeLessThanOrEqual(63);
        expect(a).not.toBe(b);
    });
});

describe.each([false, true])("a kind mirror in the dr stack (preview: %s)", (preview) => {
    const run = new MockRun(preview);
    let stack: ReturnType<typeof kaminoStack>;
    beforeAll(async () => {
        const raw = drWith(
            { primary: "ikoclone", drAsync: ["ikodr"] },
            { configSource: "iris-cpf", spec: { topology: { arbiter: { image: "arbiter:1" } } } },
            {
                "kamino:configMaps": [{ name: "iris-cpf", namespace: "iris", data: { "data.cpf": { value: "[config]\nglobals=0,0,128" } } }],
            },
        );
        await run.install(raw, [], "dr");
        stack = kaminoStack(raw, fakes);
        await run.settle();
    }, 60_000);
    const iris = (name: string) => run.kind("IrisCluster").find((r) => r.inputs.metadata.name === name);

    test("the pair on ikoclone: mirrored, with its arbiter and the entry's configSource, pinned there", () => {
        expect(plain(iris("iris")!.inputs.spec)).toMatchObject({
            topology: { data: { mirrored: true }, arbiter: { image: "arbiter:1" } },
            configSource: { name: "iris-cpf" },
        });
        const policy = run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === "iris-propagate")!;
        expect(plain(policy.inputs.spec.placement.clusterAffinity)).toEqual({ clusterNames: ["ikoclone"] });
        expect(policy.inputs.spec.failover).toBeUndefined();
    });

    test("a DR IrisCluster of its own on ikodr: not mirrored, no arbiter, its merge files as configSource, pinned there", () => {
        const spec = plain(iris("iris-ikodr")!.inputs.spec) as Record<string, any>;
        expect(spec.topology.data.mirrored).toBeUndefined();
        expect(spec.topology.arbiter).toBeUndefined();
        expect(spec.configSource).toEqual({ name: "iris-ikodr-mirror" });
        const policy = run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === "iris-ikodr-propagate")!;
        expect(plain(policy.inputs.spec.placement.clusterAffinity)).toEqual({ clusterNames: ["ikodr"] });
        // The fleet has failover elsewhere: pinned objects tolerate its taint, so no taint evicts a member's data.
        expect(policy.inputs.spec.placement.clusterTolerations).toHaveLength(1);
    });

    test("the DR member's merge files: the entry's data.cpf, then ConfigMirror at the pair's global Service", () => {
        if (preview) return;
        const cm = run.kind("ConfigMap").find((c) => c.inputs.metadata.name === "iris-ikodr-mirror")!;
        expect(plain(cm.inputs.data)).toEqual({
            "data.cpf":
                "[config]\nglobals=0,0,128\n\n[Actions]\nConfigMirror:Name=IRISMIRROR1,Member=drasync,Primary=iris-mirror.iris.svc.cluster.local\n" +
                "CreateDatabase:Name=IRISCLUSTER,Directory=/irissys/data/IRIS/mgr/IRISCLUSTER,MirrorSetName=IRISMIRROR1,MirrorDBName=IRISCLUSTER\n",
        });
    });

    test("each member's IRIS behind a Cilium global Service, present in both members; the pair's selects its primary", () => {
        const services = run.kind("Service").filter((s) => /-mirror$/.test(s.inputs.metadata.name));
        expect(services.map((s) => s.inputs.metadata.name).sort()).toEqual(["iris-ikodr-mirror", "iris-mirror"]);
        for (const s of services) {
            expect(s.inputs.metadata.annotations).toEqual({ "service.cilium.io/global": "true", "pulumi.com/skipAwait": "true" });
            expect(s.inputs.spec.ports.map((p: { port: number }) => p.port)).toEqual([1972, 2188, 52773]);
            const policy = run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === `${s.inputs.metadata.name}-propagate`)!;
            expect(plain(policy.inputs.spec.placement.clusterAffinity)).toEqual({ clusterNames: ["ikoclone", "ikodr"] });
        }
        expect(services.find((s) => s.inputs.metadata.name === "iris-mirror")!.inputs.spec.selector).toEqual({
            "intersystems.com/name": "iris",
            "intersystems.com/component": "data",
            "intersystems.com/mirrorRole": "primary",
        });
    });

    test("ClusterMesh on the two mirror members only: own name, id and NodePort, the other as peer, one CA whose key is secret", () => {
        const values = (cluster: string) => run.get(RELEASE, `${cluster}-cilium-cilium`).inputs.values;
        expect((plain(values("ikofett")) as Record<string, unknown>).clustermesh).toBeUndefined();
        const clone = plain(values("ikoclone")) as Record<string, any>;
        const dr = plain(values("ikodr")) as Record<string, any>;
        expect(clone.cluster).toEqual({ name: "dr-ikoclone", id: 2 });
        expect(dr.cluster).toEqual({ name: "dr-ikodr", id: 3 });
        expect(clone.clustermesh).toMatchObject({ useAPIServer: true, apiserver: { service: { type: "NodePort", nodePort: CLUSTER_MESH_NODE_PORT + 1 } } });
        expect(clone.clustermesh.config).toEqual({
            enabled: true,
            clusters: [{ name: "dr-ikodr", address: "dr-ikodr-control-plane", port: CLUSTER_MESH_NODE_PORT + 2 }],
        });
        expect(dr.clustermesh.config.clusters).toEqual([{ name: "dr-ikoclone", address: "dr-ikoclone-control-plane", port: CLUSTER_MESH_NODE_PORT + 1 }]);
        // Every key is one Cilium 1.18's chart declares (its schema would accept a misspelt one).
        for (const v of [clone, dr]) {
            expect(valuePaths(v).filter((p) => !(CILIUM_KEYS as readonly string[]).includes(p))).toEqual([]);
            for (const peer of v.clustermesh.config.clusters)
                expect(Object.keys(peer).filter((k) => !(CILIUM_MESH_CLUSTER_FIELDS as readonly string[]).includes(k))).toEqual([]);
        }
        if (preview) return;
        expect(clone.tls.ca).toEqual(dr.tls.ca);
        expect(Buffer.from(clone.tls.ca.cert, "base64").toString()).toBe(FAKE_MESH_CA_CERT);
        expect(Buffer.from(clone.tls.ca.key, "base64").toString()).toBe(FAKE_MESH_CA_KEY);
        // The CA key makes the release's values a secret: never plain in state or a diff.
        expect(isSecretInput(values("ikoclone"))).toBe(true);
    });

    test("the mirrors output names roles and IrisClusters for the commands", async () => {
        expect(stack.outputs.mirrors).toEqual({
            "iris/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 1 },
        });
        expect(stack.outputs.irisClusters["iris/iris"]).toEqual(["ikoclone", "ikodr"]);
    });
});

describe("after a promotion", () => {
    const runFenced = (mirror: Record<string, unknown>) => runStack(drWith(mirror), { stack: "dr" });

    test("fenced: the pair is not declared (Karmada withdraws it from ikoclone), the promoted DR member stays as it was", async () => {
        const { run, stack } = await runFenced({ primary: "ikoclone", drAsync: ["ikodr"], promoted: "ikodr" });
        const names = run.kind("IrisCluster").map((r) => r.inputs.metadata.name);
        expect(names).toContain("iris-ikodr");
        expect(names).not.toContain("iris");
        expect(run.kind("Service").map((s) => s.inputs.metadata.name)).not.toContain("iris-mirror");
        expect(stack.outputs.mirrors["iris/iris"]).toMatchObject({ promoted: "ikodr" });
        expect(stack.outputs.irisClusters["iris/iris"]).toEqual(["ikodr"]);
    });

    test("rejoining: the pair comes back on ikoclone with ValidatedMember=0, so it takes its role from the promoted member", async () => {
        const { run } = await runFenced({ primary: "ikoclone", drAsync: ["ikodr"], promoted: "ikodr", rejoin: true });
        expect(plain(run.kind("IrisCluster").find((r) => r.inputs.metadata.name === "iris")!.inputs.spec.configSource)).toEqual({ name: "iris-mirror" });
        const cm = run.kind("ConfigMap").find((c) => c.inputs.metadata.name === "iris-mirror")!;
        expect(plain(cm.inputs.data)).toEqual({ "data.cpf": "[MirrorMember]\nValidatedMember=0\n" });
    });
});

describe("a mirror at addresses the stack gives", () => {
    test("each member's IRIS behind a load balancer asked for its address; the DR member dials the pair's", async () => {
        const { run } = await runStack(drWith({ primary: "ikoclone", drAsync: ["ikodr"], addresses: { ikoclone: "10.0.0.5", ikodr: "iris-dr.example.com" } }), {
            stack: "dr",
        });
        const service = (name: string) => run.kind("Service").find((s) => s.inputs.metadata.name === name)!.inputs.spec;
        expect(service("iris-mirror")).toMatchObject({ type: "LoadBalancer", loadBalancerIP: "10.0.0.5" });
        expect(service("iris-ikodr-mirror").loadBalancerIP).toBeUndefined();
        const cm = run.kind("ConfigMap").find((c) => c.inputs.metadata.name === "iris-ikodr-mirror")!;
        expect((plain(cm.inputs.data) as Record<string, string>)["data.cpf"]).toContain("Primary=10.0.0.5\n");
        // No ClusterMesh for a network of the user's own.
        expect(run.ofType("pulumi-nodejs:dynamic/kamino:ClusterMeshCa")).toEqual([]);
    });
});

describe("a gke mirror in the prod stack", () => {
    const run = new MockRun(false);
    beforeAll(async () => {
        const raw = stackConfig("Pulumi.prod.yaml", {
            "kamino:iko": { chartPath: FIXTURE_CHART },
            "kamino:irisClusters": [{ name: "iris", namespace: "iris", image: IMAGE, mirror: { primary: "iris-east", drAsync: ["iris-west"] } }],
        });
        await run.install(raw, [], "prod");
        kaminoStack(raw, fakes);
        await run.settle();
    }, 60_000);

    test("each member's IRIS behind an internal load balancer with global access, at an address reserved in its own region", () => {
        const addresses = run.ofType("gcp:compute/address:Address").filter((a) => a.inputs.addressType === "INTERNAL");
        expect(addresses.map((a) => [a.inputs.name, a.inputs.region])).toEqual([
            ["iris-east-iris-iris-mirror", "us-east1"],
            ["iris-west-iris-iris-iris-west-mirror", "us-west1"],
        ]);
        const services = run.kind("Service").filter((s) => /-mirror$/.test(s.inputs.metadata.name));
        for (const s of services) {
            expect(s.inputs.spec.type).toBe("LoadBalancer");
            expect(s.inputs.metadata.annotations).toMatchObject({
                "networking.gke.io/load-balancer-type": "Internal",
                "networking.gke.io/internal-load-balancer-allow-global-access": "true",
            });
        }
        // Each Service only where its pods are: a load balancer needs no copy elsewhere.
        const policy = run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === "iris-mirror-propagate")!;
        expect(plain(policy.inputs.spec.placement.clusterAffinity)).toEqual({ clusterNames: ["iris-east"] });
    });

    test("the DR member dials the pair at its reserved address", () => {
        const cm = run.kind("ConfigMap").find((c) => c.inputs.metadata.name === "iris-iris-west-mirror")!;
        expect((plain(cm.inputs.data) as Record<string, string>)["data.cpf"]).toContain(
            `ConfigMirror:Name=IRISMIRROR1,Member=drasync,Primary=${fakeInternalAddress("iris-east-iris-iris-mirror")}\n`,
        );
    });

    test("no Cilium and no ClusterMesh on gke", () => {
        expect(run.ofType(RELEASE).filter((r) => r.inputs.chart === "cilium")).toEqual([]);
        expect(run.ofType("pulumi-nodejs:dynamic/kamino:ClusterMeshCa")).toEqual([]);
    });
});
