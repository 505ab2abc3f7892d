// Karmada's etcd off kind as an operator runs it (issue 34), what can be proven without pods: the
// Service the chart's apiservers wait for, the quota GKE needs for critical pods, every member as a
// client endpoint, probes, the spread over zones and its refusals, space, hardening, and what the
// namespace gets before the chart. That pods really start with these is the real-pod tier's.
import * as fs from "fs";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ConfigError, loadFleetConfig } from "../../components/config";
import {
    CHART_WAIT_SERVICE,
    ETCD_IMAGE,
    etcdChartWaitServiceSpec,
    etcdClientServiceSpec,
    etcdClusterNames,
    etcdCommand,
    etcdLabels,
    etcdPlacement,
    etcdStatefulSetSpec,
} from "../../components/karmada/control-plane/etcd-cluster";
import { criticalPodsQuotaSpec, etcdNetworkPolicySpec, etcdStorageClass } from "../../components/karmada/control-plane/etcd-policies";
import { ETCD_MAX_QUOTA_BYTES, quotaBackendBytes, sizeBytes } from "../../components/karmada/control-plane/etcd-space";
import { etcdDefragCronJobSpec } from "../../components/karmada/control-plane/etcd-jobs";
import { KarmadaControlPlane } from "../../components/karmada/control-plane/control-plane";
import { FIXTURE_CHART, MockRun } from "../support/mocks";

const n = etcdClusterNames("karmada-system");
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
type Container = { name: string; image: string; command: string[] };

describe("what the chart's karmada-apiserver waits for (1)", () => {
    test("a Service named etcd-client, over the same ready members and client port as Kamino's client Service", () => {
        expect(CHART_WAIT_SERVICE).toBe("etcd-client");
        expect(n.chartWaitService).toBe("etcd-client");
        expect(etcdChartWaitServiceSpec(n)).toEqual({ selector: etcdLabels(n), ports: [{ name: "client", port: 2379 }] });
        expect(etcdChartWaitServiceSpec(n)).toEqual(etcdClientServiceSpec(n));
        expect(etcdChartWaitServiceSpec(n)).not.toHaveProperty("publishNotReadyAddresses");
    });
});

describe("critical priority on GKE (2)", () => {
    test("a quota scoped to both critical classes, 100 pods", () => {
        expect(criticalPodsQuotaSpec()).toEqual({
            hard: { pods: "100" },
            scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["system-node-critical", "system-cluster-critical"] }] },
        });
    });
});

describe("clients dial every member (3)", () => {
    test.each([3, 5])("%i members: %i URLs, each a member's stable name on the client port", (members) => {
        expect(etcdClusterNames("karmada-system", members).servers.split(",")).toEqual(
            Array.from({ length: members }, (_, i) => `https://karmada-etcd-${i}.karmada-etcd.karmada-system.svc.cluster.local:2379`),
        );
    });
});

const pod = (zoneSpread?: "required" | "preferred") =>
    etcdStatefulSetSpec(n, { volumeSize: "8Gi", certificateRevision: "r", zoneSpread }).template as { spec: Record<string, any> };

describe("readiness (4)", () => {
    const c = pod().spec.containers[0];
    test("bootstrap is the startup probe's (5 min); after it, 15 s out of the Services; liveness on /livez without a delay", () => {
        expect(c.startupProbe).toMatchObject({ httpGet: { path: "/readyz", port: 2381 }, periodSeconds: 5, failureThreshold: 60 });
        expect(c.readinessProbe).toMatchObject({ httpGet: { path: "/readyz", port: 2381 }, periodSeconds: 5, failureThreshold: 3 });
        expect(c.livenessProbe).toMatchObject({ httpGet: { path: "/livez", port: 2381 } });
        expect(c.livenessProbe).not.toHaveProperty("initialDelaySeconds");
    });
});

