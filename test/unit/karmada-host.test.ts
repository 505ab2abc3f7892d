// Karmada off the laptop: where it runs and who reaches it (config errors before anything exists),
// the chart values of a highly available Karmada (every key one the chart reads), and the prod stack
// (Pulumi.prod.yaml) under mocks, in update and preview mode.
import * as fs from "fs";
import * as path from "path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { ConfigError, isCidr, loadFleetConfig, parseEndpoint } from "../../components/config";
import { CHART_KEYS, highlyAvailable, KARMADA_DEFAULT_CERT_HOSTS, karmadaChartValues, valuePaths } from "../../components/karmada/control-plane/chart-values";
import { apiServerUrl, loadBalancerSpec, PUBLIC_SERVICE_NAME } from "../../components/karmada/control-plane/api-endpoint";
import { APISERVER_HTTP2_GIVE_UP_S, CHART_POSTRENDER } from "../../components/karmada/control-plane/apiserver-health-check";
import { KarmadaControlPlane } from "../../components/karmada/control-plane/control-plane";
import { kaminoStack } from "../../components/stack";
import {
    fakeAgentReadyWaiter,
    fakeCrdReader,
    fakeRunningWaiter,
    FAKE_ETCD_CLIENT_KEY,
    FAKE_ETCD_MEMBER_KEY,
    FAKE_KARMADA_ADDRESS,
    fakeNatAddress,
    FIXTURE_CHART,
    isSecretInput,
    MockRun,
    plain,
    providerName,
    stackConfig,
    valueOf,
} from "../support/mocks";
import { runStack } from "../support/stack-under-mocks";
import { healthyMachine } from "../support/standins";

const ROOT = path.join(__dirname, "..", "..");

const raw = (cfg: Record<string, unknown>) => Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]));
const gke = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    provider: "gke",
    project: "p",
    region: "europe-west1",
    authorizedNetworks: ["198.51.100.7/32"],
    ...extra,
});
const existing = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: "existing", kubeconfigPath: `${name}.kubeconfig`, ...extra });
const iko = { chartPath: FIXTURE_CHART };
const KC = YAML.stringify({
    clusters: [{ name: "k", cluster: { server: "https://10.0.0.5:6443", "certificate-authority-data": "Q0E=" } }],
    contexts: [{ name: "k", context: { cluster: "k" } }],
    "current-context": "k",
});

/** The problems of a config, one per line ("" when it loads). */
function problemsOf(cfg: Record<string, unknown>): string {
    try {
        loadFleetConfig(raw({ iko, ...cfg }), { pathExists: () => true, readFile: () => KC });
        return "";
    } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        return e.problems.join("\n");
    }
}

describe("endpoints and networks", () => {
    test.each([
        ["203.0.113.10", { host: "203.0.113.10" }],
        ["203.0.113.10:6443", { host: "203.0.113.10", port: 6443 }],
        ["Karmada.Example.com.", { host: "karmada.example.com" }],
        ["karmada.example.com:443", { host: "karmada.example.com", port: 443 }],
        ["2001:db8::10", { host: "2001:db8::10" }],
        ["[2001:db8::10]:5443", { host: "2001:db8::10", port: 5443 }],
    ])("%s is an endpoint", (text, expected) => expect(parseEndpoint(text)).toEqual(expected));

    test.each([
        ["https://karmada.example.com", /is a URL/],
        ["karmada_example.com", /neither an IP address nor a DNS name/],
        ["300.1.2.3", /neither an IP address nor a DNS name/],
        ["karmada.example.com:99999", /port that is not a number from 1 to 65535/],
        ["[not-v6]:1", /not an IPv6 address/],
    ])("%s is not", (text, reason) => expect(parseEndpoint(text)).toMatch(reason));

    test("CIDRs: IPv4 and IPv6 with a prefix in range, nothing else", () => {
        expect(["10.0.0.0/8", "198.51.100.7/32", "2001:db8::/32", "0.0.0.0/0"].every(isCidr)).toBe(true);
        expect(["10.0.0.0", "10.0.0.0/33", "2001:db8::/129", "office", "10.0.0.0/8/1"].some(isCidr)).toBe(false);
    });

    test("the load balancer: Karmada's apiserver pods, port 5443, only the listed networks, only to nodes running one; an IP is asked for, a name is not", () => {
        expect(loadBalancerSpec({ host: "34.1.2.3", authorizedNetworks: ["203.0.113.0/24"] })).toEqual({
            type: "LoadBalancer",
            selector: { app: "karmada-apiserver" },
            ports: [{ name: "https", port: 5443, targetPort: 5443, protocol: "TCP" }],
            loadBalancerIP: "34.1.2.3",
            loadBalancerSourceRanges: ["203.0.113.0/24"],
            externalTrafficPolicy: "Local",
        });
        expect(loadBalancerSpec({ host: "karmada.example.com", authorizedNetworks: [] })).not.toHaveProperty("loadBalancerIP");
        expect(apiServerUrl("2001:db8::10", 5443)).toBe("https://[2001:db8::10]:5443");
    });
});

