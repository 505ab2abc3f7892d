// Real nodes for the cluster tests: Kubernetes clusters whose pods run (containerd 2, runc, kubelet,
// kube-proxy, CoreDNS), on one network as kind's clusters share the `kind` Docker network. The API:
//
//   const nodes = RealNodes.create();                       // the network; images built once per run
//   (RealNodes.create({ karmadaChartImages: "all" }) adds the images Karmada's chart starts)
//   const host = await nodes.cluster({ name: "ikofett", nodes: [{ zone: "a" }, { zone: "b" }] });
//   ... host.kubeconfig, host.client, host.nodes ...
//   await nodes.close();                                    // every process, mount, namespace, link, cgroup gone
//
// See README.md in this folder for what runs, what is assembled here and what stays played.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { findNamedBinaries, toolchainVersion } from "../harness/binaries";
import { PortAllocator } from "../harness/ports";
import { runRoot, runTag, sweepRealNodes, SweepReport } from "../../support/node-sweep";
import { DEFAULTS } from "../../../components/config";
import { buildImages, CHART_JOB_IMAGES, ChartImageBinaries, chartImageSpecs, ImageBinaries, imageSpecs, KARMADA_CHART_COMPONENTS } from "./images";
import type { ImageSpec } from "./oci-image";
import { CNI_BIN_DIR, RUNC } from "./node-config";
import { nextNetworkIndex, NodeNetwork } from "./node-network";
import { RealClusterBinaries, RealNodeCluster, RealNodeClusterOptions } from "./real-node-cluster";

export {
    RealNodeCluster,
    LOCAL_STORAGE_CLASS,
    DNS_SERVICE_IP,
    SERVICE_CIDR,
    objectPath,
    criticalPodsQuota,
    CRITICAL_PRIORITY_CLASSES,
} from "./real-node-cluster";
export type { RealNodeSpec } from "./real-node-cluster";
export { SHELL_IMAGE, COREDNS_IMAGE, IRIS_STANDIN_IMAGE, chartImageSpecs, imageSpecs, KARMADA_VERSION } from "./images";
export { NodeNetwork } from "./node-network";

const NODE_BINARIES = [
    "etcd",
    "etcdctl",
    "etcdutl",
    "kube-apiserver",
    "kube-controller-manager",
    "karmada-agent",
    "containerd",
    "ctr",
    "containerd-shim-runc-v2",
    "kubelet",
    "kube-proxy",
    "kube-scheduler",
    "coredns",
    "pause",
] as const;

/** True for a statically linked program (ldd says "not a dynamic executable" and fails). */
function isStatic(file: string): boolean {
    try {
        execFileSync("ldd", [file], { stdio: "ignore" });
        return false;
    } catch {
        return true;
    }
}

/** What this machine must have besides the toolchain; one error naming every missing piece and its package. */
export function checkRealNodePrerequisites(): void {
    const missing: string[] = [];
    if (process.getuid?.() !== 0) missing.push("root (network namespaces, mounts and cgroups need it)");
    const need: [string, string][] = [
        [RUNC, "runc"],
        [path.join(CNI_BIN_DIR, "bridge"), "containernetworking-plugins"],
        ["/usr/sbin/iptables", "iptables"],
        ["/usr/bin/nsenter", "util-linux"],
        ["/usr/bin/curl", "curl"],
        ["/bin/busybox", "busybox-static"],
    ];
    for (const [file, pkg] of need) if (!fs.existsSync(file)) missing.push(`${file} (Debian: apt-get install -y ${pkg})`);
    if (fs.existsSync("/bin/busybox") && !isStatic("/bin/busybox")) {
        missing.push("a static /bin/busybox (Debian: apt-get install -y busybox-static)");
    }
    if (missing.length) throw new Error(`real nodes need: ${missing.join("; ")}`);
    raiseInotifyInstances();
}

/** inotify instances every real node's kubelet and containerd take several of (cAdvisor, the CRI, certificates). */
export const INOTIFY_INSTANCES = 1024;

/**
 * The kernel's default of 128 inotify instances per user is spent by a few nodes (kind's known issue:
 * a kubelet then fails with "inotify_init: too many open files"): raised for this machine, as kind
 * advises, when lower.
 */
function raiseInotifyInstances(): void {
    const file = "/proc/sys/fs/inotify/max_user_instances";
    if (Number(fs.readFileSync(file, "utf8")) < INOTIFY_INSTANCES) fs.writeFileSync(file, String(INOTIFY_INSTANCES));
}

