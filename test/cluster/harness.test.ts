// The loopback harness itself: every process comes up; a member joined in Push mode (the objects
// `karmadactl join` creates, over HTTPS) turns Ready; a PropagationPolicy carries a ConfigMap from
// Karmada to the members; deleting the Cluster unjoins cleanly; a start that fails part-way cleans up.
// Nothing a test starts outlives it: killTree() and jest's process reaper (process-cleanup.test.ts).
// Members: KAMINO_HARNESS_MEMBERS (default 1). Timings are printed at the end (and written to
// KAMINO_HARNESS_TIMINGS_FILE if set).
import * as fs from "fs";
import * as path from "path";
import { processesWithEnv, RUN_ENV, runTempDir } from "../support/process-reaper";
import { ApiProber } from "./api-prober";
import { APISERVER_HTTP2_GIVE_UP_S } from "../../components/karmada/control-plane/apiserver-health-check";
import {
    ApiServer,
    CLUSTER_API_VERSION,
    CLUSTER_API_SERVICE,
    clusterCondition,
    findBinaries,
    FreezableFront,
    joinCluster,
    joinNames,
    KARMADA_CLUSTER_NAMESPACE,
    KarmadaClusterObject,
    KubeObject,
    LoopbackFleet,
    removeMemberJoinObjects,
    resourcePath,
} from "./harness";

const MEMBERS = Number(process.env.KAMINO_HARNESS_MEMBERS ?? "1");
const NS = "kamino-harness";
const CM = "harness-config";
const POLICY = "harness-config";

jest.setTimeout(10 * 60_000);

const measured: { what: string; ms: number }[] = [];
async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const t = Date.now();
    const out = await fn();
    measured.push({ what, ms: Date.now() - t });
    return out;
}

let fleet: LoopbackFleet;
const karmada = () => fleet.karmada.client;
const cmPath = (namespace = NS) => resourcePath("v1", "configmaps", { namespace, name: CM });
const clusterPath = (name: string) => resourcePath(CLUSTER_API_VERSION, "clusters", { name });
type ConfigMap = KubeObject & { data?: Record<string, string> };

