// One TCP connection passed on to a backend, as the harness's load balancers and fronts pass them:
// bytes both ways, an error on either side ends both, and both are tracked until closed so that the
// owner can end every open connection when it stops (a server's close waits for them).
import * as net from "net";

/** Pipes `client` and `backend` into each other; each stays in `open` until it closes. */
export function pipeThrough(client: net.Socket, backend: net.Socket, open: Set<net.Socket>): void {
    for (const s of [client, backend]) {
        open.add(s);
        s.on("close", () => open.delete(s));
        s.on("error", () => (s === client ? backend : client).destroy());
    }
    client.pipe(backend).pipe(client);
}
