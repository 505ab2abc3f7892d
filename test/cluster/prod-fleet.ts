// A fleet whose Karmada is the production shape, on real pods: what production-drills.test.ts drills
// and `npm run bench` times (prod_up_real_s, node_loss_gap_s, upgrade_gap_s). The host is three real
// nodes in three zones whose API server admits critical priority only under a quota, as GKE's does,
// declared `existing` as the prod stack's GKE host becomes one to Kamino; Kamino installs on it what
// Pulumi.prod.yaml installs on its hub: its three-member etcd, then Karmada's chart with two of each
// component over it, and its load balancer Service at `kamino:karmada.endpoint`. No cloud runs here:
// the load balancer is played (nodes/service-load-balancer.ts: the address on this machine's side of the
// nodes' network, the Service's NodePort on healthy nodes behind it, its source ranges enforced).
// Members, as in chart-fleet.ts: `ikoreal` joined by Pull through that address (its agent a pod), and
// `ikodr` by Push; federated-iris placed as Pulumi.dr.yaml places it, on [ikoreal, ikodr].
import * as fs from "fs";
import * as YAML from "yaml";
import { EngineSandbox, toolchainPath } from "../support/engine";
import { BACKUP, chartStack, MEMBER } from "./chart-fleet";
import { FleetView } from "./failover-scenario";
import { IkoPlayer, KubeClient } from "./harness";
import { ChartRepository } from "./harness/chart-repository";
import { LOCAL_STORAGE_CLASS, RealNodeCluster, RealNodes } from "./nodes";
import { ServiceLoadBalancer } from "./nodes/service-load-balancer";
import { DEFAULTS } from "../../components/config";

export const PROD_HOST = "kamino-hub";

/** Pulumi.prod.yaml's `kamino:karmada.failureDetectionSeconds`: the drills detect a lost member as production does. */
export function prodFailureDetectionSeconds(file = "Pulumi.prod.yaml"): number {
    const karmada = (YAML.parse(fs.readFileSync(file, "utf8")) as { config?: Record<string, { failureDetectionSeconds?: unknown }> }).config?.[
        "kamino:karmada"
    ];
    const seconds = karmada?.failureDetectionSeconds;
    if (typeof seconds !== "number") throw new Error(`${file} sets no kamino:karmada.failureDetectionSeconds: the drills install what production declares`);
    return seconds;
}

/** What is up, for the drills to read. */
export interface ProdFleet {
    nodes: RealNodes;
    repo: ChartRepository;
    host: RealNodeCluster;
    member: RealNodeCluster;
    backup: RealNodeCluster;
    loadBalancer: ServiceLoadBalancer;
    /** The Karmada API's address: the load balancer's, `kamino:karmada.endpoint`. */
    endpoint: string;
    sandbox: EngineSandbox;
    iko: IkoPlayer;
    stack: Awaited<ReturnType<typeof chartStack>>;
    /** Seconds the host took to start. */
    hostStartS: number;
}

/** Starts the clusters, the repository and the load balancer, and the stack (not yet up). */
export async function startProdFleet(stackName: string): Promise<ProdFleet> {
    const nodes = RealNodes.create({ karmadaChartImages: "all", nextKarmada: true });
    const f = { nodes } as ProdFleet;
    try {
        f.repo = await new ChartRepository().start();
        const t0 = Date.now();
        // Two volumes a node: a replaced etcd member gets a new one beside the Released one it lost.
        f.host = await nodes.cluster({
            name: PROD_HOST,
            nodes: ["zone-a", "zone-b", "zone-c"].map((zone) => ({ zone, volumes: 2 })),
            limitCriticalPriority: true,
        });
        f.hostStartS = Math.round((Date.now() - t0) / 100) / 10;
        f.member = await nodes.cluster({ name: MEMBER, nodes: [{ zone: "zone-a" }] });
        f.backup = await nodes.cluster({ name: BACKUP, nodes: [] });
        f.loadBalancer = new ServiceLoadBalancer(f.host.client, nodes.network, () => f.host.nodes.map((n) => n.layout.ip)).start();
        f.endpoint = nodes.network.spareAddress();
        f.sandbox = new EngineSandbox(toolchainPath("engine"));
        f.iko = new IkoPlayer([f.member.api, f.backup.api], 0).start();
        f.stack = await chartStack(f, PROD_HOST, stackName, {
            chartRepo: f.repo.url,
            chartVersion: DEFAULTS.karmadaChartVersion,
            endpoint: f.endpoint,
            // This machine and every node of the network (the Pull member's agent comes from its node's address).
            authorizedNetworks: [nodes.network.subnet],
            installTimeoutSeconds: 900,
            // As Pulumi.prod.yaml: longer than Karmada's own stall when a node of the hub dies.
            failureDetectionSeconds: prodFailureDetectionSeconds(),
            etcd: { volumeSize: "1Gi", storageClass: LOCAL_STORAGE_CLASS },
        });
        return f;
    } catch (e) {
        await stopProdFleet(f);
        throw e;
    }
}

/** Whatever of the fleet was started, stopped (the real nodes' close is the caller's when it checks what is left). */
export async function stopProdFleet(f: Partial<ProdFleet>, closeNodes = true): Promise<void> {
    await f.iko?.stop();
    f.sandbox?.cleanup();
    await f.loadBalancer?.stop();
    await f.repo?.stop();
    if (closeNodes) await f.nodes?.close();
}

/** Karmada and both members, as the failover scenario reads them. */
export const prodView = (f: ProdFleet, karmada: KubeClient): FleetView => ({ karmada: { client: karmada }, members: [f.member.api, f.backup.api] });

/** The names of the stack's resources made at or after `since` (the state's creation times), sorted. */
export async function resourcesCreatedSince(f: ProdFleet, since: Date): Promise<string[]> {
    const { deployment } = await f.stack.exportStack();
    const resources = (deployment as { resources?: { urn: string; created?: string }[] }).resources ?? [];
    return resources
        .filter((r) => r.created && new Date(r.created) >= since)
        .map((r) => r.urn.split("::").pop()!)
        .sort();
}