describe("where Karmada runs: each mistake named with its key, value and fix, before anything exists", () => {
    const nets = { authorizedNetworks: ["203.0.113.0/24"] };
    test.each<[string, Record<string, unknown>, RegExp]>([
        [
            "a gke host without a project",
            { clusters: [gke("hub", { karmadaHost: true, project: undefined }), gke("m", { syncMode: "Pull" })], karmada: nets },
            /kamino:clusters\[0\]\.project is missing: a gke cluster needs the GCP project/,
        ],
        [
            "a gke host without a location",
            { clusters: [gke("hub", { karmadaHost: true, region: undefined }), gke("m")], karmada: nets },
            /kamino:clusters\[0\]\.region is missing: a gke cluster needs a location/,
        ],
        [
            "an existing host without an endpoint",
            { clusters: [existing("hub", { karmadaHost: true }), existing("m")], karmada: nets },
            /kamino:karmada\.endpoint is missing: Karmada on the existing cluster 'hub' needs the address its load balancer will have.*; fix: pulumi config set --path kamino:karmada\.endpoint/,
        ],
        [
            "an endpoint that is a URL",
            { clusters: [existing("hub", { karmadaHost: true }), existing("m")], karmada: { ...nets, endpoint: "https://k.example.com" } },
            /kamino:karmada\.endpoint = "https:\/\/k\.example\.com": is a URL/,
        ],
        [
            "a network that is not a CIDR",
            { clusters: [existing("hub", { karmadaHost: true }), existing("m")], karmada: { endpoint: "k.example.com", authorizedNetworks: ["office"] } },
            /kamino:karmada\.authorizedNetworks\[0\] = "office": is not a CIDR; fix: write an address range/,
        ],
        [
            "the whole Internet, not said explicitly",
            { clusters: [existing("hub", { karmadaHost: true }), existing("m")], karmada: { endpoint: "k.example.com", authorizedNetworks: ["0.0.0.0/0"] } },
            /authorizedNetworks\[0\] = "0\.0\.0\.0\/0": opens the Karmada API to the whole Internet; fix: .*allowAnyNetwork: true/,
        ],
        [
            "a cloud host open to nobody in particular",
            { clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })] },
            /kamino:karmada\.authorizedNetworks is missing/,
        ],
        [
            "an existing Karmada and a gke host Kamino would create",
            { clusters: [gke("hub", { karmadaHost: true }), gke("m")], karmada: { existingKubeconfigPath: "k.kubeconfig" } },
            /kamino:clusters\[0\]\.karmadaHost = true: Kamino would create the gke cluster 'hub' to host Karmada, but kamino:karmada\.existingKubeconfigPath says/,
        ],
        [
            "an existing Karmada with networks Kamino cannot apply",
            { clusters: [existing("hub", { karmadaHost: true }), existing("m")], karmada: { existingKubeconfigPath: "k.kubeconfig", ...nets } },
            /kamino:karmada\.authorizedNetworks = .*Kamino publishes only a Karmada it installs/,
        ],
        [
            "an endpoint on a kind host",
            {
                clusters: [
                    { name: "hub", provider: "kind", karmadaHost: true },
                    { name: "m", provider: "kind" },
                ],
                karmada: { endpoint: "k.example.com" },
            },
            /kamino:karmada\.endpoint = "k\.example\.com": a kind host publishes the Karmada API on 127\.0\.0\.1/,
        ],
        [
            "Kamino's etcd under a kind host",
            {
                clusters: [
                    { name: "hub", provider: "kind", karmadaHost: true },
                    { name: "m", provider: "kind" },
                ],
                karmada: { etcd: { members: 5 } },
            },
            /kamino:karmada\.etcd = .*: a kind host runs the chart's single etcd.*; fix: remove etcd/,
        ],
        [
            "Kamino's etcd under an existing Karmada",
            { clusters: [existing("hub", { karmadaHost: true }), existing("m")], karmada: { existingKubeconfigPath: "k.kubeconfig", etcd: {} } },
            /kamino:karmada\.etcd = .*Kamino runs etcd only under a Karmada it installs/,
        ],
        [
            "an even number of etcd members",
            { clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })], karmada: { ...nets, etcd: { members: 4 } } },
            /kamino:karmada\.etcd\.members = 4: must be 3 or 5; fix: use 3 .* or 5/,
        ],
        [
            "an etcd volume size that is not a size",
            { clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })], karmada: { ...nets, etcd: { volumeSize: "8GB" } } },
            /kamino:karmada\.etcd\.volumeSize = "8GB": must be a size such as 8Gi/,
        ],
        [
            "a gke host that cannot call a kind Push member",
            { clusters: [gke("hub", { karmadaHost: true }), { name: "k", provider: "kind" }], karmada: nets },
            /kamino:clusters\[1\]\.syncMode = "Push" \(default\): Karmada on 'hub' \(gke\) cannot call the kind cluster 'k'/,
        ],
        [
            "a Pull member told a loopback endpoint",
            {
                clusters: [existing("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })],
                karmada: { existingKubeconfigPath: "k.kubeconfig", endpoint: "127.0.0.2:5443" },
            },
            /the agent on 'm' \(gke\) could not reach Karmada at 127\.0\.0\.2: that is a loopback address of this machine \(kamino:karmada\.endpoint\)/,
        ],
    ])("%s", (_what, cfg, expected) => expect(problemsOf(cfg)).toMatch(expected));

    test("what is right loads: a gke host with networks, an existing host with an endpoint, 0.0.0.0/0 when said, a Pull member of an existing host", () => {
        expect(
            problemsOf({
                clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" }), { name: "k", provider: "kind", syncMode: "Pull" }],
                karmada: nets,
            }),
        ).toBe("");
        expect(
            problemsOf({
                clusters: [existing("hub", { karmadaHost: true }), existing("m", { syncMode: "Pull" })],
                karmada: { endpoint: "karmada.example.com", authorizedNetworks: ["0.0.0.0/0"], allowAnyNetwork: true },
            }),
        ).toBe("");
    });

    test("every host gets Karmada v1.18.1, the newest its chart repository lists, unless the stack names a version", () => {
        const load = (cfg: Record<string, unknown>) => loadFleetConfig(raw({ iko, ...cfg }), { pathExists: () => true, readFile: () => KC });
        const cloud = { clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })] };
        expect(load({ ...cloud, karmada: nets }).karmada.chartVersion).toBe("v1.18.1");
        expect(load({ ...cloud, karmada: { ...nets, chartVersion: "v1.17.0" } }).karmada.chartVersion).toBe("v1.17.0");
        expect(
            load({
                clusters: [
                    { name: "hub", provider: "kind", karmadaHost: true },
                    { name: "m", provider: "kind" },
                ],
            }).karmada.chartVersion,
        ).toBe("v1.18.1");
    });
});

