// A cloud's load balancer for a real-node cluster, played: what GKE's (or MetalLB's) controller does for
// a Service of type LoadBalancer, as far as Kamino relies on it. For each such Service it takes the
// address the Service asks for (`spec.loadBalancerIP`; else one from its pool), adds it to this
// machine's side of the network's bridge, reports it in `status.loadBalancer.ingress`, and forwards
// each TCP connection to the Service's NodePort on a node that passes its health check, admitting only
// sources in `spec.loadBalancerSourceRanges`. The check, every second, is a cloud's passthrough load
// balancer's: with `externalTrafficPolicy: Local`, kube-proxy's `healthCheckNodePort` (200 only on a
// node with a Ready endpoint of its own); else a TCP connect to the NodePort. The address goes with the bridge when the network is closed.
import { execFileSync } from "child_process";
import * as http from "http";
import * as net from "net";
import { pipeThrough } from "../harness/tcp-pipe";
import { KubeClient, resourcePath } from "../harness";
import { NodeNetwork } from "./node-network";

type LbService = {
    metadata: { name: string; namespace: string };
    spec: {
        type?: string;
        loadBalancerIP?: string;
        loadBalancerSourceRanges?: string[];
        externalTrafficPolicy?: string;
        healthCheckNodePort?: number;
        ports: { port: number; nodePort?: number }[];
    };
    status?: { loadBalancer?: { ingress?: { ip: string }[] } };
};

/** Whether an IPv4 address is in a CIDR. */
export function inCidr(address: string, cidr: string): boolean {
    const [base, bits] = cidr.split("/");
    const n = (a: string) => a.split(".").reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
    const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
    return (n(address.replace(/^::ffff:/, "")) & mask) === (n(base) & mask);
}

/** One address and port of a Service, forwarded to its NodePort on the healthy nodes. */
class Frontend {
    readonly server: net.Server;
    /** Connections refused for their source, and forwarded. */
    refused = 0;
    forwarded = 0;
    private next = 0;
    /** Every socket open through it, both ends: closing the frontend ends them (a server's close waits for them). */
    private readonly sockets = new Set<net.Socket>();

    constructor(
        readonly address: string,
        readonly port: number,
        private readonly backends: () => string[],
        readonly nodePort: number,
        private readonly sourceRanges: string[],
        /** kube-proxy's health check port of the Service (`externalTrafficPolicy: Local`), if any. */
        readonly healthCheckNodePort?: number,
    ) {
        this.server = net.createServer((client) => this.accept(client));
    }

    private accept(client: net.Socket): void {
        const from = client.remoteAddress ?? "";
        if (this.sourceRanges.length > 0 && !this.sourceRanges.some((r) => inCidr(from, r))) {
            this.refused++;
            return void client.destroy();
        }
        const healthy = this.backends();
        if (healthy.length === 0) return void client.destroy();
        const node = healthy[this.next++ % healthy.length];
        this.forwarded++;
        pipeThrough(client, net.connect({ host: node, port: this.nodePort }), this.sockets);
    }

    /** Stops listening and ends every connection through it (an agent's watch would hold the close forever). */
    close(): Promise<void> {
        const closed = new Promise<void>((r) => this.server.close(() => r()));
        for (const s of this.sockets) s.destroy();
        return closed;
    }
}

/** The load balancer controller of one cluster. */
export class ServiceLoadBalancer {
    private readonly frontends = new Map<string, Frontend>();
    /** Healthy nodes, by health check (`tcp:<nodePort>` or `http:<healthCheckNodePort>`). */
    private readonly healthy = new Map<string, Set<string>>();
    private timer?: NodeJS.Timeout;
    private stopped = false;

    constructor(
        private readonly client: KubeClient,
        private readonly network: NodeNetwork,
        /** The nodes' addresses: the backends. */
        private readonly nodes: () => string[],
    ) {}

    /** Every frontend's counters, by `address:port`. */
    get stats(): Record<string, { forwarded: number; refused: number }> {
        return Object.fromEntries([...this.frontends].map(([k, f]) => [k, { forwarded: f.forwarded, refused: f.refused }]));
    }

