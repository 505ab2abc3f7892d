// Free TCP ports on 127.0.0.1. The kernel picks an unused port for a listener on port 0; the
// listener is closed before the port is handed out, so a port is only "probably free": the
// allocator never hands out the same port twice, and callers bind soon after.
import * as net from "net";

export const LOOPBACK = "127.0.0.1";

export class PortAllocator {
    private readonly given = new Set<number>();

    /** One port no earlier call returned. */
    async next(): Promise<number> {
        for (let attempt = 0; attempt < 50; attempt++) {
            const port = await new Promise<number>((resolve, reject) => {
                const srv = net.createServer();
                srv.unref();
                srv.on("error", reject);
                srv.listen({ host: LOOPBACK, port: 0, exclusive: true }, () => {
                    const { port } = srv.address() as net.AddressInfo;
                    srv.close(() => resolve(port));
                });
            });
            if (!this.given.has(port)) {
                this.given.add(port);
                return port;
            }
        }
        throw new Error("could not find a free TCP port on 127.0.0.1");
    }

    /** `n` distinct ports. */
    async many(n: number): Promise<number[]> {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push(await this.next());
        return out;
    }
}
