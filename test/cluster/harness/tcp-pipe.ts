// One TCP connection passed on to a backend, as the harness's load balancers and fronts pass them:
// bytes both ways, an error on either side ends both, and both are tracked until closed so that the
// owner can end every open connection when it stops (a server's close waits for them).
import * as net from "net";
import { LOOPBACK } from "./ports";

/** Pipes `client` and `backend` into each other; each stays in `open` until it closes. */
export function pipeThrough(client: net.Socket, backend: net.Socket, open: Set<net.Socket>): void {
    for (const s of [client, backend]) {
        open.add(s);
        s.on("close", () => open.delete(s));
        s.on("error", () => (s === client ? backend : client).destroy());
    }
    client.pipe(backend).pipe(client);
}

/**
 * A TCP front whose open connections can be frozen: bytes stop both ways and nothing is closed, as
 * when the node at the other end loses power. Connections made after that pass as before (to
 * another pod, as a Service would send them).
 */
export class FreezableFront {
    private server?: net.Server;
    private readonly pairs: { client: net.Socket; backend: net.Socket }[] = [];
    private readonly open = new Set<net.Socket>();
    /** The port it listens on (LOOPBACK), once started. */
    port = 0;
    /** Connections made through it so far. */
    connections = 0;

    constructor(private readonly backendPort: number) {}

    async start(): Promise<this> {
        this.server = net.createServer((client) => {
            const backend = net.connect(this.backendPort, LOOPBACK);
            this.connections++;
            this.pairs.push({ client, backend });
            pipeThrough(client, backend, this.open);
        });
        await new Promise<void>((resolve, reject) => this.server!.once("error", reject).listen(0, LOOPBACK, resolve));
        this.port = (this.server.address() as net.AddressInfo).port;
        return this;
    }

    /** Freezes every connection open now; returns how many it froze. */
    freeze(): number {
        let frozen = 0;
        for (const { client, backend } of this.pairs.splice(0)) {
            if (client.destroyed || backend.destroyed) continue;
            client.unpipe(backend);
            backend.unpipe(client);
            client.pause();
            backend.pause();
            frozen++;
        }
        return frozen;
    }

    /** Ends every connection, frozen or not, and stops listening. */
    async close(): Promise<void> {
        for (const s of this.open) s.destroy();
        await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    }
}
