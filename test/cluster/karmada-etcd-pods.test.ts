// Karmada's etcd off kind, as real pods: `pulumi up` (the real engine) of Kamino's KarmadaEtcd on a
// three-node cluster in three zones whose API server admits critical-priority pods only where a
// ResourceQuota allows them, as GKE's does. Proven: the three members are scheduled one per node and
// zone, bootstrap, are Ready and healthy as one cluster; and the karmada-apiserver's `wait` init
// container of Karmada's chart finds what it waits for: the container itself, as Helm renders the
// chart (at the default version, with Kamino's highly available values) from ../shared/charts, run in
// a pod of its own in the image built here (`curl` on the service-link variables of a Service named
// `etcd-client`); without that Service it never ends, which the test also shows.
// The same host first proves the real-node layer itself (pods, Services, DNS, logs across its nodes)
// and at the end that closing it leaves nothing behind (real-node-checks.ts).
import * as path from "path";
import { KubeObject, resourcePath, waitFor } from "./harness";
import { SHARED_CHARTS_DIR } from "./harness/chart-repository";
import { renderChart } from "./harness/helm";
import { criticalPodsQuota, RealNodeCluster, RealNodes, SHELL_IMAGE } from "./nodes";
import { getPod, podLogs, waitForPodPhase } from "./nodes/pods";
import { EngineSandbox, toolchainPath } from "../support/engine";
import { KARMADA_NAMESPACE as NS, realEtcdHost, RealEtcdTimings } from "./real-etcd-stack";
import { DEFAULTS } from "../../components/config";
import { karmadaChartValues } from "../../components/karmada/control-plane/chart-values";
import { ETCD_IMAGE, etcdClusterNames } from "../../components/karmada/control-plane/etcd-cluster";
import { expectCloseLeavesNothing, expectPodsRunAcrossNodes } from "./real-node-checks";

jest.setTimeout(15 * 60_000);

const n = etcdClusterNames(NS);
let nodes: RealNodes | undefined;
let host: RealNodeCluster;
let sandbox: EngineSandbox;
/** The bench's real-node row, as this run saw it (npm run bench times the same function). */
let timings: RealEtcdTimings;

/** The karmada-apiserver's `wait` init container, as the chart renders it over Kamino's etcd. */
function chartWaitContainer(): Record<string, unknown> {
    const values = karmadaChartValues({
        kubectlImage: DEFAULTS.karmadaKubectlImage,
        featureGates: {},
        published: { host: "203.0.113.10", etcdServers: n.servers },
    });
    const objects = renderChart(path.join(SHARED_CHARTS_DIR, `karmada-chart-${DEFAULTS.karmadaChartVersion}.tgz`), values);
    const apiserver = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "karmada-apiserver") as
        { spec: { template: { spec: { initContainers: { name: string }[] } } } } | undefined;
    const wait = apiserver?.spec.template.spec.initContainers.find((c) => c.name === "wait");
    if (!wait) throw new Error("the chart's karmada-apiserver has no `wait` init container any more: read its templates again");
    return wait;
}

/** A pod shaped like the chart's karmada-apiserver: its own `wait` init container, then a container that says it started. */
function chartApiserverPod(name: string, namespace: string): KubeObject {
    return {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace },
        spec: {
            restartPolicy: "Never",
            enableServiceLinks: true,
            initContainers: [chartWaitContainer()],
            containers: [{ name: "apiserver", image: SHELL_IMAGE, imagePullPolicy: "Never", command: ["sh", "-c", "echo started"] }],
        },
    } as KubeObject;
}

