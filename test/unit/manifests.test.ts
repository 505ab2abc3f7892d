// kamino:manifests: reading the files (config errors before any resource), what Karmada's identity
// may do because of them (narrow member access), the FederatedManifests component under mocks, the
// `up`-time check that Karmada serves each kind, and the clean-up of removed entries.
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { ConfigError, ConfigEnvironment, FleetConfig, guessResource, loadFleetConfig, ManifestConfig } from "../../components/config";
import { KarmadaWorks, removeDroppedObjects, WorkObject } from "../../components/federation/manifest-cleanup";
import { DiscoveryLookup, manifestKindProblems } from "../../components/checks/manifest-kinds";
import { manifestPolicyName, manifestPropagationSpec } from "../../components/federation/manifests";
import { memberAccessPlan, PolicyRule } from "../../components/karmada/members/member-access";
import { kaminoProgram, kaminoStack } from "../../components/stack";
import { fakeCrdReader, fakeKubeconfig, fakeRunningWaiter, FIXTURE_CHART, MockRun, providerName } from "../support/mocks";
import { healthyMachine } from "../support/standins";
import { runTempDir } from "../support/process-reaper";

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: iris-web
spec:
  ports: [{ port: 52773 }]
`;
const NETPOL = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: iris-only, namespace: iris }
spec: { podSelector: {} }
`;
const CLUSTER_SCOPED = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: { name: iris-high }
value: 1000
`;
const CRD_AND_ITS_OBJECT = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gateways.example.io }
spec:
  group: example.io
  scope: Cluster
  names: { kind: Gateway, plural: gateways }
  versions: [{ name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object } } }]
---
apiVersion: example.io/v1
kind: Gateway
metadata: { name: edge }
`;

const clusters = [
    { name: "ikofett", provider: "kind", karmadaHost: true },
    { name: "ikoclone", provider: "kind", labels: { site: "a" } },
    { name: "ikodr", provider: "kind", labels: { site: "b" } },
];
const base = { clusters, iko: { chartPath: FIXTURE_CHART } };

/** Raw config (`kamino:key` -> JSON) and an environment whose files are `files`. */
function env(files: Record<string, string>): ConfigEnvironment {
    return { pathExists: (p) => p === `${FIXTURE_CHART}/Chart.yaml` || p in files, readFile: (p) => files[p], isSecret: () => false };
}
const raw = (cfg: Record<string, unknown>) => Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]));

function load(cfg: Record<string, unknown>, files: Record<string, string>): FleetConfig {
    return loadFleetConfig(raw({ ...base, ...cfg }), env(files));
}
function problems(cfg: Record<string, unknown>, files: Record<string, string>): string[] {
    try {
        load(cfg, files);
    } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).problems;
    }
    return [];
}

