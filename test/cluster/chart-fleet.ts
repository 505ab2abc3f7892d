// A fleet whose Karmada is its own chart, run as real pods: what karmada-chart.test.ts proves and
// `npm run bench` times (karmada_up_real_s). The host is in the shape of the dev stack's `ikofett`
// (a control-plane node and a worker, real nodes), declared `existing` since kind cannot run here,
// with Karmada installed as on kind (kamino:karmada.topology: single): one replica of each component,
// the chart's etcd, the API on its NodePort 32443. kind publishes that NodePort on this machine with
// an extraPortMappings entry; here a TCP forward plays the mapping, from a port of this machine (on
// the network's gateway, where pods of the other clusters reach it too, as on kind's network) to the
// control-plane node. The chart comes from a repository on loopback over ../shared/charts, every image
// it starts is built here (nodes/images.ts). Members: `ikoreal`, a real-node cluster joined by Pull
// (the agent is a pod), and `ikodr`, an API server alone (Push: Karmada's controller-manager pod dials
// it at the gateway), IKO played on both; federated-iris placed as Pulumi.dr.yaml places it, in failover
// mode on [ikoreal, ikodr].
import * as fs from "fs";
import * as path from "path";
import { EngineSandbox, toolchainPath } from "../support/engine";
import { FleetView } from "./failover-scenario";
import { IkoPlayer, KubeClient, LoadBalancer, resourcePath } from "./harness";
import { ChartRepository } from "./harness/chart-repository";
import { PortAllocator } from "./harness/ports";
import { loopbackStack } from "./loopback-stack";
import { LOCAL_STORAGE_CLASS, RealNodeCluster, RealNodes } from "./nodes";
import { Pod } from "./nodes/pods";
import { DEFAULTS } from "../../components/config";
import { KARMADA_SYSTEM_NAMESPACE } from "../../components/karmada/control-plane/control-plane";

export const HOST = "ikofett";
/** The Pull member (real nodes), playing Pulumi.dr.yaml's primary ikoclone. */
export const MEMBER = "ikoreal";
/** The Push member (an API server alone), Pulumi.dr.yaml's backup. */
export const BACKUP = "ikodr";
export const ID = "default/federated-iris";
/** The chart's components: one Deployment (or StatefulSet) each, as Kamino's single topology runs them. */
export const CHART_WORKLOADS = [
    ["deployments", "karmada-apiserver"],
    ["deployments", "karmada-aggregated-apiserver"],
    ["deployments", "karmada-controller-manager"],
    ["deployments", "karmada-scheduler"],
    ["deployments", "karmada-webhook"],
    ["deployments", "karmada-kube-controller-manager"],
    ["statefulsets", "etcd"],
] as const;

/** What is up, for the tests to read. */
export interface ChartFleet {
    nodes: RealNodes;
    repo: ChartRepository;
    host: RealNodeCluster;
    member: RealNodeCluster;
    backup: RealNodeCluster;
    /** kind's port mapping, played: the network's gateway -> the control-plane node's NodePort. */
    mapping: LoadBalancer;
    sandbox: EngineSandbox;
    iko: IkoPlayer;
    stack: Awaited<ReturnType<typeof loopbackStack>>;
}

/** Seconds from `pulumi up` to each step, as first seen (polled every second during the up). */
export interface ChartUpTimings {
    /** Every component of the chart Ready (`karmada_up_real_s`'s first half). */
    components_ready_s: number;
    /** A member joined: its Cluster Ready in the chart's Karmada (the row itself). */
    karmada_up_real_s: number;
    /** The whole `up`, federated-iris Running included. */
    up_s: number;
}

/** Starts the clusters, the repository, the mapping and the stack (not yet up). */
export async function startChartFleet(stackName: string, chartVersion = DEFAULTS.karmadaChartVersion): Promise<ChartFleet> {
    const nodes = RealNodes.create({ karmadaChartImages: "all" });
    const f = { nodes } as ChartFleet;
    try {
        f.repo = await new ChartRepository().start();
        f.host = await nodes.cluster({ name: HOST, nodes: [{ controlPlane: true }, {}] });
        f.member = await nodes.cluster({ name: MEMBER, nodes: [{ zone: "zone-a" }] });
        f.backup = await nodes.cluster({ name: BACKUP, nodes: [] });
        const controlPlane = f.host.nodes[0];
        f.mapping = await new LoadBalancer(
            DEFAULTS.karmadaApiServerNodePort,
            await new PortAllocator().next(),
            nodes.network.gateway,
            controlPlane.layout.ip,
        ).start();
        f.sandbox = new EngineSandbox(toolchainPath("engine"));
        f.iko = new IkoPlayer([f.member.api, f.backup.api], 0).start();
        f.stack = await chartStack(f, HOST, stackName, {
            chartRepo: f.repo.url,
            chartVersion,
            topology: "single",
            endpoint: f.mapping.endpoint,
            installTimeoutSeconds: 600,
            // The chart's etcd on a volume of the worker's: its default, a hostPath, would be this
            // machine's own /var/lib/karmada-system, shared by every node and every run here.
            values: { etcd: { internal: { storageType: "pvc", pvc: { storageClass: LOCAL_STORAGE_CLASS, size: "1Gi" } } } },
        });
        return f;
    } catch (e) {
        await stopChartFleet(f);
        throw e;
    }
}

/**
 * The stack of a fleet whose Karmada Kamino installs from the chart repository on loopback: the host,
 * Pulumi.dr.yaml's federated-iris on MEMBER (joined by Pull) with BACKUP behind it, and `karmada` as
 * the stack's `kamino:karmada`.
 */