/** Every process of the fleet runs, every API server answers as system:masters, and Karmada serves its APIs. */
async function everyProcessUpAndReady(): Promise<void> {
    fleet.assertRunning();
    const names = fleet.processes.map((p) => p.name).sort();
    const clusters = ["host", ...fleet.members.map((m) => m.name), "karmada"];
    expect(names).toEqual(
        [
            "etcd",
            ...clusters.flatMap((c) => [`${c}-apiserver`, `${c}-kube-controller-manager`]),
            "karmada-aggregated-apiserver",
            "karmada-controller-manager",
            "karmada-scheduler",
            "karmada-webhook",
        ].sort(),
    );
    expect(fleet.members).toHaveLength(MEMBERS);
    expect(Object.keys(fleet.memberKubeconfigs)).toEqual(fleet.members.map((m) => m.name));
    const servers: ApiServer[] = [fleet.host, ...fleet.members, fleet.karmada];
    for (const s of servers) {
        expect(fs.existsSync(s.kubeconfig)).toBe(true);
        expect(s.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        expect((await s.client.request("GET", "/readyz")).status).toBe(200);
        // The admin user is in system:masters.
        const review = await s.client.create<KubeObject & { status?: { userInfo?: { groups?: string[] } } }>(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            {
                apiVersion: "authentication.k8s.io/v1",
                kind: "SelfSubjectReview",
            },
        );
        expect(review.status?.userInfo?.groups).toContain("system:masters");
    }
    const apiService = await karmada().get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
        "/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.cluster.karmada.io",
    );
    expect(apiService?.status?.conditions?.find((c) => c.type === "Available")?.status).toBe("True");
    expect((await karmada().request("GET", "/apis/cluster.karmada.io/v1alpha1/clusters")).status).toBe(200);
    expect(await karmada().get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/propagationpolicies.policy.karmada.io")).toBeDefined();
}

/** Joins every member in Push mode (the objects `karmadactl join` creates) and waits for its Cluster to turn Ready. */
async function joinEveryMember(): Promise<void> {
    await Promise.all(
        fleet.members.map(async (m) => {
            const t = Date.now();
            const { tokenMs } = await joinCluster({ clusterName: m.name, member: m.client, karmada: karmada(), apiEndpoint: m.server });
            measured.push({ what: `${m.name}: member token Secrets populated`, ms: tokenMs });
            const tCreated = Date.now();
            measured.push({ what: `${m.name}: join objects created (incl. token wait)`, ms: tCreated - t });
            const ready = await fleet.waitFor(
                `Cluster ${m.name} Ready`,
                async () => {
                    const c = await karmada().get<KarmadaClusterObject>(clusterPath(m.name));
                    const cond = clusterCondition(c, "Ready");
                    if (cond?.status === "True") return c;
                    throw new Error(`Ready=${cond?.status ?? "absent"} ${cond?.reason ?? ""} ${cond?.message ?? ""}`);
                },
                180_000,
                250,
            );
            measured.push({ what: `${m.name}: Cluster created -> Ready`, ms: Date.now() - tCreated });
            expect(ready.status?.kubernetesVersion).toMatch(/^v1\./);
            expect(ready.metadata?.finalizers).toContain("karmada.io/cluster-controller");
            // Karmada's execution space for the member.
            expect(await karmada().get(resourcePath("v1", "namespaces", { name: `karmada-es-${m.name}` }))).toBeDefined();
        }),
    );
}

/** A ConfigMap template and its PropagationPolicy: created, updated and deleted on every member. */
async function propagateAConfigMap(): Promise<void> {
    const k = karmada();
    const members = fleet.members;
    await k.apply(resourcePath("v1", "namespaces", { name: NS }), { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    const policy = await k.create(resourcePath("policy.karmada.io/v1alpha1", "propagationpolicies", { namespace: NS }), {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: POLICY, namespace: NS },
        spec: {
            resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: CM }],
            placement: { clusterAffinity: { clusterNames: members.map((m) => m.name) } },
        },
    });
    // karmada-webhook's mutating hook stamps the permanent id the controllers rely on.
    expect(policy.metadata?.labels?.["propagationpolicy.karmada.io/permanent-id"]).toBeTruthy();

    const t = Date.now();
    await k.create(resourcePath("v1", "configmaps", { namespace: NS }), {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: CM, namespace: NS },
        data: { generation: "1" },
    });
    await Promise.all(
        members.map(async (m) => {
            const cm = await fleet.waitFor(`ConfigMap ${NS}/${CM} in ${m.name}`, async () => m.client.get<ConfigMap>(cmPath()), 120_000, 200);
            measured.push({ what: `${m.name}: ConfigMap created in Karmada -> present in member`, ms: Date.now() - t });
            expect(cm.data).toEqual({ generation: "1" });
            expect(cm.metadata?.labels?.["karmada.io/managed"]).toBe("true");
        }),
    );

    const binding = await fleet.waitFor(
        `ResourceBinding ${CM}-configmap FullyApplied`,
        async () => {
            const rb = await k.get<
                KubeObject & {
                    status?: { conditions?: { type: string; status: string }[]; aggregatedStatus?: { clusterName: string; applied?: boolean }[] };
                }
            >(resourcePath("work.karmada.io/v1alpha2", "resourcebindings", { namespace: NS, name: `${CM}-configmap` }));
            return rb?.status?.conditions?.some((c) => c.type === "FullyApplied" && c.status === "True") ? rb : undefined;
        },
        60_000,
    );
    expect(binding.status?.aggregatedStatus?.map((a) => a.clusterName).sort()).toEqual(members.map((m) => m.name).sort());

    const tUpdate = Date.now();
    await k.mergePatch(cmPath(), { data: { generation: "2" } });
    await Promise.all(
        members.map(async (m) => {
            await fleet.waitFor(
                `ConfigMap ${NS}/${CM} updated in ${m.name}`,
                async () => ((await m.client.get<ConfigMap>(cmPath()))?.data?.generation === "2" ? true : undefined),
                120_000,
                200,
            );
            measured.push({ what: `${m.name}: ConfigMap update -> member`, ms: Date.now() - tUpdate });
        }),
    );

    // Workloads and policies go before the Cluster objects (Kamino's destroy order).
    const tDelete = Date.now();
    await k.delete(cmPath());
    await Promise.all(
        members.map(async (m) => {
            await fleet.waitFor(`ConfigMap ${NS}/${CM} deleted from ${m.name}`, async () => ((await m.client.get(cmPath())) ? undefined : true), 120_000, 200);
            measured.push({ what: `${m.name}: ConfigMap delete -> gone from member`, ms: Date.now() - tDelete });
        }),
    );
    await k.delete(resourcePath("policy.karmada.io/v1alpha1", "propagationpolicies", { namespace: NS, name: POLICY }));
}

