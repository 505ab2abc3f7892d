// A TCP front for one member's API server, on another port of 127.0.0.1 (which its serving
// certificate names), with a kubeconfig that dials it: clients given that kubeconfig (Kamino, and
// through it Karmada) or that address (a Pull member's agent) can be refused on demand, for exactly
// as long as a test wants, while the API server itself runs on: a stopped and restarted API server
// adds its own start-up (3-7 s here) to every outage. Refusing closes the listener (connection
// refused) and every connection through it (as a dying process's would end).
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import { ApiServer } from "./kube-processes";
import { LOOPBACK, PortAllocator } from "./ports";
import { pipeThrough } from "./tcp-pipe";

export class MemberFront {
    private server?: net.Server;
    private readonly sockets = new Set<net.Socket>();
    private port = 0;
    /** A kubeconfig like the member's admin one, dialling the front. */
    kubeconfig = "";

    constructor(private readonly member: ApiServer) {}

    /** `https://127.0.0.1:<port>` of the front. */
    get address(): string {
        return `https://${LOOPBACK}:${this.port}`;
    }

    /** Listens on a free port and writes the kubeconfig beside the member's. */
    async start(): Promise<this> {
        this.port = await new PortAllocator().next();
        await this.listen();
        const admin = fs.readFileSync(this.member.kubeconfig, "utf8");
        this.kubeconfig = path.join(path.dirname(this.member.kubeconfig), "front.kubeconfig");
        fs.writeFileSync(this.kubeconfig, admin.split(this.member.server).join(this.address), { mode: 0o600 });
        return this;
    }

    /** Refuses every connection, and ends those open, until restore(). */
    async refuse(): Promise<void> {
        for (const s of this.sockets) s.destroy();
        await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
        this.server = undefined;
    }

    /** Accepts connections again. */
    async restore(): Promise<void> {
        if (!this.server) await this.listen();
    }

    /** Stops for good. */
    stop(): Promise<void> {
        return this.refuse();
    }

    private async listen(): Promise<void> {
        const backend = new URL(this.member.server);
        const server = net.createServer((client) => {
            pipeThrough(client, net.connect({ host: backend.hostname, port: Number(backend.port) }), this.sockets);
        });
        await new Promise<void>((resolve, reject) => {
            server.once("error", reject);
            server.listen({ host: LOOPBACK, port: this.port, exclusive: true }, resolve);
        });
        this.server = server;
    }
}