export function chartStack(
    f: Pick<ChartFleet, "sandbox" | "host" | "member" | "backup">,
    hostName: string,
    stackName: string,
    karmada: Record<string, unknown>,
): ReturnType<typeof loopbackStack> {
    return loopbackStack(
        f.sandbox,
        {
            host: { name: hostName },
            hostKubeconfig: f.host.kubeconfig,
            members: [f.member, f.backup].map((c) => ({ name: c.opts.name, kubeconfig: c.kubeconfig })),
        },
        stackName,
        {
            irisClustersFrom: "Pulumi.dr.yaml",
            playedBy: { ikoclone: MEMBER },
            runningTimeoutSeconds: 300,
            syncModes: { [MEMBER]: "Pull" },
            apiEndpoints: { [BACKUP]: f.backup.networkServer },
            karmada,
        },
    );
}

/** Whatever of the fleet was started, stopped; the real nodes closed (nothing left: node-sweep.ts). */
export async function stopChartFleet(f: Partial<ChartFleet>): Promise<void> {
    await f.iko?.stop();
    f.sandbox?.cleanup();
    await f.mapping?.stop();
    await f.repo?.stop();
    await f.nodes?.close();
}

/** The chart's Karmada API, as the stack's karmadaKubeconfig output reaches it (through the mapping). */
export function karmadaClient(f: Pick<ChartFleet, "sandbox">, kubeconfig: string): KubeClient {
    const file = path.join(f.sandbox.dir, "karmada.kubeconfig");
    fs.writeFileSync(file, kubeconfig, { mode: 0o600 });
    return KubeClient.fromKubeconfig(file);
}

/** Karmada and both members, as the failover scenario reads them. */
export const fleetView = (f: ChartFleet, karmada: KubeClient): FleetView => ({ karmada: { client: karmada }, members: [f.member.api, f.backup.api] });

/** The chart's workloads on the host that are not Ready yet (all of them replicas Ready and up to date). */
export async function unreadyComponents(host: RealNodeCluster): Promise<string[]> {
    type Workload = {
        metadata: { generation?: number };
        spec?: { replicas?: number };
        status?: { readyReplicas?: number; updatedReplicas?: number; observedGeneration?: number };
    };
    const out: string[] = [];
    for (const [kind, name] of CHART_WORKLOADS) {
        const w = await host.client.get<Workload & { kind: string; apiVersion: string; metadata: { name: string; generation?: number } }>(
            resourcePath("apps/v1", kind, { namespace: KARMADA_SYSTEM_NAMESPACE, name }),
        );
        const want = w?.spec?.replicas ?? 1;
        const s = w?.status;
        if (!w || s?.observedGeneration !== w.metadata.generation || s?.readyReplicas !== want || s?.updatedReplicas !== want) out.push(name);
    }
    return out;
}

/** The pods of the chart's components on the host, by name prefix. */
export async function chartPods(host: RealNodeCluster): Promise<Pod[]> {
    const list = (await host.client.get(resourcePath("v1", "pods", { namespace: KARMADA_SYSTEM_NAMESPACE }))) as unknown as { items: Pod[] };
    return list.items;
}

/**
 * `pulumi up`, timed: the moment every component is Ready and the moment a member's Cluster is Ready
 * in the chart's Karmada are seen by polling the host and the mapped API every second meanwhile.
 */
export async function upChartFleet(f: ChartFleet): Promise<{ outputs: Record<string, { value: unknown }>; timings: ChartUpTimings }> {
    const t0 = Date.now();
    const seen: Partial<ChartUpTimings> = {};
    const since = () => (Date.now() - t0) / 1000;
    const caCluster = resourcePath("cluster.karmada.io/v1alpha1", "clusters");
    let karmada: KubeClient | undefined;
    let done = false;
    const watch = (async () => {
        while (!done) {
            if (seen.components_ready_s === undefined && (await unreadyComponents(f.host).catch(() => ["?"])).length === 0) seen.components_ready_s = since();
            karmada ??= await readKarmadaClient(f).catch(() => undefined);
            if (karmada && seen.karmada_up_real_s === undefined) {
                const list = (await karmada.get(caCluster).catch(() => undefined)) as unknown as
                    { items?: { status?: { conditions?: { type: string; status: string }[] } }[] } | undefined;
                if (list?.items?.some((c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"))) seen.karmada_up_real_s = since();
            }
            await new Promise((r) => setTimeout(r, 1000));
        }
    })();
    try {
        const up = await f.stack.up();
        seen.up_s = since();
        return {
            outputs: up.outputs as Record<string, { value: unknown }>,
            timings: { components_ready_s: NaN, karmada_up_real_s: NaN, ...seen } as ChartUpTimings,
        };
    } finally {
        done = true;
        await watch;
        karmada?.close();
    }
}

/** The Karmada API by the kubeconfig the chart's pre-install Job wrote on the host, through the mapping. */
async function readKarmadaClient(f: ChartFleet): Promise<KubeClient | undefined> {
    const secret = (await f.host.client.get(resourcePath("v1", "secrets", { namespace: KARMADA_SYSTEM_NAMESPACE, name: "karmada-kubeconfig" }))) as
        { data?: Record<string, string> } | undefined;
    const text = secret?.data?.kubeconfig;
    if (!text) return undefined;
    const kubeconfig = Buffer.from(text, "base64")
        .toString("utf8")
        .replace(/server: .*/, `server: https://${f.mapping.endpoint}`);
    return karmadaClient(f, kubeconfig);
}
