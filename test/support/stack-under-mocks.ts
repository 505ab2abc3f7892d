// A whole stack from raw `kamino:*` config under mocks, the way most stack tests run it: every
// reach outside (the live CRD, this machine's preflight, the running-wait, Pull agents) faked. Or the
// Fleet alone (runFleet), for tests that look at its resource options.
import * as pulumi from "@pulumi/pulumi";
import { loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { Fleet, FleetArgs } from "../../components/fleet";
import { kaminoStack, KaminoStackOptions } from "../../components/stack";
import { fakeAgentReadyWaiter, fakeCrdReader, fakeRunningWaiter, MockRun } from "./mocks";
import { healthyMachine } from "./standins";

/** `kamino:*` config from plain values, as `pulumi.runtime.allConfig()` gives it (JSON text per key). */
export const rawConfig = (cfg: Record<string, unknown>): Record<string, string> =>
    Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]));

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

/** How `runFleet` runs a Fleet. */
export interface RunFleetOptions {
    /** A preview instead of an update. */
    preview?: boolean;
    /** The stack's name. */
    stack?: string;
    /** Fleet arguments over the fakes (a running-wait or agent wait that records its calls). */
    args?: Partial<FleetArgs>;
    /** Legacy transformations on the Fleet: inherited by every child, they see its resource options. */
    transformations?: pulumi.ResourceTransformation[];
}

/**
 * The Fleet alone on `config` under mocks (no preflight, no stack outputs), every file taken to
 * exist; resolves once every registration reached the mocks.
 */
export async function runFleet(config: Record<string, string>, opts: RunFleetOptions = {}) {
    const run = new MockRun(opts.preview ?? false);
    await run.install(config, [], opts.stack ?? "dev");
    const plan = resolveFleetPlan(loadFleetConfig(config, { pathExists: () => true }));
    const fleet = new Fleet(
        "kamino",
        {
            plan,
            secretValues: {},
            crdReader: fakeCrdReader(),
            runningWaiter: fakeRunningWaiter(),
            agentReadyWaiter: fakeAgentReadyWaiter(),
            ...opts.args,
        },
        { transformations: opts.transformations },
    );
    await run.settle();
    return { run, fleet, plan };
}