describe("config: each file read into its objects", () => {
    test("documents become objects; a namespaced kind without namespace gets `default`, a cluster-scoped one none", () => {
        const cfg = load(
            { manifests: [{ path: "m/web.yaml", placement: { clusterNames: ["ikoclone"] } }, { path: "m/prio.yaml" }] },
            {
                "m/web.yaml": `${SERVICE}---\n${NETPOL}---\n`,
                "m/prio.yaml": CLUSTER_SCOPED,
            },
        );
        expect(cfg.manifests[0].objects.map((o) => [o.document, o.kind, o.group, o.namespace, o.name, o.resource])).toEqual([
            [0, "Service", "", "default", "iris-web", "services"],
            [1, "NetworkPolicy", "networking.k8s.io", "iris", "iris-only", "networkpolicies"],
        ]);
        expect(cfg.manifests[0].objects[0].body).toMatchObject({
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "iris-web", namespace: "default" },
            spec: { ports: [{ port: 52773 }] },
        });
        expect(cfg.manifests[1].objects[0]).toMatchObject({ kind: "PriorityClass", namespace: undefined, resource: "priorityclasses" });
        // Mode and placement default as an IrisCluster's do.
        expect(cfg.manifests[1].placement).toEqual({ mode: "all" });
    });

    test("a CRD in a manifest tells its kind's scope and resource; other kinds get Kubernetes' guessed plural", () => {
        const cfg = load({ manifests: [{ path: "gw.yaml" }] }, { "gw.yaml": CRD_AND_ITS_OBJECT });
        expect(cfg.manifests[0].objects[1]).toMatchObject({ kind: "Gateway", group: "example.io", namespace: undefined, resource: "gateways" });
        expect([guessResource("Certificate"), guessResource("Ingress"), guessResource("Policy"), guessResource("Gateway")]).toEqual([
            "certificates",
            "ingresses",
            "policies",
            "gateways",
        ]);
    });

    test.each([
        ["a missing file", [{ path: "nope.yaml" }], {}, /^kamino:manifests\[0\]\.path = "nope\.yaml": file does not exist; fix: create it/],
        [
            "unparsable YAML, naming the document",
            [{ path: "bad.yaml" }],
            { "bad.yaml": `${SERVICE}---\nkind: [oops\n` },
            /^kamino:manifests\[0\]\.path = "bad\.yaml": document 1 is not valid YAML .*; fix: correct the YAML/,
        ],
        [
            "an object without metadata.name",
            [{ path: "a.yaml" }],
            { "a.yaml": `${SERVICE}---\napiVersion: v1\nkind: Service\nmetadata: {}\n` },
            /document 1 has no metadata\.name; fix: every object needs apiVersion, kind and metadata\.name/,
        ],
        ["an object without apiVersion and kind", [{ path: "a.yaml" }], { "a.yaml": "metadata: { name: x }\n" }, /document 0 has no apiVersion, kind; fix/],
        ["a document that is not an object", [{ path: "a.yaml" }], { "a.yaml": "- a\n- b\n" }, /document 0 is not a Kubernetes object/],
        ["a file with no object", [{ path: "a.yaml" }], { "a.yaml": "# nothing yet\n" }, /the file holds no object; fix: write at least one object/],
        [
            "a List",
            [{ path: "a.yaml" }],
            { "a.yaml": "apiVersion: v1\nkind: List\nmetadata: { name: l }\nitems: []\n" },
            /document 0 is a List; fix: write each of its items as a document of its own/,
        ],
        [
            "a cluster-scoped object with a namespace",
            [{ path: "a.yaml" }],
            { "a.yaml": CLUSTER_SCOPED.replace("iris-high }", "iris-high, namespace: x }") },
            /PriorityClass 'iris-high' is cluster-scoped.*; fix: remove its metadata\.namespace/,
        ],
        [
            "an IrisCluster",
            [{ path: "a.yaml" }],
            { "a.yaml": "apiVersion: intersystems.com/v1alpha1\nkind: IrisCluster\nmetadata: { name: iris }\n" },
            /document 0: IrisCluster 'default\/iris': Kamino federates IrisClusters itself; fix: declare it in kamino:irisClusters instead/,
        ],
        [
            "a Secret",
            [{ path: "a.yaml" }],
            { "a.yaml": "apiVersion: v1\nkind: Secret\nmetadata: { name: key }\n" },
            /Secret 'default\/key'.*; fix: declare it in kamino:secrets/,
        ],
        [
            "a Namespace",
            [{ path: "a.yaml" }],
            { "a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: { name: iris }\n" },
            /Kamino creates the namespaces its objects use.*; fix: remove it/,
        ],
        [
            "a Karmada policy",
            [{ path: "a.yaml" }],
            { "a.yaml": "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: { name: p }\n" },
            /is a Karmada object/,
        ],
        [
            "the same object in two files",
            [{ path: "a.yaml" }, { path: "b.yaml" }],
            { "a.yaml": SERVICE, "b.yaml": SERVICE },
            /^kamino:manifests\[1\]\.path = "b\.yaml": document 0: Service default\/iris-web is declared twice \(also kamino:manifests\[0\]\.path document 0\); fix: keep one of them/,
        ],
        [
            "a file listed twice",
            [{ path: "a.yaml" }, { path: "a.yaml", placement: { clusterNames: ["ikodr"] } }],
            { "a.yaml": SERVICE },
            /^kamino:manifests\[1\]\.path = "a\.yaml": the file is listed twice/,
        ],
        [
            "a placement naming the Karmada host",
            [{ path: "a.yaml", placement: { clusterNames: ["ikofett"] } }],
            { "a.yaml": SERVICE },
            /^kamino:manifests\[0\]\.placement\.clusterNames\[0\] = "ikofett": hosts Karmada/,
        ],
        [
            "failover over one member",
            [{ path: "a.yaml", placement: { mode: "failover", clusterNames: ["ikoclone"] } }],
            { "a.yaml": SERVICE },
            /^kamino:manifests\[0\]\.placement\.clusterNames .*failover needs at least two members/,
        ],
        ["an unknown field", [{ path: "a.yaml", namespace: "x" }], { "a.yaml": SERVICE }, /^kamino:manifests\[0\]\.namespace = "x": unknown field/],
    ])("%s is a config error naming the key and the fix", (_, manifests, files, line) => {
        expect(problems({ manifests }, files)).toContainEqual(expect.stringMatching(line));
    });

    test("a ConfigMap of kamino:configMaps in a manifest names the key it is under already", () => {
        const configMaps = [{ name: "cpf", namespace: "iris", placement: {}, data: { a: { value: "x" } } }];
        const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: cpf, namespace: iris }\n";
        expect(problems({ configMaps, manifests: [{ path: "a.yaml" }] }, { "a.yaml": cm })).toEqual([
            expect.stringMatching(
                /^kamino:manifests\[0\]\.path = "a\.yaml": document 0: ConfigMap 'iris\/cpf' is kamino:configMaps\[0\] already; fix: keep it in one place/,
            ),
        ]);
        // A ConfigMap of one's own, in a manifest only, is fine.
        expect(problems({ manifests: [{ path: "a.yaml" }] }, { "a.yaml": cm })).toEqual([]);
    });

    test("through the program, a bad manifest registers nothing", async () => {
        const run = new MockRun(false);
        const cfg = raw({ ...base, manifests: [{ path: "gone.yaml" }] });
        await run.install(cfg);
        expect(() => kaminoStack(cfg, { ...env({}), crdReader: fakeCrdReader(), preflight: healthyMachine() })).toThrow(ConfigError);
        await run.settle();
        expect(run.resources).toEqual([]);
    });
});