/** Deletes every member's Cluster and removes its member-side join objects, as `karmadactl unjoin` does. */
async function unjoinEveryMember(): Promise<void> {
    const k = karmada();
    await Promise.all(
        fleet.members.map(async (m) => {
            const n = joinNames(m.name);
            const t = Date.now();
            expect(await k.delete(clusterPath(m.name))).toBe(true);
            await fleet.waitFor(`Cluster ${m.name} gone`, async () => ((await k.get(clusterPath(m.name))) ? undefined : true), 180_000, 250);
            measured.push({ what: `${m.name}: Cluster delete -> gone`, ms: Date.now() - t });
            expect(await k.get(resourcePath("v1", "namespaces", { name: `karmada-es-${m.name}` }))).toBeUndefined();
            // The credentials Secrets in Karmada follow their owner, the Cluster (garbage collector).
            for (const s of [n.credentialsSecret, n.impersonatorSecret]) {
                await fleet.waitFor(
                    `Karmada Secret ${KARMADA_CLUSTER_NAMESPACE}/${s} garbage-collected`,
                    async () => ((await k.get(resourcePath("v1", "secrets", { namespace: KARMADA_CLUSTER_NAMESPACE, name: s }))) ? undefined : true),
                    60_000,
                );
            }
            measured.push({ what: `${m.name}: Cluster delete -> Karmada-side Secrets collected`, ms: Date.now() - t });
            // What Karmada propagated (the namespace) leaves the member with the Cluster.
            await fleet.waitFor(
                `namespace ${NS} gone from ${m.name}`,
                async () => ((await m.client.get(resourcePath("v1", "namespaces", { name: NS }))) ? undefined : true),
                120_000,
            );
            // `karmadactl unjoin --cluster-kubeconfig`: the member-side join objects.
            await removeMemberJoinObjects(m.client, m.name);
            await fleet.waitFor(
                `namespace ${KARMADA_CLUSTER_NAMESPACE} gone from ${m.name}`,
                async () => ((await m.client.get(resourcePath("v1", "namespaces", { name: KARMADA_CLUSTER_NAMESPACE }))) ? undefined : true),
                120_000,
            );
            expect(await m.client.get(resourcePath("rbac.authorization.k8s.io/v1", "clusterroles", { name: n.clusterRole }))).toBeUndefined();
            measured.push({ what: `${m.name}: unjoin complete (both sides)`, ms: Date.now() - t });
        }),
    );
    expect(((await k.get<KubeObject & { items: unknown[] }>(resourcePath(CLUSTER_API_VERSION, "clusters")))?.items ?? []).length).toBe(0);
    fleet.assertRunning();
}

/**
 * Karmada's apiserver gives up a connection to the aggregated apiserver that stopped answering (its
 * node lost power) within the HTTP/2 health check Kamino sets (apiserver-health-check.ts), not
 * client-go's default 45 s: the connection the aggregator pools is frozen, and a new one passes.
 */