/** Runs etcdctl once in a pod (the members' image, their certificate) and returns what it printed. */
async function etcdctl(name: string, args: string[], endpoints = [n.members[0]]): Promise<string> {
    const pki = "/etc/etcd/pki";
    await host.applyAll([
        {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name, namespace: NS },
            spec: {
                restartPolicy: "Never",
                containers: [
                    {
                        name: "etcdctl",
                        image: ETCD_IMAGE,
                        command: [
                            "etcdctl",
                            `--endpoints=${endpoints.map((m) => `https://${n.memberHost(m)}:2379`).join(",")}`,
                            `--cacert=${pki}/ca.crt`,
                            `--cert=${pki}/tls.crt`,
                            `--key=${pki}/tls.key`,
                            ...args,
                        ],
                        volumeMounts: [{ name: "certs", mountPath: pki, readOnly: true }],
                    },
                ],
                volumes: [{ name: "certs", secret: { secretName: n.certSecret } }],
            },
        } as KubeObject,
    ]);
    const pod = await waitForPodPhase(host.client, NS, name, ["Succeeded", "Failed"], 120_000);
    const out = await podLogs(host.client, NS, name);
    if (pod.status?.phase !== "Succeeded") {
        const members = await Promise.all(n.members.map((m) => getPod(host.client, NS, m)));
        const states = members.map((p) => `${p?.metadata?.name} ${p?.status?.podIP} ${JSON.stringify(p?.status?.containerStatuses?.[0])}`);
        throw new Error(`etcdctl ${args.join(" ")} failed: ${out}\nmembers:\n${states.join("\n")}`);
    }
    return out;
}

beforeAll(async () => {
    nodes = RealNodes.create({ karmadaChartImages: "jobs" });
    sandbox = new EngineSandbox(toolchainPath("engine"));
    // Two volumes a node: a replaced member gets a new one beside the Released one it lost.
    ({ host, timings } = await realEtcdHost(nodes, sandbox, { host: "etcdhost", stack: "etcd-pods" }, 2));
    console.log(`a three-node host, then Kamino's etcd up on real pods (s): ${JSON.stringify(timings)}`);
});

afterAll(async () => {
    sandbox?.cleanup();
    await nodes?.close();
});

test("pods run: IPs, a ClusterIP Service across nodes, cluster DNS, service links and logs", () => expectPodsRunAcrossNodes(host));

test("GKE's limit holds here: a critical-priority pod outside kube-system, without a quota, is refused", async () => {
    await host.applyAll([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "no-quota" } }]);
    const refused = await host.client.request("POST", resourcePath("v1", "pods", { namespace: "no-quota" }), {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "critical" },
        spec: { priorityClassName: "system-node-critical", containers: [{ name: "c", image: SHELL_IMAGE }] },
    });
    // The ResourceQuota admission plugin returns a plain error here (apiserver's resourcequota/controller.go): HTTP 500.
    expect({ status: refused.status, body: refused.body.slice(0, 300) }).toEqual({
        status: 500,
        body: expect.stringContaining("insufficient quota to match these scopes"),
    });
    await host.applyAll([criticalPodsQuota("no-quota", "critical-pods")]);
});

test("pulumi up runs Kamino's etcd as three real members, one per node and zone, Ready and healthy", async () => {
    expect(timings.up_real_s).toBeCloseTo(timings.host_start_s + timings.etcd_up_s, 0);
    const pods = await Promise.all(n.members.map((m) => getPod(host.client, NS, m)));
    const zoneOf = new Map(host.nodes.map((node) => [node.name, node.layout.labels["topology.kubernetes.io/zone"]]));
    expect(pods.map((p) => p?.status?.containerStatuses?.[0]?.ready)).toEqual([true, true, true]);
    expect(new Set(pods.map((p) => zoneOf.get(p!.spec!.nodeName!))).size).toBe(3);

    // The members' own view: one cluster of three, each healthy (etcdctl with the members' certificate).
    expect((await etcdctl("etcd-health", ["endpoint", "health"], n.members)).match(/is healthy/g)).toHaveLength(3);
});

test("the chart's karmada-apiserver `wait` init container ends: an etcd-client Service answers for Kamino's members", async () => {
    await host.applyAll([chartApiserverPod("chart-apiserver", NS)]);
    const pod = await waitForPodPhase(host.client, NS, "chart-apiserver", ["Succeeded", "Failed"], 90_000);
    expect(pod.status?.phase).toBe("Succeeded");
    expect(await podLogs(host.client, NS, "chart-apiserver", "wait")).toMatch(/successfully connect to \d+\.\d+\.\d+\.\d+:2379/);
});