describe("narrow member access widens to the manifests' kinds and namespaces, and no further", () => {
    const NARROW = { mode: "narrow" as const, extraRules: [] };
    const scope = { irisClusterNamespaces: ["iris"], secretNamespaces: [], configMapNamespaces: [] };
    const without = memberAccessPlan(NARROW, scope);
    const ruleSet = (p: ReturnType<typeof memberAccessPlan>) =>
        new Set([
            ...p.clusterRules.map((r) => `cluster ${JSON.stringify(r)}`),
            ...p.namespaces.flatMap((n) => n.rules.map((r) => `${n.namespace} ${JSON.stringify(r)}`)),
        ]);
    const added = (objects: Parameters<typeof memberAccessPlan>[1]["objects"]) => {
        const before = ruleSet(without);
        const after = ruleSet(memberAccessPlan(NARROW, { ...scope, objects }));
        expect([...before].filter((r) => !after.has(r))).toEqual([]);
        return [...after].filter((r) => !before.has(r)).sort();
    };
    const rule = (r: PolicyRule) => JSON.stringify(r);

    test("a namespaced object: write its kind in its namespace, read it cluster-wide; nothing else", () => {
        expect(added([{ group: "", resource: "services", namespace: "web", name: "iris-web" }])).toEqual(
            [
                `cluster ${rule({ apiGroups: [""], resources: ["services"], verbs: ["list", "watch"] })}`,
                `web ${rule({ apiGroups: [""], resources: ["services"], verbs: ["get", "create", "update", "delete"] })}`,
            ].sort(),
        );
        const plan = memberAccessPlan(NARROW, { ...scope, objects: [{ group: "", resource: "services", namespace: "web", name: "iris-web" }] });
        expect(plan.namespaces.map((n) => [n.namespace, n.managed])).toEqual([
            ["iris", true],
            ["web", true],
        ]);
    });

    test("in a namespace Kamino writes already, the kind joins that namespace's rules", () => {
        const plan = memberAccessPlan(NARROW, {
            ...scope,
            objects: [{ group: "networking.k8s.io", resource: "networkpolicies", namespace: "iris", name: "p" }],
        });
        expect(plan.namespaces.find((n) => n.namespace === "iris")!.rules).toEqual([
            { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "create", "update", "delete"] },
            { apiGroups: ["intersystems.com"], resources: ["irisclusters"], verbs: ["get", "create", "update", "delete"] },
            { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["get", "create", "update", "delete"] },
        ]);
    });

    test("a cluster-scoped object: create of its kind, the rest by name only", () => {
        expect(added([{ group: "scheduling.k8s.io", resource: "priorityclasses", name: "iris-high" }])).toEqual(
            [
                `cluster ${rule({ apiGroups: ["scheduling.k8s.io"], resources: ["priorityclasses"], verbs: ["list", "watch"] })}`,
                `cluster ${rule({ apiGroups: ["scheduling.k8s.io"], resources: ["priorityclasses"], verbs: ["create"] })}`,
                `cluster ${rule({ apiGroups: ["scheduling.k8s.io"], resources: ["priorityclasses"], resourceNames: ["iris-high"], verbs: ["get", "update", "delete"] })}`,
            ].sort(),
        );
    });

    test("a kind Kamino propagates anyway (a ConfigMap in the IrisCluster's namespace) adds nothing", () => {
        expect(added([{ group: "", resource: "configmaps", namespace: "iris", name: "extra" }])).toEqual([]);
    });

    test("the fleet feeds the config's manifests into every member's plan", async () => {
        const run = new MockRun(true);
        const cfg = raw({ ...base, manifests: [{ path: "web.yaml", placement: { clusterNames: ["ikoclone"] } }] });
        await run.install(cfg);
        kaminoStack(cfg, { ...env({ "web.yaml": NETPOL }), crdReader: fakeCrdReader(), preflight: healthyMachine() });
        await run.settle();
        for (const m of ["ikoclone", "ikodr"]) {
            const role = run.get("kubernetes:rbac.authorization.k8s.io/v1:Role", `${m}-member-access-iris-role`);
            expect(role.inputs.rules).toEqual([
                { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["get", "create", "update", "delete"] },
            ]);
        }
    });
});

