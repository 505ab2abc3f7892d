// Bounded polling with errors that say what was awaited, for how long, what the last attempt
// saw, and - when processes are involved - which of them died and the end of their logs.
import { ManagedProcess } from "./processes";

export interface WaitOptions {
    /** Give up after this long. */
    timeoutMs: number;
    /** Pause between attempts (default 250 ms). */
    intervalMs?: number;
    /** Processes whose exit makes waiting pointless; their log tails go into the error. */
    watch?: ManagedProcess[];
}

/** Error raised by `waitFor` (timeout, or a watched process exited). */
export class WaitError extends Error {}

/** Log tails of the watched processes, as one block for an error message. */
export function logTails(procs: ManagedProcess[], lines = 25): string {
    return procs.map((p) => `--- ${p.describe()}; last lines of ${p.logPath}:\n${p.tail(lines) || "(empty log)"}`).join("\n");
}

/**
 * Calls `probe` until it returns a value other than undefined. A probe that throws counts as
 * "not yet" (its message is kept for the error). Fails early when a watched process exits.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, opts: WaitOptions): Promise<T> {
    const start = Date.now();
    const watch = opts.watch ?? [];
    let last = "no attempt finished";
    for (;;) {
        const dead = watch.filter((p) => p.exit !== undefined);
        if (dead.length) {
            throw new WaitError(`${dead.map((p) => p.describe()).join(", ")} while waiting for ${what} (last check: ${last})\n${logTails(dead)}`);
        }
        try {
            const v = await probe();
            if (v !== undefined) return v;
            last = "not ready";
        } catch (e) {
            last = (e as Error).message;
        }
        const elapsed = Date.now() - start;
        if (elapsed >= opts.timeoutMs) {
            throw new WaitError(
                `timed out after ${(elapsed / 1000).toFixed(1)}s waiting for ${what} (last check: ${last})${watch.length ? "\n" + logTails(watch) : ""}`,
            );
        }
        await new Promise((r) => setTimeout(r, Math.min(opts.intervalMs ?? 250, Math.max(0, opts.timeoutMs - elapsed))));
    }
}