describe("topology: a single Karmada on its NodePort, or a highly available one behind a load balancer", () => {
    const kindPair = [
        { name: "hub", provider: "kind", karmadaHost: true },
        { name: "m", provider: "kind" },
    ];
    const existingPair = [existing("hub", { karmadaHost: true }), existing("m")];
    test.each<[string, Record<string, unknown>, RegExp]>([
        [
            "a value it does not know",
            { clusters: existingPair, karmada: { topology: "double" } },
            /kamino:karmada\.topology = "double": must be single or highlyAvailable/,
        ],
        [
            "highly available on kind",
            { clusters: kindPair, karmada: { topology: "highlyAvailable" } },
            /kamino:karmada\.topology = "highlyAvailable": a kind host runs one of each Karmada component.*; fix: remove topology/,
        ],
        [
            "single on gke",
            { clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })], karmada: { topology: "single" } },
            /kamino:karmada\.topology = "single": Kamino publishes Karmada on the gke host 'hub' through a load balancer/,
        ],
        [
            "a topology for a Karmada that runs already",
            { clusters: existingPair, karmada: { existingKubeconfigPath: "k.kubeconfig", topology: "single" } },
            /kamino:karmada\.topology = "single": Kamino installs nothing on a Karmada that runs already.*; fix: remove topology/,
        ],
        [
            "single on an existing host without the address of its NodePort",
            { clusters: existingPair, karmada: { topology: "single" } },
            /kamino:karmada\.endpoint is missing: a single Karmada on the existing cluster 'hub' is published on its NodePort \(32443\).*; fix: pulumi config set --path kamino:karmada\.endpoint/,
        ],
        [
            "single with networks no load balancer applies",
            { clusters: existingPair, karmada: { topology: "single", endpoint: "192.0.2.10", authorizedNetworks: ["203.0.113.0/24"] } },
            /kamino:karmada\.authorizedNetworks = .*a single Karmada is published on a NodePort, with no load balancer to restrict/,
        ],
        [
            "single with Kamino's etcd",
            { clusters: existingPair, karmada: { topology: "single", endpoint: "192.0.2.10", etcd: {} } },
            /kamino:karmada\.etcd = .*a single Karmada runs the chart's own etcd.*; fix: remove etcd, or remove topology/,
        ],
    ])("%s", (_what, cfg, expected) => expect(problemsOf(cfg)).toMatch(expected));

    test("single on an existing host loads with an endpoint alone, and is not protected: it destroys freely, as kind does", () => {
        expect(problemsOf({ clusters: existingPair, karmada: { topology: "single", endpoint: "192.0.2.10" } })).toBe("");
        const load = (karmada: Record<string, unknown>) =>
            loadFleetConfig(raw({ iko, clusters: existingPair, karmada }), { pathExists: () => true, readFile: () => KC });
        expect(load({ topology: "single", endpoint: "192.0.2.10" }).protect).toBe(false);
        expect(load({ endpoint: "k.example.com", authorizedNetworks: ["203.0.113.0/24"] }).protect).toBe(true);
    });
});