async function aHungAggregatedConnectionIsGivenUp(): Promise<void> {
    const k = karmada();
    const apiService = resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: CLUSTER_API_SERVICE });
    const port = (await k.get<KubeObject & { spec: { service: { port: number } } }>(apiService))!.spec.service.port;
    const front = await new FreezableFront(port).start();
    const route = (to: number) => k.request("PATCH", apiService, { spec: { service: { port: to } } }, "application/merge-patch+json");
    try {
        expect((await route(front.port)).status).toBe(200);
        await fleet.waitFor(
            "cluster.karmada.io answered through the front",
            async () => ((await k.request("GET", resourcePath(CLUSTER_API_VERSION, "clusters"))).status === 200 && front.connections > 0 ? true : undefined),
            30_000,
        );
        const prober = new ApiProber(k.credentials).start();
        await new Promise((r) => setTimeout(r, 2000));
        expect(front.freeze()).toBeGreaterThan(0);
        await new Promise((r) => setTimeout(r, 25_000));
        const r = await prober.stop();
        console.log(`the aggregated apiserver's connection frozen: ${JSON.stringify(r)}`);
        // The calls did wait on the frozen connection (else this proves nothing), and no longer than
        // the health check (5 s idle + 5 s ping) and the probe's 2 s and a new connection. With
        // client-go's defaults the gap runs to the end of the 25 s.
        expect(r.failed).toBeGreaterThan(0);
        expect(r.longestGap_s).toBeLessThanOrEqual(APISERVER_HTTP2_GIVE_UP_S + 4);
        expect(r.longestGap_s).toBeGreaterThanOrEqual(APISERVER_HTTP2_GIVE_UP_S - 1);
    } finally {
        await route(port);
        await front.close();
    }
}

describe("LoopbackFleet", () => {
    beforeAll(async () => {
        fleet = new LoopbackFleet({ members: MEMBERS });
        await timed("fleet.start()", () => fleet.start());
    }, 15 * 60_000);

    afterAll(async () => {
        if (fleet) await timed("fleet.stop()", () => fleet.stop());
        const lines = [
            `loopback fleet with ${MEMBERS} member(s):`,
            ...(fleet?.timings ?? []).map((t) => `  start  ${t.step}: ${(t.ms / 1000).toFixed(2)} s`),
            ...measured.map((m) => `  test   ${m.what}: ${(m.ms / 1000).toFixed(2)} s`),
        ];
        console.log(lines.join("\n"));
        if (process.env.KAMINO_HARNESS_TIMINGS_FILE) {
            fs.writeFileSync(process.env.KAMINO_HARNESS_TIMINGS_FILE, JSON.stringify({ members: MEMBERS, start: fleet?.timings, test: measured }, null, 2));
        }
    }, 120_000);

    test("all processes come up and every API server is ready", everyProcessUpAndReady);

    test("every fleet process carries this jest run's mark, so the process reaper would stop it", () => {
        expect(process.env[RUN_ENV]).toBeTruthy();
        const marked = processesWithEnv(RUN_ENV, process.env[RUN_ENV]!);
        expect(fleet.processes.filter((p) => !marked.includes(p.pid)).map((p) => p.name)).toEqual([]);
    });

    test("a Cluster created through the aggregated API turns Ready for each member", joinEveryMember);

    test("a PropagationPolicy propagates a ConfigMap template to the members", propagateAConfigMap);

    test("deleting a Cluster unjoins the member cleanly", unjoinEveryMember);

    test("a frozen connection to the aggregated apiserver is given up within Kamino's HTTP/2 health check", aHungAggregatedConnectionIsGivenUp);
});

describe("LoopbackFleet start failure", () => {
    test("a start that fails part-way names the process, shows its log and cleans up", async () => {
        const scratch = runTempDir("kamino-fake-");
        const fake = path.join(scratch, "karmada-webhook");
        fs.writeFileSync(fake, "#!/bin/sh\necho 'fake webhook: cannot start' >&2\nexit 3\n", { mode: 0o755 });
        const broken = new LoopbackFleet({ members: 1, binaries: { ...findBinaries(), "karmada-webhook": fake } });
        try {
            const err = await broken.start().then(
                () => undefined,
                (e: Error) => e,
            );
            expect(err?.message).toMatch(/karmada-webhook exited with code 3 while waiting for karmada-webhook/);
            expect(err?.message).toContain("fake webhook: cannot start");
            expect(err?.message).toContain("harness dir removed");
            expect(fs.existsSync(broken.dir)).toBe(false);
            expect(broken.processes.length).toBeGreaterThan(3);
            expect(broken.processes.filter((p) => p.exit === undefined).map((p) => p.name)).toEqual([]);
        } finally {
            await broken.stop();
            fs.rmSync(scratch, { recursive: true, force: true });
        }
    });
});
