// The prod stack's GCP side and its state (issue 34, points 8-12) under mocks: the Retain class and
// protection, backups to a bucket Kamino makes, private members behind Cloud NAT whose addresses
// Kamino allows into Karmada, master authorized networks, and the warning for a file backend.
import * as pulumi from "@pulumi/pulumi";
import { currentBackendUrl, stateBackendWarning } from "../../components/checks/state-backend";
import { etcdBackupAccountId, etcdBackupBucketName, etcdBackupLocation } from "../../components/karmada/control-plane/etcd-backup";
import { kaminoProgram, kaminoStack } from "../../components/stack";
import { fakeAgentReadyWaiter, fakeCrdReader, fakeNatAddress, fakeRunningWaiter, FIXTURE_CHART, MockRun, plain, stackConfig } from "../support/mocks";
import { runStack } from "../support/stack-under-mocks";
import { healthyMachine } from "../support/standins";

const fakes = { crdReader: fakeCrdReader(), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter(), agentReadyWaiter: fakeAgentReadyWaiter() };
const prod = () => stackConfig("Pulumi.prod.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });

describe("the prod stack's GCP side", () => {
    const run = new MockRun(false);
    beforeAll(async () => {
        await run.install(prod(), [], "prod");
        kaminoStack(prod(), fakes);
        await run.settle();
    }, 60_000);

    test("etcd's volumes on Kamino's Retain class: GKE's balanced disk, in the member's zone (9)", () => {
        expect(run.get("kubernetes:storage.k8s.io/v1:StorageClass", "karmada-etcd-storage").inputs).toMatchObject({
            metadata: { name: "karmada-etcd-retain" },
            provisioner: "pd.csi.storage.gke.io",
            reclaimPolicy: "Retain",
            volumeBindingMode: "WaitForFirstConsumer",
            allowVolumeExpansion: true,
        });
        expect(run.get("kubernetes:apps/v1:StatefulSet", "karmada-etcd-members").inputs.spec.volumeClaimTemplates[0].spec.storageClassName).toBe(
            "karmada-etcd-retain",
        );
    });

    test("every GKE cluster: deletion protection, and its own control plane open only to its authorized networks (9, 11)", () => {
        const clusters = run.ofType("gcp:container/cluster:Cluster");
        expect(clusters.map((c) => c.inputs.name).sort()).toEqual(["iris-east", "iris-west", "kamino-hub"]);
        for (const c of clusters) {
            expect(c.inputs.deletionProtection).toBe(true);
            expect(c.inputs.masterAuthorizedNetworksConfig.cidrBlocks.map((b: { cidrBlock: string }) => b.cidrBlock)).toEqual([
                "203.0.113.0/24",
                "198.51.100.10/32",
            ]);
        }
    });

    test("members: private nodes, a Cloud NAT on a reserved address only; the hub keeps its nodes (10)", () => {
        const cluster = (name: string) => run.ofType("gcp:container/cluster:Cluster").find((c) => c.inputs.name === name)!;
        expect(cluster("kamino-hub").inputs).not.toHaveProperty("privateClusterConfig");
        for (const m of ["iris-east", "iris-west"]) {
            expect(cluster(m).inputs.privateClusterConfig).toEqual({ enablePrivateNodes: true, enablePrivateEndpoint: false });
            const address = run.get("gcp:compute/address:Address", `${m}-egress-ip-0`);
            expect(address.inputs).toMatchObject({ name: `${m}-egress-0`, addressType: "EXTERNAL", project: "my-gcp-project" });
            const nat = run.get("gcp:compute/routerNat:RouterNat", `${m}-egress-nat`).inputs;
            expect(nat).toMatchObject({
                natIpAllocateOption: "MANUAL_ONLY",
                natIps: [expect.stringContaining(`/addresses/${m}-egress-0`)],
                sourceSubnetworkIpRangesToNat: "LIST_OF_SUBNETWORKS",
            });
            expect(run.get("gcp:compute/router:Router", `${m}-egress-router`).inputs).toMatchObject({ network: "default", region: cluster(m).inputs.location });
        }
        const ranges = run.get("kubernetes:core/v1:Service", "karmada-api-lb").inputs.spec.loadBalancerSourceRanges;
        expect(ranges).toEqual(expect.arrayContaining(["iris-east", "iris-west"].map((m) => `${fakeNatAddress(`${m}-egress-ip-0`)}/32`)));
    });

    test("backups: a versioned, private bucket named by project and stack, in the hub's multi-region, with the stack's retention; protected (8)", () => {
        const bucket = run.get("gcp:storage/bucket:Bucket", "karmada-etcd-backup-bucket").inputs;
        expect(bucket).toMatchObject({
            name: "my-gcp-project-prod-karmada-etcd",
            location: "EU",
            uniformBucketLevelAccess: true,
            publicAccessPrevention: "enforced",
            versioning: { enabled: true },
            forceDestroy: false,
            lifecycleRules: [
                { action: { type: "Delete" }, condition: { age: 30 } },
                { action: { type: "Delete" }, condition: { daysSinceNoncurrentTime: 30, withState: "ARCHIVED" } },
            ],
        });
    });

    test("backups: a GCP account that may only create objects there, which the Job's ServiceAccount becomes by Workload Identity (8)", () => {
        const email = "etcd-backup-kamino-hub@my-gcp-project.iam.gserviceaccount.com";
        expect(run.get("gcp:storage/bucketIAMMember:BucketIAMMember", "karmada-etcd-backup-writer-creates").inputs).toMatchObject({
            bucket: "my-gcp-project-prod-karmada-etcd",
            role: "roles/storage.objectCreator",
            member: `serviceAccount:${email}`,
        });
        expect(run.get("gcp:serviceaccount/iAMMember:IAMMember", "karmada-etcd-backup-workload-identity").inputs).toMatchObject({
            role: "roles/iam.workloadIdentityUser",
            member: "serviceAccount:my-gcp-project.svc.id.goog[karmada-system/karmada-etcd-backup]",
        });
        expect(run.get("kubernetes:core/v1:ServiceAccount", "karmada-etcd-backup-sa").inputs.metadata).toMatchObject({
            name: "karmada-etcd-backup",
            namespace: "karmada-system",
            annotations: { "iam.gke.io/gcp-service-account": email },
        });
    });

    test("backups: hourly, never overlapping, a snapshot from a ready member uploaded by the Cloud SDK image (8)", () => {
        const cron = plain(run.get("kubernetes:batch/v1:CronJob", "karmada-etcd-backup-job").inputs.spec) as any;
        expect(cron).toMatchObject({ schedule: "23 * * * *", concurrencyPolicy: "Forbid" });
        const spec = cron.jobTemplate.spec.template.spec;
        expect(spec.serviceAccountName).toBe("karmada-etcd-backup");
        expect(spec.initContainers[0].command).toEqual(
            expect.arrayContaining([
                "--endpoints=https://karmada-etcd-client.karmada-system.svc.cluster.local:2379",
                "snapshot",
                "save",
                "/backup/snapshot.db",
            ]),
        );
        expect(spec.containers[0].image).toBe("gcr.io/google.com/cloudsdktool/google-cloud-cli:slim");
        expect(spec.containers[0].env).toEqual(expect.arrayContaining([{ name: "BUCKET", value: "my-gcp-project-prod-karmada-etcd" }]));
        expect(spec.containers[0].volumeMounts.map((m: { name: string }) => m.name)).not.toContain("client-cert");
        expect(run.get("kubernetes:batch/v1:CronJob", "karmada-etcd-defrag").inputs.spec.schedule).toBe("17 3 * * *");
    });
});

test("the gcp stack (Karmada on kind) is unchanged where the issue does not ask: its GKE member keeps public nodes and can be destroyed; its control plane gets the listed networks", async () => {
    const config = stackConfig("Pulumi.gcp.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });
    const { run } = await runStack(config, { stack: "gcp" });
    const [gke] = run.ofType("gcp:container/cluster:Cluster");
    expect(gke.inputs.deletionProtection).toBe(false);
    expect(gke.inputs).not.toHaveProperty("privateClusterConfig");
    expect(gke.inputs.masterAuthorizedNetworksConfig).toEqual({ cidrBlocks: [{ cidrBlock: "203.0.113.7/32" }] });
    expect(run.ofType("gcp:storage/bucket:Bucket")).toEqual([]);
}, 60_000);

describe("names of the backup's GCP objects", () => {
    test("bucket: project and stack, lower case, at most 63 characters", () => {
        expect(etcdBackupBucketName("my-gcp-project", "prod")).toBe("my-gcp-project-prod-karmada-etcd");
        expect(etcdBackupBucketName("p", "Team_Prod")).toBe("p-team-prod-karmada-etcd");
        expect(etcdBackupBucketName("a".repeat(30), "b".repeat(30)).length).toBeLessThanOrEqual(63);
    });
    test("location: the multi-region holding the region, else the region", () => {
        expect(["europe-west1", "us-east1", "asia-east1", "australia-southeast1"].map(etcdBackupLocation)).toEqual([
            "EU",
            "US",
            "ASIA",
            "australia-southeast1",
        ]);
    });
    test("account: 6 to 30 characters", () => {
        expect(etcdBackupAccountId("kamino-hub")).toBe("etcd-backup-kamino-hub");
        expect(etcdBackupAccountId("a-very-long-cluster-name-indeed").length).toBeLessThanOrEqual(30);
    });
});

describe("the state backend (12)", () => {
    const files = (map: Record<string, string>) => (f: string) => map[f];
    const at = { projectDir: "/p", home: "/home/u" };
    test("read as the CLI reads it: PULUMI_BACKEND_URL, then Pulumi.yaml's backend.url, then the login", () => {
        const project = { "/p/Pulumi.yaml": "name: kamino\nbackend:\n  url: file://~\n" };
        const login = { "/home/u/.pulumi/credentials.json": JSON.stringify({ current: "gs://team-state" }) };
        expect(currentBackendUrl({ ...at, env: { PULUMI_BACKEND_URL: "gs://ci-state" }, readFile: files({ ...project, ...login }) })).toBe("gs://ci-state");
        expect(currentBackendUrl({ ...at, env: {}, readFile: files({ ...project, ...login }) })).toBe("file://~");
        expect(currentBackendUrl({ ...at, env: {}, readFile: files({ "/p/Pulumi.yaml": "name: kamino\n", ...login }) })).toBe("gs://team-state");
        expect(
            currentBackendUrl({ ...at, env: { PULUMI_HOME: "/ph" }, readFile: files({ "/ph/credentials.json": JSON.stringify({ current: "s3://x" }) }) }),
        ).toBe("s3://x");
        expect(currentBackendUrl({ ...at, env: {}, readFile: files({}) })).toBeUndefined();
    });

    test("a warning only for a Karmada off kind on a file backend, with the fix", () => {
        expect(stateBackendWarning("file://~", "gke")).toMatch(
            /^the state of this stack \(Karmada on a gke host\) is in a file backend on this machine \(file:\/\/~\).*; fix: .*PULUMI_BACKEND_URL=gs:\/\/<bucket>.*KMS secrets provider/,
        );
        expect(stateBackendWarning("file:///srv/state", "existing")).toBeDefined();
        expect(stateBackendWarning("file://~", "kind")).toBeUndefined();
        expect(stateBackendWarning("gs://team-state", "gke")).toBeUndefined();
        expect(stateBackendWarning(undefined, "gke")).toBeUndefined();
    });

    test("`up` of the prod stack on a file backend warns once, before anything; on gs:// not at all", async () => {
        for (const [url, expected] of [
            ["file://~", 1],
            ["gs://team-state", 0],
        ] as const) {
            const run = new MockRun(false);
            await run.install(prod(), [], "prod");
            const warn = jest.spyOn(pulumi.log, "warn").mockImplementation(async () => undefined);
            await kaminoProgram(prod(), {
                ...fakes,
                backendSources: { env: { PULUMI_BACKEND_URL: url }, readFile: () => undefined, projectDir: "/p", home: "/h" },
            });
            await run.settle();
            expect([url, warn.mock.calls.filter(([m]) => /file backend/.test(String(m))).length]).toEqual([url, expected]);
            warn.mockRestore();
        }
    }, 120_000);
});