test("without an etcd-client Service the same wait loop never ends (the hang the chart shows)", async () => {
    await host.applyAll([chartApiserverPod("chart-apiserver", "no-quota")]);
    await new Promise((r) => setTimeout(r, 20_000));
    const pod = await getPod(host.client, "no-quota", "chart-apiserver");
    expect(pod?.status?.phase).toBe("Pending");
    expect(pod?.status?.initContainerStatuses?.[0]?.state).toHaveProperty("running");
    expect(await podLogs(host.client, "no-quota", "chart-apiserver", "wait")).toContain("failed to connect to :");
});

test("the defragmentation CronJob's Job runs: every member healthy, then one member at a time", async () => {
    const cron = (await host.client.get(resourcePath("batch/v1", "cronjobs", { namespace: NS, name: "karmada-etcd-defrag" }))) as {
        spec: { jobTemplate: { spec: Record<string, unknown> } };
    };
    await host.applyAll([
        { apiVersion: "batch/v1", kind: "Job", metadata: { name: "defrag-now", namespace: NS }, spec: cron.spec.jobTemplate.spec } as KubeObject,
    ]);
    const done = await waitFor(
        "Job defrag-now finished",
        async () => {
            const job = (await host.client.get(resourcePath("batch/v1", "jobs", { namespace: NS, name: "defrag-now" }))) as {
                status?: { succeeded?: number; failed?: number };
            };
            return job.status?.succeeded || job.status?.failed ? job.status : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 1000 },
    );
    expect(done).toMatchObject({ succeeded: 1 });
});

type MemberList = { members: { ID: number | string; name: string; clientURLs?: string[] }[] };

test("a member whose volume is lost is replaced by docs/production.md's steps: remove, new volume, add, start as existing", async () => {
    const last = n.members[n.members.length - 1];
    const before = JSON.parse(await etcdctl("list-before", ["member", "list", "-w", "json", "--hex"])) as MemberList;
    const id = before.members.find((m) => m.name === last)!.ID;
    // 2. member remove; 3. its claim deleted (the volume is lost; the Retain PV stays Released).
    await etcdctl("remove", ["member", "remove", String(id)]);
    await host.client.delete(resourcePath("v1", "persistentvolumeclaims", { namespace: NS, name: `data-${last}` }));
    // 4. member add, under its stable name.
    await etcdctl("add", ["member", "add", last, `--peer-urls=https://${n.memberHost(last)}:2380`]);
    // 5. the command line's index 8 says `existing` once, and the member's pod is deleted.
    const sts = resourcePath("apps/v1", "statefulsets", { namespace: NS, name: n.statefulSet });
    const live = (await host.client.get(sts)) as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
    expect(live.spec.template.spec.containers[0].command[8]).toBe("--initial-cluster-state=new");
    const patched = await host.client.request(
        "PATCH",
        sts,
        [{ op: "replace", path: "/spec/template/spec/containers/0/command/8", value: "--initial-cluster-state=existing" }],
        "application/json-patch+json",
    );
    expect(patched.status).toBe(200);
    await host.client.delete(resourcePath("v1", "pods", { namespace: NS, name: last }));
    // 6. the patch rolls every member (highest ordinal first), so "three Ready" holds between two
    // restarts too: wait for the rollout to finish, as `kubectl rollout status` does.
    await waitFor(
        "the StatefulSet's rollout done, three members Ready",
        async () => {
            const s = (await host.client.get(sts)) as {
                metadata: { generation: number };
                status: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number; currentRevision?: string; updateRevision?: string };
            };
            const st = s.status;
            const done =
                st.observedGeneration === s.metadata.generation &&
                st.updatedReplicas === n.members.length &&
                st.readyReplicas === n.members.length &&
                st.currentRevision === st.updateRevision;
            return done ? true : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 2000 },
    );
    const after = JSON.parse(await etcdctl("list-after", ["member", "list", "-w", "json", "--hex"])) as MemberList;
    expect(after.members.map((m) => m.name).sort()).toEqual([...n.members].sort());
    expect(after.members.find((m) => m.name === last)!.ID).not.toBe(id);
    expect((await etcdctl("health-after", ["endpoint", "health"], n.members)).match(/is healthy/g)).toHaveLength(3);
});

test("close() leaves no process, mount, network namespace, interface or cgroup of the nodes", async () => {
    const closing = nodes!;
    nodes = undefined;
    await expectCloseLeavesNothing(closing);
});