/** What the nodes of a network are given besides the base images. */
export interface RealNodesOptions {
    /** The images Karmada's chart starts (chartImageSpecs): all (its components, Kubernetes' and its Jobs'), or its Jobs' only. */
    karmadaChartImages?: "all" | "jobs";
    /** Karmada's own images (its components and agent) at the version an upgrade goes to (KARMADA_NEXT_VERSION). */
    nextKarmada?: boolean;
}

/** Karmada's images at KARMADA_NEXT_VERSION, from the toolchain's karmada-next build (group chart: only that tool there has Karmada's names). */
function nextKarmadaImageSpecs(): ImageSpec[] {
    const version = toolchainVersion("KARMADA_NEXT_VERSION");
    const names = [...KARMADA_CHART_COMPONENTS.map((c) => `karmada-${c}` as const), "karmada-agent"] as const;
    const bins = findNamedBinaries(names, ["chart"]);
    const printed = execFileSync(bins["karmada-controller-manager"], ["version"], { encoding: "utf8" });
    if (!printed.includes(`GitVersion:"${version}"`)) throw new Error(`${bins["karmada-controller-manager"]} is not Karmada ${version}: ${printed.trim()}`);
    const components = chartImageSpecs(bins as unknown as ChartImageBinaries, version).filter((s) => s.name.startsWith("docker.io/karmada/"));
    const agent = imageSpecs({ "karmada-agent": bins["karmada-agent"] } as ImageBinaries, `${DEFAULTS.karmadaAgentImage}:${version}`).find((s) =>
        s.name.endsWith(`karmada-agent:${version}`),
    )!;
    return [...components, agent];
}

/** The programs of the chart's images (images.ts chartImageSpecs). */
const CHART_BINARIES = [
    ...KARMADA_CHART_COMPONENTS.map((c) => `karmada-${c}` as const),
    "kube-apiserver",
    "kube-controller-manager",
    "kubectl",
    "cfssl",
    "cfssljson",
] as const;

/** A network of real-node clusters, and everything on it. */
export class RealNodes {
    readonly clusters: RealNodeCluster[] = [];
    private readonly bins: RealClusterBinaries & Record<(typeof NODE_BINARIES)[number], string>;
    private readonly images: string[];
    private readonly ports = new PortAllocator();

    private constructor(
        readonly network: NodeNetwork,
        readonly root: string,
        opts: RealNodesOptions,
    ) {
        this.bins = findNamedBinaries(NODE_BINARIES, ["cluster", "nodes"]);
        const chart = opts.karmadaChartImages ? chartImageSpecs(findNamedBinaries(CHART_BINARIES, ["cluster", "chart"])) : [];
        const specs = [
            ...imageSpecs(this.bins),
            ...(opts.karmadaChartImages === "jobs" ? chart.filter((c) => CHART_JOB_IMAGES.includes(c.name)) : chart),
            ...(opts.nextKarmada ? nextKarmadaImageSpecs() : []),
        ];
        this.images = buildImages(path.join(runRoot(network.tag), "images"), specs);
    }

    /** The network (a bridge) for this run's next index; images built once per run. */
    static create(opts: RealNodesOptions = {}): RealNodes {
        checkRealNodePrerequisites();
        const network = new NodeNetwork(runTag(), nextNetworkIndex());
        const root = path.join(runRoot(network.tag), network.scope.slice(-2));
        // What a killed earlier user of this index may have left.
        sweepRealNodes(network.tag, network.scope.slice(-2));
        fs.mkdirSync(root, { recursive: true });
        network.up();
        return new RealNodes(network, root, opts);
    }

    /** Starts a cluster on the network and waits until its nodes, DNS and storage are ready. */
    async cluster(opts: Omit<RealNodeClusterOptions, "network" | "root" | "bins" | "images" | "ports">): Promise<RealNodeCluster> {
        const c = new RealNodeCluster({
            ...opts,
            network: this.network,
            root: path.join(this.root, opts.name),
            bins: this.bins,
            images: this.images,
            ports: this.ports,
        });
        this.clusters.push(c);
        await c.start();
        return c;
    }

    /** Stops every cluster, then removes whatever is left of them (see node-sweep.ts); returns what that found. */
    async close(): Promise<SweepReport> {
        await Promise.all(this.clusters.map((c) => c.stop()));
        const report = sweepRealNodes(this.network.tag, this.network.scope.slice(-2));
        this.network.down();
        return report;
    }
}