describe("zones (5)", () => {
    test("required by default: DoNotSchedule with minDomains = members; never two on a node", () => {
        const spec = pod().spec;
        expect(spec.topologySpreadConstraints).toEqual([
            {
                maxSkew: 1,
                topologyKey: "topology.kubernetes.io/zone",
                whenUnsatisfiable: "DoNotSchedule",
                minDomains: 3,
                labelSelector: { matchLabels: etcdLabels(n) },
            },
        ]);
        expect(spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).toBe("kubernetes.io/hostname");
        expect(etcdPlacement(etcdLabels(n), 5).topologySpreadConstraints).toMatchObject([{ minDomains: 5 }]);
    });

    test("preferred: ScheduleAnyway, no minDomains", () => {
        const [c] = pod("preferred").spec.topologySpreadConstraints;
        expect(c.whenUnsatisfiable).toBe("ScheduleAnyway");
        expect(c).not.toHaveProperty("minDomains");
    });
});

describe("space (6)", () => {
    test.each([
        ["500Mi", 200 * MiB],
        ["8Gi", 3276 * MiB],
        ["20Gi", 8 * GiB],
        ["100Gi", 8 * GiB],
        ["1Ti", 8 * GiB],
    ])("a %s volume: a quota of %i bytes (40%, whole MiB, at most 8 GiB)", (size, bytes) => {
        expect(quotaBackendBytes(size)).toBe(bytes);
        expect(quotaBackendBytes(size)).toBeLessThanOrEqual(Math.min(ETCD_MAX_QUOTA_BYTES, sizeBytes(size) / 2));
    });

    test("a size the schema would refuse is an error, not a guess", () => {
        expect(() => sizeBytes("8GB")).toThrow(/not a size such as 8Gi/);
    });

    test("the command line: the quota of the volume, periodic compaction", () => {
        const flags = etcdCommand(n, "20Gi");
        expect(flags).toContain(`--quota-backend-bytes=${8 * GiB}`);
        expect(flags).toEqual(expect.arrayContaining(["--auto-compaction-mode=periodic", "--auto-compaction-retention=1h"]));
        expect(pod().spec.containers[0].command).toContain(`--quota-backend-bytes=${3276 * MiB}`);
    });

    test("defragmentation: never two runs at once, every member healthy first, then one member at a time, with the client certificate", () => {
        const cron = etcdDefragCronJobSpec(n, "17 3 * * *") as any;
        expect(cron).toMatchObject({ schedule: "17 3 * * *", concurrencyPolicy: "Forbid", jobTemplate: { spec: { backoffLimit: 0 } } });
        const spec = cron.jobTemplate.spec.template.spec;
        const steps = spec.initContainers as Container[];
        expect(steps.map((s) => s.name)).toEqual(["health", "defrag-karmada-etcd-0", "defrag-karmada-etcd-1", "defrag-karmada-etcd-2"]);
        expect(steps[0].command).toEqual(expect.arrayContaining([`--endpoints=${n.servers}`, "endpoint", "health"]));
        steps.slice(1).forEach((s, i) => {
            expect(s.image).toBe(ETCD_IMAGE);
            expect(s.command).toEqual(
                expect.arrayContaining([`--endpoints=https://${n.memberHost(n.members[i])}:2379`, "defrag", "--cert=/etc/etcd/client/tls.crt"]),
            );
            expect(s.command.filter((f) => f.startsWith("--endpoints="))[0].split(",")).toHaveLength(1);
        });
        expect(spec).toMatchObject({
            restartPolicy: "Never",
            automountServiceAccountToken: false,
            volumes: [{ secret: { secretName: "karmada-etcd-client-cert" } }],
        });
    });
});

