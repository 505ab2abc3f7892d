// One polling loop for every wait in the program: try, stop on a result, retry errors, give up at
// a deadline. Clock and sleep are injectable so that tests run without waiting.

/** How long and how often to poll. */
export interface PollOptions {
    /** Give up once this many seconds have passed since the first attempt. */
    timeoutSeconds: number;
    /** Seconds to sleep between attempts. */
    intervalSeconds: number;
    /**
     * The error to fail with at the deadline. `lastError` is what the last attempt threw, or
     * undefined when it returned undefined (nothing to report but "not yet").
     */
    timeoutError: (lastError: unknown) => Error;
    /** Injected clock (milliseconds) and sleep, for tests. */
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

/** The real sleep. */
export const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Calls `check` until it returns a value, and resolves with that value. `undefined` means "not
 * yet"; a thrown error is retried too and remembered for `timeoutError`. The first attempt always
 * runs; after each attempt that is not done, the deadline is checked, then `intervalSeconds` slept.
 * To fail at once on some result, return it as done and throw after `poll` resolves.
 */
export async function poll<T>(check: () => Promise<T | undefined>, opts: PollOptions): Promise<T> {
    const now = opts.now ?? Date.now;
    const sleep = opts.sleep ?? sleepMs;
    const deadline = now() + opts.timeoutSeconds * 1000;
    for (;;) {
        let lastError: unknown = undefined;
        try {
            const done = await check();
            if (done !== undefined) return done;
        } catch (e) {
            lastError = e;
        }
        if (now() >= deadline) throw opts.timeoutError(lastError);
        await sleep(opts.intervalSeconds * 1000);
    }
}