describe("the chart's values", () => {
    const chart = {
        kubectlImage: "bitnamisecure/kubectl",
        featureGates: { PropagateDeps: true },
        failover: true,
        detectionArgs: { "cluster-monitor-period": "1500ms" },
    };

    const published = { host: "34.1.2.3", etcdServers: "https://karmada-etcd-client.karmada-system.svc.cluster.local:2379" };

    test("off kind: highly available, the address in the certificate, the chart's own Service left ClusterIP, Kamino's etcd", () => {
        const v = karmadaChartValues({ ...chart, published }) as Record<string, Record<string, unknown>>;
        expect((v.certs as { auto: { hosts: string[] } }).auto.hosts).toEqual([...KARMADA_DEFAULT_CERT_HOSTS, "34.1.2.3"]);
        const onePerNode = (app: string) => ({
            podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: "kubernetes.io/hostname" }],
            },
        });
        expect(v.apiServer).toEqual({
            image: { tag: "v1.36.3" },
            replicaCount: 2,
            podDisruptionBudget: { minAvailable: 1 },
            labels: { app: "karmada-apiserver" },
            affinity: onePerNode("karmada-apiserver"),
        });
        // Two of each, never on one node: a node's loss leaves one of each.
        for (const [c, app] of [
            ["aggregatedApiServer", "karmada-aggregated-apiserver"],
            ["controllerManager", "karmada-controller-manager"],
            ["scheduler", "karmada-scheduler"],
            ["webhook", "karmada-webhook"],
            ["kubeControllerManager", "kube-controller-manager"],
        ])
            expect(v[c]).toMatchObject({ replicaCount: 2, podDisruptionBudget: { minAvailable: 1 }, labels: { app }, affinity: onePerNode(app) });
        // The client certificate is not among them: the component adds it as a secret.
        expect(v.etcd).toEqual({ mode: "external", external: { servers: published.etcdServers, registryPrefix: "/registry" } });
    });

    test("a stack's values still win, e.g. an etcd of its own", () => {
        const servers = "https://etcd.example.internal:2379";
        const v = karmadaChartValues({ ...chart, published, values: { etcd: { external: { servers } }, scheduler: { replicaCount: 3 } } }) as Record<
            string,
            Record<string, unknown>
        >;
        expect(v.etcd).toEqual({ mode: "external", external: { servers, registryPrefix: "/registry" } });
        expect(v.scheduler).toMatchObject({ replicaCount: 3, podDisruptionBudget: { minAvailable: 1 } });
    });

    test("every key Kamino sets, single and highly available, is one the chart v1.18.1 reads", () => {
        const kind = karmadaChartValues({ ...chart, nodePort: { apiServerNodePort: 32443, certHosts: ["n"] } });
        const cloud = karmadaChartValues({ ...chart, published });
        const certs = { etcd: { external: { certs: { caCrt: "c", crt: "c", key: "k" } } } };
        const unknown = [...valuePaths(kind), ...valuePaths(cloud), ...valuePaths(highlyAvailable("https://e:2379")), ...valuePaths(certs)].filter(
            (p) => !(CHART_KEYS as readonly string[]).includes(p),
        );
        expect(unknown).toEqual([]);
    });
});

