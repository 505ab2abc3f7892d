// One real node: containerd 2 with runc, a kubelet and kube-proxy, each a process of the harness
// that runs in the node's network namespace (nsenter --net: the mounts stay this machine's, so the
// volumes the kubelet mounts are the ones containerd hands to runc). Images are imported into the
// node's containerd from archives built here (images.ts); nothing is ever pulled.
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { CaFiles, CertificateFactory } from "../harness/certs";
import { writeKubeconfig } from "../harness/kubeconfig";
import { read } from "../harness/plan";
import { ManagedProcess, ProcessSupervisor } from "../harness/processes";
import { waitFor } from "../harness/wait";
import { killAll, processesOf, removeShimSockets } from "../../support/node-sweep";
import { cniConfig, containerdConfig, kubeletConfig, kubeProxyConfig, NodeLayout, nodePaths } from "./node-config";

const execFileAsync = promisify(execFile);

/** The programs a node runs. */
export interface NodeBinaries {
    containerd: string;
    ctr: string;
    /** containerd finds its runc shim on PATH, so the shim's directory goes there. */
    "containerd-shim-runc-v2": string;
    kubelet: string;
    "kube-proxy": string;
}

/** What a node needs to know of its cluster. */
export interface NodeClusterAccess {
    /** The API server as the node reaches it (the network's gateway address). */
    server: string;
    ca: CaFiles;
}

/** A running node. */
export class RealNode {
    readonly processes: ManagedProcess[] = [];
    private readonly paths: ReturnType<typeof nodePaths>;

    constructor(
        readonly layout: NodeLayout,
        readonly netns: string,
        private readonly bins: NodeBinaries,
        private readonly supervisor: ProcessSupervisor,
        /** The host side of the node's link to the network: its cable, which a power cut takes down. */
        private readonly link?: string,
    ) {
        this.paths = nodePaths(layout.dir);
    }

    get name(): string {
        return this.layout.name;
    }

    /** A process in the node's network namespace. */
    private startIn(name: string, command: string, args: string[]): ManagedProcess {
        const p = this.supervisor.start({
            name: `${this.name}-${name}`,
            command: "/usr/bin/nsenter",
            args: [`--net=/run/netns/${this.netns}`, command, ...args],
            env: { PATH: `${path.dirname(this.bins["containerd-shim-runc-v2"])}:/usr/sbin:/usr/bin:/sbin:/bin` },
        });
        this.processes.push(p);
        return p;
    }

    /** Writes the node's files and its credentials (kubelet: system:node:<name>; kube-proxy: system:kube-proxy). */
    async prepare(cluster: NodeClusterAccess): Promise<void> {
        const l = this.layout;
        const p = this.paths;
        for (const d of [p.containerdRoot, p.containerdState, p.cniConfDir, p.cniDataDir, p.kubeletRoot, p.podLogs, p.volumes])
            fs.mkdirSync(d, { recursive: true });
        fs.writeFileSync(p.containerdConfig, containerdConfig(l));
        fs.writeFileSync(path.join(p.cniConfDir, "10-kamino.conflist"), cniConfig(l));
        // Pods' resolv.conf gets the cluster DNS from the kubelet; this is only the node's own (no upstream here).
        fs.writeFileSync(p.resolvConf, "nameserver 127.0.0.1\n");
        const certs = new CertificateFactory(path.join(l.dir, "pki"));
        const [kubelet, serving, proxy] = await Promise.all([
            certs.leaf("kubelet", cluster.ca, { commonName: `system:node:${l.name}`, organizations: ["system:nodes"], usages: ["clientAuth"] }),
            certs.leaf("kubelet-serving", cluster.ca, { commonName: l.name, dnsNames: [l.name], ipAddresses: [l.ip], usages: ["serverAuth"] }),
            certs.leaf("kube-proxy", cluster.ca, { commonName: "system:kube-proxy", usages: ["clientAuth"] }),
        ]);
        const caPem = read(cluster.ca.cert);
        writeKubeconfig(p.kubeletKubeconfig, { name: l.name, server: cluster.server, caPem, certPem: read(kubelet.cert), keyPem: read(kubelet.key) });
        writeKubeconfig(p.kubeProxyKubeconfig, { name: l.name, server: cluster.server, caPem, certPem: read(proxy.cert), keyPem: read(proxy.key) });
        fs.writeFileSync(p.kubeletConfig, kubeletConfig(l, { clientCaFile: cluster.ca.cert, tlsCertFile: serving.cert, tlsPrivateKeyFile: serving.key }));
        fs.writeFileSync(p.kubeProxyConfig, kubeProxyConfig(l));
        // The kubelet checks that its cgroup root exists in every hierarchy.
        for (const h of cgroupHierarchies()) fs.mkdirSync(path.join(h, l.cgroupRoot), { recursive: true });
    }