    start(): this {
        const tick = async () => {
            if (this.stopped) return;
            await Promise.all([this.checkHealth(), this.reconcile().catch(() => undefined)]);
            this.timer = setTimeout(tick, 1000);
        };
        void tick();
        return this;
    }

    async stop(): Promise<void> {
        this.stopped = true;
        clearTimeout(this.timer);
        await Promise.all([...this.frontends.values()].map((f) => f.close()));
        this.frontends.clear();
    }

    /** A node is a healthy backend of a frontend while its check passes within a second. */
    private async checkHealth(): Promise<void> {
        const checks = [...new Set([...this.frontends.values()].map(checkOf))];
        await Promise.all(
            checks.flatMap((check) =>
                this.nodes().map(async (node) => {
                    const ok = await probe(node, check);
                    const set = this.healthy.get(check) ?? new Set<string>();
                    this.healthy.set(check, set);
                    if (ok) set.add(node);
                    else set.delete(node);
                }),
            ),
        );
    }

    /** Gives every LoadBalancer Service its address, a frontend and its status. */
    private async reconcile(): Promise<void> {
        const list = (await this.client.get(resourcePath("v1", "services"))) as unknown as { items: LbService[] };
        for (const svc of list.items.filter((s) => s.spec.type === "LoadBalancer")) {
            const address = svc.spec.loadBalancerIP;
            if (!address) continue; // Kamino's Service always asks for its endpoint's address
            for (const p of svc.spec.ports) {
                const key = `${address}:${p.port}`;
                if (this.frontends.has(key) || !p.nodePort) continue;
                this.addAddress(address);
                const local = svc.spec.externalTrafficPolicy === "Local" ? svc.spec.healthCheckNodePort : undefined;
                const check = local ? `http:${local}` : `tcp:${p.nodePort}`;
                const f = new Frontend(
                    address,
                    p.port,
                    () => this.nodes().filter((n) => this.healthy.get(check)?.has(n)),
                    p.nodePort,
                    svc.spec.loadBalancerSourceRanges ?? [],
                    local,
                );
                await new Promise<void>((resolve, reject) => f.server.once("error", reject).listen({ host: address, port: p.port }, resolve));
                this.frontends.set(key, f);
            }
            if (svc.status?.loadBalancer?.ingress?.[0]?.ip !== address) {
                await this.client.mergePatch(
                    resourcePath("v1", "services", { namespace: svc.metadata.namespace, name: svc.metadata.name, subresource: "status" }),
                    {
                        status: { loadBalancer: { ingress: [{ ip: address }] } },
                    },
                );
            }
        }
    }

    /** The address on this machine's side of the bridge (once). */
    private addAddress(address: string): void {
        const has = execFileSync("ip", ["-o", "-4", "addr", "show", "dev", this.network.bridge], { encoding: "utf8" }).includes(` ${address}/`);
        if (!has) execFileSync("ip", ["addr", "add", `${address}/32`, "dev", this.network.bridge]);
    }
}

/** A frontend's health check: kube-proxy's for a Local Service, else a TCP connect to its NodePort. */
const checkOf = (f: Frontend) => (f.healthCheckNodePort ? `http:${f.healthCheckNodePort}` : `tcp:${f.nodePort}`);

/** One check of one node: `http:<port>` wants a 200 from /healthz, `tcp:<port>` a connection; within a second. */
function probe(node: string, check: string): Promise<boolean> {
    const [kind, port] = [check.split(":")[0], Number(check.split(":")[1])];
    return new Promise<boolean>((resolve) => {
        if (kind === "http") {
            const req = http.get({ host: node, port, path: "/healthz", timeout: 1000 }, (res) => {
                res.resume();
                resolve(res.statusCode === 200);
            });
            req.once("timeout", () => (req.destroy(), resolve(false)));
            req.once("error", () => resolve(false));
            return;
        }
        const s = net.connect({ host: node, port, timeout: 1000 });
        s.once("connect", () => (s.destroy(), resolve(true)));
        s.once("timeout", () => (s.destroy(), resolve(false)));
        s.once("error", () => resolve(false));
    });
}
