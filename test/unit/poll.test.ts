// The one polling loop: stops on a result, retries "not yet" and errors, sleeps the interval
// between attempts and gives up at the deadline with the caller's error, built from the last attempt.
import { poll } from "../../components/live/poll";

/** A fake clock that only sleep advances; records every sleep. */
const clock = (start = 1_000) => {
    let t = start;
    const sleeps: number[] = [];
    return {
        now: () => t,
        sleep: async (ms: number) => {
            sleeps.push(ms);
            t += ms;
        },
        sleeps,
        elapsed: () => t - start,
    };
};

/** A check answering from a script, one entry per attempt (the last repeats); an Error is thrown. */
const script = <T>(...answers: Array<T | undefined | Error>) => {
    let calls = 0;
    return {
        calls: () => calls,
        check: async () => {
            const a = answers[Math.min(calls, answers.length - 1)];
            calls++;
            if (a instanceof Error) throw a;
            return a;
        },
    };
};

const never = () => new Error("should not time out");

describe("poll", () => {
    test("returns the first result without sleeping", async () => {
        const c = clock();
        const s = script("ready");
        await expect(poll(s.check, { timeoutSeconds: 60, intervalSeconds: 2, timeoutError: never, ...c })).resolves.toBe("ready");
        expect(s.calls()).toBe(1);
        expect(c.sleeps).toEqual([]);
    });

    test("retries 'not yet' and errors, sleeping the interval between attempts", async () => {
        const c = clock();
        const s = script<string>(undefined, new Error("ECONNREFUSED"), undefined, "ready");
        await expect(poll(s.check, { timeoutSeconds: 60, intervalSeconds: 3, timeoutError: never, ...c })).resolves.toBe("ready");
        expect(s.calls()).toBe(4);
        expect(c.sleeps).toEqual([3000, 3000, 3000]);
    });

    test("falsy values other than undefined are results", async () => {
        const c = clock();
        await expect(poll(script(0).check, { timeoutSeconds: 5, intervalSeconds: 1, timeoutError: never, ...c })).resolves.toBe(0);
        await expect(poll(script(false).check, { timeoutSeconds: 5, intervalSeconds: 1, timeoutError: never, ...c })).resolves.toBe(false);
        expect(c.sleeps).toEqual([]);
    });

    test("gives up at the deadline with the caller's error, after as many attempts as fit", async () => {
        const c = clock();
        const s = script<string>(undefined);
        const timeoutError = jest.fn(() => new Error("gave up"));
        await expect(poll(s.check, { timeoutSeconds: 30, intervalSeconds: 5, timeoutError, ...c })).rejects.toThrow("gave up");
        // Attempts at 0, 5, ..., 30 s: the one at the deadline still runs, then it gives up.
        expect(s.calls()).toBe(7);
        expect(c.elapsed()).toBe(30_000);
        expect(timeoutError).toHaveBeenCalledTimes(1);
        expect(timeoutError).toHaveBeenCalledWith(undefined);
    });

    test("the timeout error sees what the last attempt threw", async () => {
        const c = clock();
        const s = script<string>(undefined, new Error("HTTP 503"));
        const timeoutError = (e: unknown) => new Error(`last: ${e ? (e as Error).message : "not found"}`);
        await expect(poll(s.check, { timeoutSeconds: 10, intervalSeconds: 5, timeoutError, ...c })).rejects.toThrow("last: HTTP 503");
    });

    test("an attempt that answers 'not yet' after an error clears the error", async () => {
        const c = clock();
        const s = script<string>(new Error("HTTP 503"), new Error("HTTP 503"), undefined);
        const timeoutError = jest.fn((_: unknown) => new Error("gave up"));
        await expect(poll(s.check, { timeoutSeconds: 10, intervalSeconds: 5, timeoutError, ...c })).rejects.toThrow("gave up");
        expect(s.calls()).toBe(3);
        expect(timeoutError).toHaveBeenCalledWith(undefined);
    });

    test("a zero timeout still makes one attempt, and does not sleep", async () => {
        const c = clock();
        const s = script<string>(new Error("down"));
        await expect(poll(s.check, { timeoutSeconds: 0, intervalSeconds: 5, timeoutError: (e) => e as Error, ...c })).rejects.toThrow("down");
        expect(s.calls()).toBe(1);
        expect(c.sleeps).toEqual([]);
    });

    test("the deadline counts from the first attempt, on the injected clock, including slow attempts", async () => {
        const c = clock();
        let calls = 0;
        const slow = async () => {
            calls++;
            await c.sleep(4_000); // each attempt itself takes 4 s
            return undefined;
        };
        await expect(poll(slow, { timeoutSeconds: 10, intervalSeconds: 1, timeoutError: () => new Error("late"), ...c })).rejects.toThrow("late");
        // 0-4, 5-9, 10-14: the third attempt ends past the deadline.
        expect(calls).toBe(3);
    });

    test("uses the real clock and sleep when none is injected", async () => {
        const s = script<string>(undefined, "ready");
        const started = Date.now();
        await expect(poll(s.check, { timeoutSeconds: 5, intervalSeconds: 0.02, timeoutError: never })).resolves.toBe("ready");
        expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    });
});
