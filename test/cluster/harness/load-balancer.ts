// A TCP load balancer in front of the Karmada API, at another loopback address (PUBLISHED_ADDRESS),
// as a cloud's would be in front of the chart's apiserver pods: Kamino reaches Karmada at a
// configured `kamino:karmada.endpoint` that is not the kubeconfig's 127.0.0.1, and the tests count
// what came through it. TLS passes through; the Karmada serving certificate names the address.
// With a backend host it is a port mapping as kind's (Docker's) is: a port of this machine forwarded
// to a NodePort of a real node.
import * as net from "net";
import { pipeThrough } from "./tcp-pipe";

/** The second loopback address (Linux routes all of 127.0.0.0/8 to lo). */
export const PUBLISHED_ADDRESS = "127.0.0.2";

export class LoadBalancer {
    private server?: net.Server;
    private readonly sockets = new Set<net.Socket>();
    /** Connections accepted so far. */
    connections = 0;

    constructor(
        private readonly backendPort: number,
        /** Listens on `address` at this port. */
        readonly port: number,
        /** Where it listens: PUBLISHED_ADDRESS, or a real-node network's gateway, where pods reach it. */
        readonly address = PUBLISHED_ADDRESS,
        /** Where the backend listens: this machine, or a real node's address (a NodePort behind a port mapping). */
        private readonly backendHost = "127.0.0.1",
    ) {}

    /** `<address>:<port>`, as `kamino:karmada.endpoint` takes it. */
    get endpoint(): string {
        return `${this.address}:${this.port}`;
    }

    async start(): Promise<this> {
        this.server = net.createServer((client) => {
            this.connections++;
            pipeThrough(client, net.connect({ host: this.backendHost, port: this.backendPort }), this.sockets);
        });
        await new Promise<void>((resolve, reject) => {
            this.server!.once("error", reject);
            this.server!.listen({ host: this.address, port: this.port, exclusive: true }, resolve);
        });
        return this;
    }

    /** Closes the listener and every connection through it. */
    async stop(): Promise<void> {
        for (const s of this.sockets) s.destroy();
        await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
        this.server = undefined;
    }
}
