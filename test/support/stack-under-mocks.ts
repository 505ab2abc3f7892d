// A whole stack from raw `kamino:*` config under mocks, the way most stack tests run it: every
// reach outside (the live CRD, this machine's preflight, the running-wait, Pull agents) faked.
import { kaminoStack, KaminoStackOptions } from "../../components/stack";
import { fakeAgentReadyWaiter, fakeCrdReader, fakeRunningWaiter, MockRun } from "./mocks";
import { healthyMachine } from "./standins";

/** Fakes for everything a stack reaches outside the program. */
export const stackFakes = (): KaminoStackOptions => ({
    crdReader: fakeCrdReader(),
    preflight: healthyMachine(),
    runningWaiter: fakeRunningWaiter(),
    agentReadyWaiter: fakeAgentReadyWaiter(),
});

/** How `runStack` runs it. */
export interface RunStackOptions {
    /** A preview instead of an update. */
    preview?: boolean;
    /** Config keys that are secrets (`kamino:<key>`). */
    secretKeys?: string[];
    /** The stack's name (URNs carry it). */
    stack?: string;
    /** Options over the fakes. */
    options?: KaminoStackOptions;
    /** Called after the mocks are installed and before the program runs (e.g. to wrap the monitor). */
    beforeProgram?: () => void;
}

/** Runs the program on `config` under mocks; resolves once every registration reached them. */
export async function runStack(config: Record<string, string>, opts: RunStackOptions = {}) {
    const run = new MockRun(opts.preview ?? false);
    await run.install(config, opts.secretKeys ?? [], opts.stack ?? "dev");
    opts.beforeProgram?.();
    const stack = kaminoStack(config, { ...stackFakes(), ...opts.options });
    await run.settle();
    return { run, stack };
}