    /** Starts containerd and waits until it answers. */
    async startRuntime(timeoutMs: number): Promise<void> {
        const containerd = this.startIn("containerd", this.bins.containerd, ["--config", this.paths.containerdConfig, "--log-level", "warn"]);
        await waitFor(`${this.name}: containerd`, async () => (this.ctr(["version"]), true), { timeoutMs, intervalMs: 250, watch: [containerd] });
    }

    /** `ctr` against this node's containerd, in the CRI's namespace. */
    ctr(args: string[]): string {
        return execFileSync(this.bins.ctr, this.ctrArgs(args), {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
        });
    }

    /**
     * Imports image archives (images.ts) under the names they carry, one after another. Not blocking,
     * so that a cluster's nodes import theirs at the same time, not in turn.
     */
    async importImages(archives: string[]): Promise<void> {
        for (const a of archives) {
            await execFileAsync(this.bins.ctr, this.ctrArgs(["images", "import", a]), { encoding: "utf8" });
        }
    }

    /** `ctr`'s arguments against this node's containerd, in the CRI's namespace. */
    private ctrArgs(args: string[]): string[] {
        return ["--address", this.paths.containerdSocket, "--namespace", "k8s.io", ...args];
    }

    /**
     * The node loses its power, as a site loss takes a machine: the kubelet, kube-proxy, containerd, its
     * shims and every container are killed at once (SIGKILL, no grace), so nothing on the node answers
     * or reports any more (a Pull member's karmada-agent stops renewing its Lease). Its disk (files,
     * containerd's state, mounts) and its network namespace stay, as a powered-off machine's disk does;
     * the cluster's control plane, on this machine, stays up. Returns how many processes were killed.
     */
    async powerOff(): Promise<number> {
        // First its network: a node without power neither answers nor forwards (its namespace's routes and
        // kube-proxy's rules outlive the processes here, and would still carry NodePort traffic to other nodes).
        if (this.link) execFileSync("ip", ["link", "set", this.link, "down"]);
        const own = this.processes.filter((p) => !p.exit);
        await Promise.all(own.map((p) => this.supervisor.killOne(p)));
        const killed = own.length + killAll(() => processesOf(`${this.layout.cgroupRoot}/`, this.layout.dir));
        // A power loss empties /run (a tmpfs): the dead shims' sockets in /run/containerd/s go too. Left
        // there, they outlived the run, since the tasks they named are gone from containerd's state by close().
        removeShimSockets(this.layout.dir);
        return killed;
    }

    /**
     * Power back after powerOff(): containerd starts again on the same state (it finds its containers
     * dead and cleans up after them), then the kubelet, which starts the node's pods anew, and kube-proxy.
     */
    async powerOn(timeoutMs = 60_000): Promise<void> {
        if (this.processes.some((p) => !p.exit)) throw new Error(`${this.name} is not powered off`);
        if (this.link) execFileSync("ip", ["link", "set", this.link, "up"]);
        // In the order they first started: containerd (startRuntime), then the kubelet and kube-proxy.
        const [runtime, ...kubernetes] = this.processes.splice(0);
        const containerd = this.supervisor.restart(runtime);
        this.processes.push(containerd);
        await waitFor(`${this.name}: containerd`, async () => (this.ctr(["version"]), true), { timeoutMs, intervalMs: 250, watch: [containerd] });
        this.processes.push(...kubernetes.map((p) => this.supervisor.restart(p)));
    }

    /** Starts the kubelet and kube-proxy. */
    startKubernetes(): void {
        const l = this.layout;
        const labels = Object.entries(l.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(",");
        this.startIn("kubelet", this.bins.kubelet, [
            `--config=${this.paths.kubeletConfig}`,
            `--kubeconfig=${this.paths.kubeletKubeconfig}`,
            `--root-dir=${this.paths.kubeletRoot}`,
            `--hostname-override=${l.name}`,
            `--node-ip=${l.ip}`,
            ...(labels ? [`--node-labels=${labels}`] : []),
            ...(l.taints?.length ? [`--register-with-taints=${l.taints.join(",")}`] : []),
            "--v=1",
        ]);
        this.startIn("kube-proxy", this.bins["kube-proxy"], [`--config=${this.paths.kubeProxyConfig}`, "--v=1"]);
    }
}

/** Mount points of this machine's cgroup v1 hierarchies (and the v2 one, where mounted). */
export function cgroupHierarchies(): string[] {
    return read("/proc/self/mounts")
        .split("\n")
        .map((l) => l.split(" "))
        .filter((f) => f[2] === "cgroup" || f[2] === "cgroup2")
        .map((f) => f[1]);
}