describe("resources and hardening (7)", () => {
    const spec = pod().spec;
    const c = spec.containers[0];
    test("no service account token, an unprivileged user whose group owns the volume, nothing writable but the volume", () => {
        expect(spec.automountServiceAccountToken).toBe(false);
        expect(spec.securityContext).toEqual({
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            fsGroup: 65532,
            seccompProfile: { type: "RuntimeDefault" },
        });
        expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
        expect(spec.volumes[0].secret.defaultMode).toBe(0o440);
    });

    test("requests of half a core and 1 GiB, no limits", () => {
        expect(c.resources).toEqual({ requests: { cpu: "500m", memory: "1Gi" } });
    });

    test("the image is the etcd the tests run (toolchain/versions.env)", () => {
        const version = /^ETCD_VERSION=v(\S+)$/m.exec(fs.readFileSync("toolchain/versions.env", "utf8"))![1];
        expect(ETCD_IMAGE).toBe(`registry.k8s.io/etcd:${version}-0`);
        expect(c.image).toBe(ETCD_IMAGE);
    });

    test("the NetworkPolicy: the two apiservers and Kamino's Jobs on 2379, the members on 2380, nothing else", () => {
        const policy = etcdNetworkPolicySpec(n) as any;
        expect(policy.podSelector).toEqual({ matchLabels: etcdLabels(n) });
        expect(policy.policyTypes).toEqual(["Ingress"]);
        expect(policy.ingress).toEqual([
            {
                from: [
                    { app: "karmada-apiserver" },
                    { app: "karmada-aggregated-apiserver" },
                    { app: "karmada-etcd-maintenance", "karmada.io/system": "true" },
                ].map((matchLabels) => ({ podSelector: { matchLabels } })),
                ports: [{ protocol: "TCP", port: 2379 }],
            },
            { from: [{ podSelector: { matchLabels: etcdLabels(n) } }], ports: [{ protocol: "TCP", port: 2380 }] },
        ]);
    });
});

describe("deletion (9)", () => {
    test("GKE's balanced disk, kept when its claim goes, made in the member's zone, expandable", () => {
        expect(etcdStorageClass()).toEqual({
            provisioner: "pd.csi.storage.gke.io",
            parameters: { type: "pd-balanced" },
            reclaimPolicy: "Retain",
            volumeBindingMode: "WaitForFirstConsumer",
            allowVolumeExpansion: true,
        });
    });
});

describe("KarmadaControlPlane off kind: what comes before the chart, and what is protected", () => {
    const captured: Record<string, pulumi.ResourceTransformationArgs> = {};
    let cp: KarmadaControlPlane;
    beforeAll(async () => {
        const run = new MockRun(false);
        await run.install();
        const capture: pulumi.ResourceTransformation = (a) => {
            captured[`${a.type} ${a.name}`] = a;
            return undefined;
        };
        const hostProvider = new k8s.Provider("hub", { kubeconfig: "apiVersion: v1\nkind: Config\n" });
        cp = new KarmadaControlPlane(
            "karmada",
            {
                clusterIdentifier: "karmada-hub",
                helm: {
                    hostProvider,
                    chartVersion: "v1.18.2",
                    chartRepo: "https://example.invalid/charts",
                    kubectlImage: "bitnamisecure/kubectl",
                    timeoutSeconds: 600,
                    featureGates: {},
                    published: { host: "203.0.113.10", port: 5443, authorizedNetworks: ["203.0.113.0/24"], etcd: {}, protect: true },
                },
            },
            { transformations: [capture] },
        );
        await run.settle();
    });
    const opts = (type: string, name: string) => captured[`${type} ${name}`].opts;
    const dependsOn = (type: string, name: string) => [opts(type, name).dependsOn].flat() as pulumi.Resource[];

    test("the chart's release and etcd's StatefulSet depend on the critical-pods quota; the release on the etcd-client Service too", () => {
        expect(cp.etcd!.criticalPodsQuota).toBeDefined();
        expect(dependsOn("kubernetes:helm.sh/v3:Release", "karmada-chart")).toEqual(
            expect.arrayContaining([cp.etcd!.criticalPodsQuota, cp.etcd!.chartWaitService, cp.etcd]),
        );
        expect(dependsOn("kubernetes:apps/v1:StatefulSet", "karmada-etcd-members")).toContain(cp.etcd!.criticalPodsQuota);
    });

    test("the quota and the etcd-client Service are made with the etcd, in karmada-system", async () => {
        const quota = captured["kubernetes:core/v1:ResourceQuota karmada-etcd-critical-pods"].props as any;
        expect(quota.spec).toEqual(criticalPodsQuotaSpec());
        const wait = captured["kubernetes:core/v1:Service karmada-etcd-chart-wait"].props as any;
        expect(wait.metadata.name).toBe("etcd-client");
        expect(await new Promise((r) => pulumi.output(wait.metadata.namespace).apply(r))).toBe("karmada-system");
    });

    test("protect on the namespace, the certificates and the StatefulSet; not on what is rebuilt from them", () => {
        const named = (name: string) => Object.values(captured).find((a) => a.name === name)!;
        for (const name of ["karmada-etcd-ns", "karmada-etcd-certificates", "karmada-etcd-members"])
            expect([name, named(name).opts.protect]).toEqual([name, true]);
        expect(opts("kubernetes:core/v1:Service", "karmada-etcd-client").protect).toBeFalsy();
    });

    test("no StorageClass of Kamino's on a host that is not gke: the provisioner is the cluster's", () => {
        expect(Object.keys(captured).filter((k) => k.startsWith("kubernetes:storage.k8s.io/v1:StorageClass"))).toEqual([]);
    });
});

