// The network the real nodes sit on, as kind's nodes sit on the `kind` Docker network: a bridge on
// this machine with an address of its own (the "host" side, where the loopback API servers listen),
// and each node in a network namespace of its own, joined to the bridge by a veth pair. A node's
// iptables rules (kube-proxy's, the CNI's) live in its namespace, so two clusters' rules never
// meet. Names carry the run's tag, so that node-sweep.ts finds what a killed run left.
import { execFileSync } from "child_process";

/** `ip`, failing with its own message. */
export function ip(...args: string[]): string {
    try {
        return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
        const err = e as { stderr?: Buffer | string; message: string };
        throw new Error(`ip ${args.join(" ")}: ${String(err.stderr ?? "").trim() || err.message}`);
    }
}

/** Runs `command` in a network namespace (and only that: mounts and PIDs stay this machine's). */
export function inNetns(netns: string, command: string, args: string[]): string {
    return execFileSync("nsenter", [`--net=/run/netns/${netns}`, command, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Writes a sysctl in a namespace, e.g. `net.ipv4.ip_forward`. */
function sysctl(netns: string, key: string, value: string): void {
    inNetns(netns, "sh", ["-c", `echo ${value} > /proc/sys/${key.replace(/\./g, "/")}`]);
}

/** One node's place on the network. */
export interface NodeAttachment {
    /** The cluster the node is in. */
    cluster: string;
    netns: string;
    /** The host side of its veth pair, on the bridge. */
    link: string;
    ip: string;
    podCidr: string;
}

/** The 10.250.<index>.1 addresses this machine has now (any run's networks, this one's or another's). */
function gatewaysInUse(): Set<number> {
    const used = new Set<number>();
    for (const m of ip("-o", "-4", "addr", "show").matchAll(/inet 10\.250\.(\d+)\.1\//g)) used.add(Number(m[1]));
    return used;
}

/**
 * The next network index of this process: each jest worker has 32 of its own, so parallel test
 * files never share one, and an index whose subnet another run (a second jest beside CI's) has on
 * this machine is skipped, so two bridges never claim one subnet.
 */
let next = 0;
export function nextNetworkIndex(workerId = Number(process.env.JEST_WORKER_ID ?? 0), inUse = gatewaysInUse()): number {
    const w = Number.isInteger(workerId) && workerId >= 0 && workerId < 8 ? workerId : 0;
    for (let tried = 0; tried < 32; tried++) {
        const index = w * 32 + (next++ % 32);
        if (!inUse.has(index)) return index;
    }
    throw new Error(`every real-node network of jest worker ${w} (10.250.${w * 32}-${w * 32 + 31}.0/24) is in use on this machine`);
}

/** A bridge and the nodes on it. `index` (0-255) picks the subnet 10.250.<index>.0/24 and the names. */
export class NodeNetwork {
    /** The bridge's address: what nodes and pods reach this machine's loopback servers at. */
    readonly gateway: string;
    readonly bridge: string;
    /** `<tag><index as 2 hex digits>`: every name made here starts with `km` and it (node-sweep.ts). */
    readonly scope: string;
    private readonly nodes: NodeAttachment[] = [];

    constructor(
        /** The run's tag (node-sweep.ts): every name made here starts with `km<tag>`. */
        readonly tag: string,
        readonly index: number,
    ) {
        if (!/^[0-9a-f]{5}$/.test(tag)) throw new Error(`network tag must be 5 hex digits, got ${tag}`);
        if (!Number.isInteger(index) || index < 0 || index > 255) throw new Error(`network index must be 0-255, got ${index}`);
        this.gateway = `10.250.${index}.1`;
        this.scope = `${tag}${index.toString(16).padStart(2, "0")}`;
        this.bridge = `kmb${this.scope}`;
    }

    /** The network's subnet, e.g. `10.250.3.0/24`: its nodes' addresses and this machine's on it. */
    get subnet(): string {
        return `10.250.${this.index}.0/24`;
    }

    /** An address on the network that no node takes (nodes count up from .10): a load balancer's. */
    spareAddress(n = 0): string {
        return `10.250.${this.index}.${200 + n}`;
    }

    /** Creates the bridge. */
    up(): void {
        ip("link", "add", this.bridge, "type", "bridge");
        ip("addr", "add", `${this.gateway}/24`, "dev", this.bridge);
        ip("link", "set", this.bridge, "up");
    }

    /** The name of node `n`'s network namespace. */
    netnsName(cluster: string, node: string): string {
        return `km${this.scope}-${cluster}-${node}`;
    }

    /**
     * Creates the namespace of a node (its `n`th on this network, 0-based): `eth0` with address
     * 10.250.<index>.<10+n>, a default route to the bridge, forwarding on, bridged pod traffic through
     * iptables (kube-proxy needs it), and routes to the pod subnets of its cluster's nodes already here.
     */
    attach(cluster: string, node: string, podCidr: string): NodeAttachment {
        const n = this.nodes.length;
        const hostSide = `kmv${this.scope}${n.toString(16).padStart(2, "0")}`;
        const a: NodeAttachment = { cluster, netns: this.netnsName(cluster, node), link: hostSide, ip: `10.250.${this.index}.${10 + n}`, podCidr };
        ip("netns", "add", a.netns);
        ip("link", "add", hostSide, "type", "veth", "peer", "name", "eth0", "netns", a.netns);
        ip("link", "set", hostSide, "master", this.bridge);
        ip("link", "set", hostSide, "up");
        ip("-n", a.netns, "link", "set", "lo", "up");
        ip("-n", a.netns, "addr", "add", `${a.ip}/24`, "dev", "eth0");
        ip("-n", a.netns, "link", "set", "eth0", "up");
        ip("-n", a.netns, "route", "add", "default", "via", this.gateway);
        sysctl(a.netns, "net.ipv4.ip_forward", "1");
        sysctl(a.netns, "net.bridge.bridge-nf-call-iptables", "1");
        // Pod subnets are routed within a cluster only: clusters on one network reuse them, as kind's do.
        for (const other of this.nodes.filter((o) => o.cluster === cluster)) {
            ip("-n", a.netns, "route", "add", other.podCidr, "via", other.ip);
            ip("-n", other.netns, "route", "add", a.podCidr, "via", a.ip);
        }
        this.nodes.push(a);
        return a;
    }

    /** Removes every namespace and the bridge (the veth pairs go with their namespaces). Never throws. */
    down(): void {
        for (const a of this.nodes.splice(0)) {
            try {
                ip("netns", "delete", a.netns);
            } catch {
                // already gone
            }
        }
        try {
            ip("link", "delete", this.bridge);
        } catch {
            // already gone
        }
    }
}