describe("FederatedManifests under mocks", () => {
    const dir = runTempDir("kamino-manifests-");
    const file = (name: string, text: string) => {
        const p = path.join(dir, name);
        fs.writeFileSync(p, text);
        return p;
    };
    const web = file("iris-web.yaml", `${SERVICE}---\n${NETPOL.replace("namespace: iris", "namespace: default")}`);
    const prio = file("prio.yaml", CLUSTER_SCOPED);
    const gw = file("gw.yaml", CRD_AND_ITS_OBJECT);
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const config = (manifests: unknown[]) => raw({ ...base, manifests });
    async function runStack(cfg: Record<string, string>, preview = false) {
        const run = new MockRun(preview);
        await run.install(cfg);
        const stack = kaminoStack(cfg, {
            crdReader: fakeCrdReader(),
            preflight: healthyMachine(),
            runningWaiter: fakeRunningWaiter(),
            karmadaWorks: () => NO_WORKS,
        });
        await run.settle();
        return { run, stack };
    }
    const NO_WORKS: KarmadaWorks = { workObjects: async () => [], deleteTemplate: async () => undefined };

    test("each object is created in the Karmada API as written, labelled, without the provider's readiness wait", async () => {
        const { run, stack } = await runStack(config([{ path: web, placement: { clusterLabels: { site: "a" } } }]));
        const svc = run.get("kubernetes:core/v1:Service", "manifests-service-default-iris-web");
        expect(providerName(svc)).toBe("karmada-api");
        expect(svc.inputs).toMatchObject({
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "iris-web", namespace: "default", labels: { "kamino.io/manifest": "true" }, annotations: { "pulumi.com/skipAwait": "true" } },
            spec: { ports: [{ port: 52773 }] },
        });
        expect(run.get("kubernetes:networking.k8s.io/v1:NetworkPolicy", "manifests-networkpolicy-networking.k8s.io-default-iris-only").inputs.spec).toEqual({
            podSelector: {},
        });
        // One PropagationPolicy for the file, in its objects' namespace, selecting each by name.
        const policy = run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === manifestPolicyName(web))!;
        expect(policy.inputs.metadata.namespace).toBe("default");
        expect(policy.inputs.spec).toEqual({
            resourceSelectors: [
                { apiVersion: "v1", kind: "Service", namespace: "default", name: "iris-web" },
                { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespace: "default", name: "iris-only" },
            ],
            placement: { clusterAffinity: { labelSelector: { matchLabels: { site: "a" } } } },
        });
        expect(stack.outputs.manifests).toEqual({
            "Service default/iris-web": ["ikoclone"],
            "NetworkPolicy.networking.k8s.io default/iris-only": ["ikoclone"],
        });
    });

    test("cluster-scoped objects get a ClusterPropagationPolicy; a CRD comes before objects of its kind", async () => {
        const { run } = await runStack(config([{ path: prio }, { path: gw }]));
        const cpp = run
            .kind("ClusterPropagationPolicy")
            .map((p) => p.inputs.metadata.name)
            .sort();
        expect(cpp).toEqual([manifestPolicyName(gw), manifestPolicyName(prio)].sort());
        const crd = run.get(
            "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
            "manifests-customresourcedefinition-apiextensions.k8s.io-gateways.example.io",
        );
        const gateway = run.get("kubernetes:example.io/v1:Gateway", "manifests-gateway-example.io-edge");
        expect(gateway.inputs.metadata.namespace).toBeUndefined();
        expect(run.resources.indexOf(crd)).toBeLessThan(run.resources.indexOf(gateway));
    });

    test("objects of removed entries are not registered, so Pulumi deletes them; other entries' names do not move", async () => {
        const both = (await runStack(config([{ path: prio }, { path: web }]))).run;
        const one = (await runStack(config([{ path: web }]))).run;
        const names = (r: MockRun) =>
            r.resources
                .filter((x) => x.name.startsWith("manifests-"))
                .map((x) => x.name)
                .sort();
        expect(names(both).filter((n) => !n.includes("priorityclass") && !n.includes(manifestPolicyName(prio)))).toEqual(names(one));
    });

    test("policy names: readable, different for the same base name in two folders", () => {
        expect(manifestPolicyName("manifests/iris-web.yaml")).toMatch(/^iris-web-[0-9a-f]{8}-manifest$/);
        expect(manifestPolicyName("a/web.yaml")).not.toBe(manifestPolicyName("b/web.yaml"));
    });

    test("failover placement: one member at a time down the list, moved by cluster failover", () => {
        const m = { path: "x.yaml", placement: { mode: "failover", clusterNames: ["ikoclone", "ikodr"] }, objects: [] } as unknown as ManifestConfig;
        const spec = manifestPropagationSpec(m);
        expect(spec.placement?.clusterAffinities?.map((a) => a.clusterNames)).toEqual([["ikoclone"], ["ikodr"]]);
        expect(spec.failover).toEqual({ cluster: { purgeMode: "Gracefully" } });
    });
});