/** The problems of a config, one per line ("" when it loads). */
function problemsOf(cfg: Record<string, unknown>): string {
    const raw = Object.fromEntries(Object.entries({ iko: { chartPath: FIXTURE_CHART }, ...cfg }).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]));
    try {
        loadFleetConfig(raw, { pathExists: () => true, readFile: () => "" });
        return "";
    } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        return e.problems.join("\n");
    }
}
const nets = ["198.51.100.7/32"];
const gke = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    provider: "gke",
    project: "p",
    region: "us-central1",
    authorizedNetworks: nets,
    ...extra,
});
const member = gke("m", { syncMode: "Pull" });
const karmada = (etcd?: Record<string, unknown>) => ({ authorizedNetworks: nets, ...(etcd ? { etcd } : {}) });

describe("config: zones, backups, control planes, each refused with key, value and fix before anything exists", () => {
    test.each<[string, Record<string, unknown>, RegExp]>([
        [
            "a zonal host for three members",
            { clusters: [gke("hub", { karmadaHost: true, region: undefined, zone: "us-central1-b" }), member], karmada: karmada() },
            /kamino:clusters\[0\]\.zone = "us-central1-b": the Karmada host 'hub' has nodes in 1 zone and Kamino's etcd has 3 members, one per zone .*; fix: make the host regional \(region: us-central1 instead of zone\), or set kamino:karmada\.etcd\.zoneSpread: preferred/,
        ],
        [
            "five members on GKE's default three zones",
            { clusters: [gke("hub", { karmadaHost: true }), member], karmada: karmada({ members: 5 }) },
            /kamino:karmada\.etcd\.members = 5: the Karmada host 'hub' has nodes in 3 zones .*; fix: list 5 zones of us-central1 in the host's nodeLocations/,
        ],
        [
            "nodeLocations of two zones for three members",
            { clusters: [gke("hub", { karmadaHost: true, nodeLocations: ["us-central1-a", "us-central1-b"] }), member], karmada: karmada() },
            /kamino:clusters\[0\]\.nodeLocations = \["us-central1-a","us-central1-b"\]: the Karmada host 'hub' has nodes in 2 zones/,
        ],
        [
            "a node zone outside the region",
            { clusters: [gke("hub", { karmadaHost: true, nodeLocations: ["europe-west1-b"] }), member], karmada: karmada({ zoneSpread: "preferred" }) },
            /kamino:clusters\[0\]\.nodeLocations\[0\] = "europe-west1-b": is not a zone of the cluster's region us-central1/,
        ],
        [
            "a spread that is neither",
            { clusters: [gke("hub", { karmadaHost: true }), member], karmada: karmada({ zoneSpread: "strict" }) },
            /kamino:karmada\.etcd\.zoneSpread = "strict": must be required or preferred/,
        ],
        [
            "a defragmentation schedule that is not cron",
            { clusters: [gke("hub", { karmadaHost: true }), member], karmada: karmada({ defragSchedule: "daily" }) },
            /kamino:karmada\.etcd\.defragSchedule = "daily": must be a cron schedule of five fields; fix: write minute hour/,
        ],
        [
            "a retention of no days",
            { clusters: [gke("hub", { karmadaHost: true }), member], karmada: karmada({ backup: { retentionDays: 0 } }) },
            /kamino:karmada\.etcd\.backup\.retentionDays = 0: must be at least 1 day; fix: keep snapshots for 1 day or more/,
        ],
        [
            "backups on an existing host",
            {
                clusters: [{ name: "hub", provider: "existing", kubeconfigPath: "hub.kubeconfig", karmadaHost: true }, member],
                karmada: { ...karmada({ backup: { retentionDays: 7 } }), endpoint: "k.example.com" },
            },
            /kamino:karmada\.etcd\.backup = \{.*\}: Kamino makes the backup bucket on GCP, for a gke host; 'hub' is an existing cluster; fix: remove backup/,
        ],
        [
            "a GKE member whose control plane nobody limits (11)",
            { clusters: [gke("hub", { karmadaHost: true }), gke("m", { syncMode: "Pull", authorizedNetworks: undefined })], karmada: karmada() },
            /kamino:clusters\[1\]\.authorizedNetworks is missing: nothing limits who may reach the control plane of 'm' \(GKE's master authorized networks\); fix: pulumi config set --path 'kamino:clusters\[1\]\.authorizedNetworks\[0\]' <CIDR>/,
        ],
        [
            "an empty list (11)",
            { clusters: [gke("hub", { karmadaHost: true, authorizedNetworks: [] }), member], karmada: karmada() },
            /kamino:clusters\[0\]\.authorizedNetworks = \[\]: nothing limits who may reach the control plane of 'hub'/,
        ],
        [
            "a GKE member of a kind host, too (11)",
            {
                clusters: [
                    { name: "hub", provider: "kind", karmadaHost: true },
                    gke("m", { zone: "us-central1-a", region: undefined, authorizedNetworks: undefined }),
                ],
            },
            /kamino:clusters\[1\]\.authorizedNetworks is missing/,
        ],
    ])("%s", (_what, cfg, expected) => expect(problemsOf(cfg)).toMatch(expected));

    test("what is right loads: three zones for three members, five listed for five, the spread relaxed on a zonal host, an existing host's zones its own", () => {
        expect(problemsOf({ clusters: [gke("hub", { karmadaHost: true }), member], karmada: karmada() })).toBe("");
        const five = ["a", "b", "c", "d", "f"].map((z) => `us-central1-${z}`);
        expect(problemsOf({ clusters: [gke("hub", { karmadaHost: true, nodeLocations: five }), member], karmada: karmada({ members: 5 }) })).toBe("");
        expect(
            problemsOf({
                clusters: [gke("hub", { karmadaHost: true, region: undefined, zone: "us-central1-b" }), member],
                karmada: karmada({ zoneSpread: "preferred" }),
            }),
        ).toBe("");
        expect(
            problemsOf({
                clusters: [{ name: "hub", provider: "existing", kubeconfigPath: "hub.kubeconfig", karmadaHost: true }, member],
                karmada: { ...karmada({ members: 5 }), endpoint: "k.example.com" },
            }),
        ).toBe("");
    });
});