describe.each([false, true])("prod stack (preview: %s)", (preview) => {
    const config = stackConfig("Pulumi.prod.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });
    const run = new MockRun(preview);
    let outputs: ReturnType<typeof kaminoStack>["outputs"];
    beforeAll(async () => {
        await run.install(config, [], "prod");
        ({ outputs } = kaminoStack(config, {
            crdReader: fakeCrdReader(),
            preflight: healthyMachine(),
            runningWaiter: fakeRunningWaiter(),
            agentReadyWaiter: fakeAgentReadyWaiter(),
        }));
        await run.settle();
    }, 60_000); // loading @pulumi/gcp with a cold cache on a busy machine takes longer than jest's 5 s

    test("a static regional address in the hub's project and region", () => {
        expect(run.get("gcp:compute/address:Address", "karmada-address-ip").inputs).toMatchObject({
            name: "kamino-hub-karmada-api",
            project: "my-gcp-project",
            region: "europe-west1",
            addressType: "EXTERNAL",
        });
    });

    test("Karmada v1.18.1 on the hub, highly available, with the address in its certificate", () => {
        const release = run.ofType("kubernetes:helm.sh/v3:Release").find((r) => r.inputs.chart === "karmada")!;
        expect(providerName(release)).toBe("kamino-hub-k8s");
        expect(release.inputs.version).toBe("v1.18.1");
        if (preview) return; // the address is unknown until it is reserved
        const values = plain(release.inputs.values) as Record<string, Record<string, unknown>>;
        expect((values.certs as { auto: { hosts: string[] } }).auto.hosts).toContain(FAKE_KARMADA_ADDRESS);
        expect(values.apiServer).toMatchObject({ replicaCount: 2 });
        expect(values.etcd).toEqual({
            mode: "external",
            external: {
                servers: [0, 1, 2].map((i) => `https://karmada-etcd-${i}.karmada-etcd.karmada-system.svc.cluster.local:2379`).join(","),
                registryPrefix: "/registry",
                certs: { caCrt: expect.stringContaining("FAKE-ETCD"), crt: expect.stringContaining("FAKE-ETCD"), key: FAKE_ETCD_CLIENT_KEY },
            },
        });
        expect(valuePaths(values).filter((p) => !(CHART_KEYS as readonly string[]).includes(p))).toEqual([]);
    });

    test("the chart installs over Kamino's three-member etcd, which owns the namespace", () => {
        const release = run.ofType("kubernetes:helm.sh/v3:Release").find((r) => r.inputs.chart === "karmada")!;
        const sts = run.get("kubernetes:apps/v1:StatefulSet", "karmada-etcd-members");
        expect(providerName(sts)).toBe("kamino-hub-k8s");
        expect(release.inputs.createNamespace).toBe(false);
        if (preview) return; // the host is not read (its kubeconfig is unknown): the namespace and the certificates come after that check
        expect(run.get("kubernetes:core/v1:Namespace", "karmada-etcd-ns").inputs.metadata.name).toBe("karmada-system");
        expect(sts.inputs.metadata).toMatchObject({ name: "karmada-etcd", namespace: "karmada-system" });
        expect(sts.inputs.spec).toMatchObject({
            replicas: 3,
            podManagementPolicy: "Parallel",
            volumeClaimTemplates: [{ spec: { resources: { requests: { storage: "8Gi" } } } }],
        });
        expect(run.get("kubernetes:policy/v1:PodDisruptionBudget", "karmada-etcd-pdb").inputs.spec).toMatchObject({ minAvailable: 2 });
        const secret = run.get("kubernetes:core/v1:Secret", "karmada-etcd-certs");
        expect(isSecretInput(secret.inputs.stringData)).toBe(true);
        expect(plain(secret.inputs.stringData)).toMatchObject({ "tls.key": FAKE_ETCD_MEMBER_KEY });
    });

    test("the load balancer takes the address and lets only the authorized networks in", () => {
        const svc = run.get("kubernetes:core/v1:Service", "karmada-api-lb");
        expect(providerName(svc)).toBe("kamino-hub-k8s");
        expect(svc.inputs.metadata).toMatchObject({ name: PUBLIC_SERVICE_NAME, namespace: "karmada-system" });
        if (preview) return;
        // The stack's networks, then each Pull member's reserved Cloud NAT address, which Kamino adds itself.
        const nat = ["iris-east", "iris-west"].map((m) => `${fakeNatAddress(`${m}-egress-ip-0`)}/32`);
        expect(svc.inputs.spec).toMatchObject({
            type: "LoadBalancer",
            loadBalancerIP: FAKE_KARMADA_ADDRESS,
            loadBalancerSourceRanges: ["203.0.113.0/24", "198.51.100.10/32", ...nat],
        });
    });

    test("both members join by Pull and their agents dial the address; Karmada gets no member credential", async () => {
        for (const m of ["iris-east", "iris-west"]) {
            expect(run.ofType("kubernetes:cluster.karmada.io/v1alpha1:Cluster").map((c) => c.name)).not.toContain(`${m}-member-cluster`);
            const kubeconfig = run.get("kubernetes:core/v1:Secret", `${m}-member-agent-kubeconfig`);
            expect(providerName(kubeconfig)).toBe(`${m}-k8s`);
            if (!preview)
                expect(
                    YAML.parse(String((plain(kubeconfig.inputs.stringData) as Record<string, string>)["karmada-kubeconfig"])).clusters[0].cluster.server,
                ).toBe(`https://${FAKE_KARMADA_ADDRESS}:5443`);
        }
        const endpoint = await valueOf(outputs.karmadaEndpoint);
        if (preview) expect(endpoint).toBeUndefined();
        else expect(endpoint).toBe(`https://${FAKE_KARMADA_ADDRESS}:5443`);
        // The kubeconfig output is a secret and, once known, names the same address.
        expect(await pulumi.isSecret(outputs.karmadaKubeconfig)).toBe(true);
        const kubeconfig = await valueOf(outputs.karmadaKubeconfig);
        if (!preview) expect(YAML.parse(kubeconfig!).clusters[0].cluster.server).toBe(`https://${FAKE_KARMADA_ADDRESS}:5443`);
    });

    test("federated-iris in failover mode between the two members", () => {
        const policy = run.ofType("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy").find((p) => p.inputs.metadata.name === "iriscluster-propagate")!;
        expect(
            (plain(policy.inputs.spec.placement.clusterAffinities) as Array<{ clusterNames: string[] }>).map((a: { clusterNames: string[] }) => a.clusterNames),
        ).toEqual([["iris-east"], ["iris-west"]]);
    });
});

test("a zonal gke host: the address is reserved in the zone's region", async () => {
    // A zonal host has one zone for three members: only with the spread relaxed (checked in karmada-etcd-host.test.ts).
    const config = raw({
        iko,
        clusters: [gke("hub", { karmadaHost: true, region: undefined, zone: "us-central1-b" }), gke("m", { syncMode: "Pull" })],
        karmada: { authorizedNetworks: ["203.0.113.0/24"], etcd: { zoneSpread: "preferred" } },
    });
    const { run } = await runStack(config, { stack: "zonal" });
    expect(run.get("gcp:compute/address:Address", "karmada-address-ip").inputs).toMatchObject({ name: "hub-karmada-api", project: "p", region: "us-central1" });
}, 60_000);

describe("KarmadaControlPlane off kind", () => {
    let releaseProps: Record<string, unknown>;
    const seen: pulumi.ResourceTransformationArgs[] = [];
    let run: MockRun;
    beforeAll(async () => {
        run = new MockRun(false);
        await run.install();
        const capture: pulumi.ResourceTransformation = (a) => {
            seen.push(a);
            if (a.type === "kubernetes:helm.sh/v3:Release") releaseProps = a.props;
            return undefined;
        };
        new KarmadaControlPlane(
            "karmada",
            {
                clusterIdentifier: "karmada-hub",
                helm: {
                    hostProvider: new k8s.Provider("hub", { kubeconfig: KC }),
                    chartVersion: "v1.18.2",
                    chartRepo: "https://example.invalid/charts",
                    kubectlImage: "bitnamisecure/kubectl",
                    timeoutSeconds: 600,
                    featureGates: {},
                    published: { host: "203.0.113.10", port: 5443, authorizedNetworks: ["203.0.113.0/24"], etcd: { members: 3, volumeSize: "8Gi" } },
                },
            },
            { transformations: [capture] },
        );
        await run.settle();
    });

    test("the etcd client certificate is a secret leaf of the values; the rest of them stays plain, readable in a preview's diff", async () => {
        // As the component hands them to Pulumi: the mocks see them with secrets lifted to the top.
        const values = releaseProps.values as { etcd: { external: { certs: unknown } }; apiServer: unknown; certs: unknown };
        expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
        expect(pulumi.Output.isInstance(values.etcd.external.certs)).toBe(true);
        expect(await pulumi.isSecret(values.etcd.external.certs as pulumi.Output<unknown>)).toBe(true);
        const outputs: unknown[] = [];
        const walk = (v: unknown): void => {
            if (pulumi.Output.isInstance(v)) outputs.push(v);
            else if (typeof v === "object" && v !== null) Object.values(v).forEach(walk);
        };
        walk(values);
        const secret = await Promise.all(outputs.map((o) => pulumi.isSecret(o as pulumi.Output<unknown>)));
        expect(secret.filter(Boolean)).toHaveLength(1);
    });

    test("karmada-apiserver's HTTP/2 health check is in the release itself: Helm's post-renderer sets it, no patch after it rolls anything", () => {
        const release = run.get("kubernetes:helm.sh/v3:Release", "karmada-chart");
        // Relative to the program's directory, where Pulumi starts the provider: the same from any checkout.
        expect(release.inputs.postrender).toBe(CHART_POSTRENDER);
        expect(CHART_POSTRENDER.startsWith("./")).toBe(true);
        const script = path.join(ROOT, CHART_POSTRENDER);
        expect(fs.statSync(script).mode & 0o111).not.toBe(0);
        expect(fs.readFileSync(script, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
        expect(run.ofType("kubernetes:apps/v1:DeploymentPatch")).toEqual([]);
        // Within 15 s, the node-loss goal, with the probe's 2 s and a new connection's set-up.
        expect(APISERVER_HTTP2_GIVE_UP_S).toBeLessThanOrEqual(10);
    });
});

test("a single Karmada on kind keeps the chart's apiserver as it is: one apiserver and one aggregated-apiserver go down together", async () => {
    const { run } = await runStack(
        raw({
            iko,
            clusters: [
                { name: "hub", provider: "kind", karmadaHost: true },
                { name: "m", provider: "kind" },
            ],
        }),
        { stack: "single" },
    );
    const karmada = run.ofType("kubernetes:helm.sh/v3:Release").find((r) => r.inputs.chart === "karmada");
    expect(karmada).toBeDefined();
    expect(karmada!.inputs.postrender).toBeUndefined();
}, 60_000);

test("five etcd members on a StorageClass of the stack's choice: five in the StatefulSet, a quorum of three kept by the budget", async () => {
    const config = raw({
        iko,
        clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull" })],
        karmada: { authorizedNetworks: ["203.0.113.0/24"], etcd: { members: 5, volumeSize: "20Gi", storageClass: "premium-rwo", zoneSpread: "preferred" } },
    });
    const { run } = await runStack(config, { stack: "five" });
    const spec = run.get("kubernetes:apps/v1:StatefulSet", "karmada-etcd-members").inputs.spec;
    expect(spec).toMatchObject({
        replicas: 5,
        volumeClaimTemplates: [{ spec: { storageClassName: "premium-rwo", resources: { requests: { storage: "20Gi" } } } }],
    });
    const initialCluster = (spec.template.spec.containers[0].command as string[]).find((f) => f.startsWith("--initial-cluster="))!;
    expect(initialCluster.split(",")).toHaveLength(5);
    expect(run.get("kubernetes:policy/v1:PodDisruptionBudget", "karmada-etcd-pdb").inputs.spec).toMatchObject({ minAvailable: 3 });
}, 60_000);