describe("on up, the Karmada API must serve each manifest's kind", () => {
    const manifests = (text: string) => load({ manifests: [{ path: "a.yaml" }] }, { "a.yaml": text }).manifests;
    const discovery =
        (served: Record<string, Array<{ name: string; kind: string; namespaced: boolean }>>): DiscoveryLookup =>
        async (apiVersion) =>
            served[apiVersion];
    const CORE = { v1: [{ name: "services", kind: "Service", namespaced: true }] };

    test("served kinds pass", async () => {
        expect(await manifestKindProblems(manifests(SERVICE), discovery(CORE))).toEqual([]);
    });
    test("a kind Karmada does not serve is named with its file, document and the fix", async () => {
        const text = `${SERVICE}---\napiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: { name: iris-tls, namespace: iris }\n`;
        expect(await manifestKindProblems(manifests(text), discovery(CORE))).toEqual([
            "kamino:manifests[0].path (a.yaml) document 1, Certificate.cert-manager.io iris/iris-tls: the Karmada API does not serve kind Certificate in cert-manager.io/v1 (no cert-manager.io/v1 at all). " +
                "Fix: install its CustomResourceDefinition in Karmada and on the members (a CRD in a kamino:manifests file does both), or correct apiVersion and kind",
        ]);
    });
    test("a kind served with another scope than Kamino took it to have", async () => {
        const text = "apiVersion: example.io/v1\nkind: Gateway\nmetadata: { name: edge }\n";
        const [problem] = await manifestKindProblems(
            manifests(text),
            discovery({ "example.io/v1": [{ name: "gateways", kind: "Gateway", namespaced: false }] }),
        );
        expect(problem).toMatch(
            /took Gateway for a namespaced kind with resource 'gateways', but the Karmada API serves it cluster-scoped as 'gateways'\. Fix: put its CustomResourceDefinition in a kamino:manifests file/,
        );
    });
    test("kinds whose CRD a manifest brings are not asked for", async () => {
        const asked: string[] = [];
        expect(
            await manifestKindProblems(
                manifests(CRD_AND_ITS_OBJECT),
                async (v) => (asked.push(v), [{ name: "customresourcedefinitions", kind: "CustomResourceDefinition", namespaced: false }]),
            ),
        ).toEqual([]);
        expect(asked).toEqual(["apiextensions.k8s.io/v1"]);
    });

    describe("the program asks an existing Karmada before creating anything", () => {
        const dir = runTempDir("kamino-kinds-");
        afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
        const kubeconfig = (name: string) => {
            const p = path.join(dir, `${name}.kubeconfig`);
            fs.writeFileSync(p, fakeKubeconfig(`https://${name}.example:6443`, name));
            return p;
        };
        const manifest = path.join(dir, "cert.yaml");
        fs.writeFileSync(manifest, "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: { name: iris-tls }\n");
        const cfg = raw({
            clusters: ["hub", "a"].map((name) => ({ name, provider: "existing", karmadaHost: name === "hub", kubeconfigPath: kubeconfig(name) })),
            karmada: { existingKubeconfigPath: kubeconfig("karmada") },
            iko: { chartPath: FIXTURE_CHART },
            manifests: [{ path: manifest }],
        });
        const opts = (asked: string[]) => ({
            preflight: healthyMachine(),
            crdReader: fakeCrdReader(),
            runningWaiter: fakeRunningWaiter(),
            karmadaDiscovery: () => async (v: string) => (asked.push(v), undefined),
        });
        test("up: a RunError naming the file and the kind, and no resource", async () => {
            const run = new MockRun(false);
            await run.install(cfg);
            const asked: string[] = [];
            const error = await kaminoProgram(cfg, opts(asked)).then(
                () => undefined,
                (e: unknown) => e,
            );
            await run.settle();
            expect(asked).toEqual(["cert-manager.io/v1"]);
            expect(error).toBeInstanceOf(pulumi.RunError);
            expect((error as Error).message).toContain(
                `kamino:manifests[0].path (${manifest}) document 0, Certificate.cert-manager.io default/iris-tls: the Karmada API does not serve kind Certificate`,
            );
            expect(run.resources).toEqual([]);
        });
        test("preview asks nothing", async () => {
            const run = new MockRun(true);
            await run.install(cfg);
            const asked: string[] = [];
            await kaminoProgram(cfg, opts(asked));
            await run.settle();
            expect(asked).toEqual([]);
        });
    });
});

