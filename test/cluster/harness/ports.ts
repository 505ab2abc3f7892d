// Free TCP ports on 127.0.0.1 for the fleet's servers. They come from a range below the kernel's
// ephemeral ports (32768+ here), so no outgoing connection and no bind(0) of another program (the
// Pulumi CLI and its plugins listen on ports the kernel picks) can take one between the moment it
// is handed out and the moment its server binds it; and each jest worker has a range of its own,
// so fleets in parallel test files never share one. A port is checked free (a listener on it
// succeeds) before it is handed out; a process hands a port out again only after it went round its
// whole range.
import * as net from "net";

export const LOOPBACK = "127.0.0.1";

/** Ports each jest worker may hand out, from RANGE_START + worker * RANGE_SIZE. */
export const RANGE_START = 20_000;
export const RANGE_SIZE = 1_500;

/** The range of the calling process: JEST_WORKER_ID (1, 2, ...), or 0 outside jest (bench, chaos). */
export function portRange(workerId = Number(process.env.JEST_WORKER_ID ?? 0)): { first: number; last: number } {
    const w = Number.isInteger(workerId) && workerId >= 0 && workerId < 8 ? workerId : 0;
    const first = RANGE_START + w * RANGE_SIZE;
    return { first, last: first + RANGE_SIZE - 1 };
}

// One cursor per process, shared by every fleet it starts (a test file may start several): it goes
// round the range, starting at a random place so that a restarted process does not retry the ports
// of servers that may still be closing.
const range = portRange();
let cursor = range.first + Math.floor(Math.random() * RANGE_SIZE);

function isFree(port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const srv = net.createServer();
        srv.unref();
        srv.once("error", () => resolve(false));
        srv.listen({ host: LOOPBACK, port, exclusive: true }, () => srv.close(() => resolve(true)));
    });
}

export class PortAllocator {
    /** One free port, the next after the last one this process handed out. */
    async next(): Promise<number> {
        for (let tried = 0; tried < RANGE_SIZE; tried++) {
            const port = cursor;
            cursor = cursor >= range.last ? range.first : cursor + 1;
            if (await isFree(port)) return port;
        }
        throw new Error(`no free TCP port left in ${LOOPBACK}:${range.first}-${range.last}`);
    }

    /** `n` distinct ports. */
    async many(n: number): Promise<number[]> {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push(await this.next());
        return out;
    }
}