describe("removing an entry: Karmada takes its objects off the members before the rules narrow", () => {
    const svc = (name: string, fromManifest = true): WorkObject => ({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: "iris", labels: fromManifest ? { "kamino.io/manifest": "true" } : {} },
    });
    /** A Karmada whose Works hold `held`; a deleted template's Works go after `lag` more lookups. */
    function karmada(held: WorkObject[], lag = 1) {
        const deleted: string[] = [];
        let lookupsSinceDelete = 0;
        const api: KarmadaWorks = {
            workObjects: async () => {
                if (deleted.length > 0) lookupsSinceDelete++;
                return held.filter((o) => !deleted.includes(o.metadata.name) || lookupsSinceDelete <= lag);
            },
            deleteTemplate: async (o) => void deleted.push(o.metadata.name),
        };
        return { api, deleted };
    }
    const fast = { sleep: async () => undefined };

    test("only Kamino's manifest objects no longer in config are deleted, and the call waits for their Works to go", async () => {
        const k = karmada([svc("kept"), svc("dropped"), svc("not-ours", false)], 2);
        expect(await removeDroppedObjects(k.api, new Set(["Service iris/kept"]), fast)).toEqual(["Service iris/dropped"]);
        expect(k.deleted).toEqual(["dropped"]);
    });
    test("nothing dropped: nothing deleted", async () => {
        const k = karmada([svc("kept")]);
        expect(await removeDroppedObjects(k.api, new Set(["Service iris/kept"]), fast)).toEqual([]);
        expect(k.deleted).toEqual([]);
    });
    test("Works that never go: an error naming the objects", async () => {
        const k = karmada([svc("stuck")], Infinity);
        let t = 0;
        await expect(
            removeDroppedObjects(k.api, new Set(), { timeoutSeconds: 5, intervalSeconds: 1, now: () => (t += 1000), sleep: async () => undefined }),
        ).rejects.toThrow(/Karmada has not removed Service iris\/stuck from its members within 5s/);
    });
    test("on up with narrow access, the member rules wait for the clean-up", async () => {
        const run = new MockRun(false);
        const cfg = raw(base);
        await run.install(cfg);
        const k = karmada([svc("dropped")]);
        kaminoStack(cfg, {
            ...env({}),
            crdReader: fakeCrdReader(),
            preflight: healthyMachine(),
            runningWaiter: fakeRunningWaiter(),
            karmadaWorks: () => k.api,
        });
        await run.settle();
        expect(k.deleted).toEqual(["dropped"]);
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "ikoclone-member-role").inputs.rules.length).toBeGreaterThan(0);
    });
});
