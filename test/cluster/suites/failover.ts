// Disaster recovery on the shared two-member fleet (real engine, real Karmada v1.18.2 run with the flags
// Kamino gives its chart, IKO played by the harness): Pulumi.dr.yaml's federated-iris runs on ikoclone,
// moves to ikodr (played by the fleet's ikoclone2) when ikoclone's API server stops or IKO reports it
// Failed there, stays there when ikoclone comes back (whose stale copy Karmada removes), and goes back
// by `npm run failback`; its license Secret, a dependency, moves with it. After every step a no-op
// `up` changes nothing: Kamino does not fight Karmada's placement. Times are printed.
import { execFile } from "child_process";
import * as path from "path";
import { promisify } from "util";
import { EngineSandbox, REPO } from "../../support/engine";
import { runPulumi } from "../../support/pulumi-cli";
import { comeBack, copyOn, goneFrom, outage, placementOf, runsOn } from "../failover-scenario";
import { IkoPlayer, KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { LICENSE, licenseSecretId, loopbackStack } from "../loopback-stack";
import { SuiteReport } from "../scaffold/report";
import { onSharedFleet, SharedFleet } from "../scaffold/shared-fleet";

const ID = "default/federated-iris";
/** The members of the shared fleet; BACKUP plays Pulumi.dr.yaml's ikodr. */
export const FAILOVER_MEMBERS = ["ikoclone", "ikoclone2"];
const [FIRST, BACKUP] = FAILOVER_MEMBERS;
const STACK = "failover";
const WAIT = { timeoutMs: 180_000, intervalMs: 500 };
// federated-iris names the license Secret, so the Secret is a dependency: it goes where federated-iris goes.
const [SECRET_NS, SECRET_NAME] = licenseSecretId({ licensed: true }).split("/");
const SECRET = resourcePath("v1", "secrets", { namespace: SECRET_NS, name: SECRET_NAME });

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let iko: IkoPlayer;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
let report: SuiteReport;
const record = (what: string, value: Record<string, number> | number) => report.record(what, value);

/** A no-op `up`: 0 resource changes; returns where Kamino says the IrisCluster runs now. */
async function noOpUp(): Promise<string[]> {
    const result = await stack.up({ expectNoChanges: true });
    expect(Object.entries(result.summary.resourceChanges ?? {}).filter(([op]) => op !== "same")).toEqual([]);
    return (result.outputs.runningOn.value as Record<string, string[]>)[ID];
}

async function licenseOn(member: string): Promise<string | undefined> {
    const s = await fleet.members.find((m) => m.name === member)!.client.get<KubeObject & { data?: Record<string, string> }>(SECRET);
    return s?.data ? Buffer.from(s.data["iris.key"], "base64").toString() : undefined;
}

/** The failover suite's tests, on the shared fleet. */
export function failoverSuite(shared: SharedFleet): void {
    const suite = onSharedFleet(shared, "failover", { stacks: () => [stack] });
    beforeAll(async () => {
        ({ fleet, sandbox, iko, report } = suite);
        stack = await loopbackStack(sandbox, fleet, STACK, { irisClustersFrom: "Pulumi.dr.yaml", playedBy: { ikodr: BACKUP }, runningTimeoutSeconds: 120, licensed: true });
    }, 10 * 60_000);

    test("a Karmada whose controller manager lacks a failover flag: up names it, creates nothing, prints no stack trace", async () => {
        await fleet.recordControllerManager(fleet.controllerManagerArgs.filter((a) => !a.startsWith("--enable-no-execute-taint-eviction")));
        try {
            const { code, output } = await runPulumi(sandbox, STACK, ["up", "--yes", "--skip-preview"]);
            expect(code).not.toBe(0);
            expect(output).toContain("karmada-controller-manager runs without --enable-no-execute-taint-eviction=true. Fix: add it to its command line");
            // Once among the diagnostics (the progress line above them echoes an error's first line).
            expect(output.split("Diagnostics:")[1].split("is not set up for failover placement").length - 1).toBe(1);
            expect(output).not.toMatch(/unhandled exception|at Object\.|at async/);
        } finally {
            await fleet.recordControllerManager();
        }
        const state = await stack.exportStack();
        expect(((state.deployment as { resources?: Array<{ type: string }> }).resources ?? []).filter((r) => !r.type.startsWith("pulumi:"))).toEqual([]);
    });

    test("up: federated-iris runs on the first member only, and so does its license Secret", async () => {
        const t = Date.now();
        const result = await stack.up();
        record("first up", (Date.now() - t) / 1000);
        expect(result.summary.result).toBe("succeeded");
        expect(result.outputs.runningOn.value).toEqual({ [ID]: [FIRST] });
        await runsOn(fleet, ID, FIRST);
        expect(await copyOn(fleet, BACKUP, ID)).toBeUndefined();
        expect(await waitFor(`license on ${FIRST}`, () => licenseOn(FIRST), WAIT)).toBe(LICENSE);
        expect(await licenseOn(BACKUP)).toBeUndefined();
        expect(await noOpUp()).toEqual([FIRST]);
    });

    test("outage: the first member's API server stops; Karmada moves federated-iris to the backup; up changes nothing", async () => {
        const timeline = await outage(fleet, ID, FIRST, BACKUP);
        record("outage timeline (s since stop)", { ...timeline });
        // Detection is Karmada's: probe every 10 s, not Ready after failing for 30 s.
        expect(timeline.notReady_s).toBeGreaterThanOrEqual(25);
        // Kamino's toleration: eviction waits failoverAfterSeconds (10) after the taint.
        expect(timeline.evicted_s - timeline.tainted_s).toBeGreaterThanOrEqual(9);
        expect(timeline.failover_s).toBeLessThanOrEqual(90);
        const copy = (await copyOn(fleet, BACKUP, ID)) as KubeObject & { status?: { phase?: string } };
        expect(copy.status?.phase).toBe("Running");
        // Nothing is lost: the license followed federated-iris to the backup (Karmada sends dependencies
        // a moment after the IrisCluster itself).
        expect(await waitFor(`license on ${BACKUP}`, () => licenseOn(BACKUP), WAIT)).toBe(LICENSE);
        // The first member is still down: up neither fails on it nor moves anything back.
        expect(await noOpUp()).toEqual([BACKUP]);
    });

    test("return: the first member comes back; its stale copy is removed and federated-iris stays on the backup", async () => {
        const timeline = await comeBack(fleet, ID, FIRST);
        record("return timeline (s since restart)", { ...timeline });
        // No automatic failback: a few scheduler passes after the member is Ready, it is still on the backup.
        await new Promise((r) => setTimeout(r, 5_000));
        expect((await placementOf(fleet, ID)).clusters).toEqual([BACKUP]);
        expect(await noOpUp()).toEqual([BACKUP]);
    });

    test("failback: one command moves it to the first member again", async () => {
        const t = Date.now();
        const { stdout } = await promisify(execFile)(process.execPath, ["-r", "ts-node/register/transpile-only", path.join(REPO, "commands/failback.ts"), ID, "--stack", STACK], {
            cwd: sandbox.project,
            env: { ...process.env, ...sandbox.env, TS_NODE_PROJECT: path.join(REPO, "tsconfig.json") },
        });
        expect(stdout).toMatch(new RegExp(`^IrisCluster ${ID} moved from ${BACKUP} to ${FIRST} in [\\d.]+ s\\.`));
        await runsOn(fleet, ID, FIRST);
        await goneFrom(fleet, ID, BACKUP);
        record("failback to Running on the first member", (Date.now() - t) / 1000);
        expect(await noOpUp()).toEqual([FIRST]);
    });

    test("failed: IKO reports federated-iris Failed on the first member; Karmada moves it to the backup and removes the failed copy", async () => {
        const t = Date.now();
        iko.report(FIRST, { phase: "Failed", condition: { type: "Ready", status: "False", reason: "IRISFailed", message: "iris stopped" } });
        try {
            await runsOn(fleet, ID, BACKUP);
            record("Failed to Running on the backup", (Date.now() - t) / 1000);
            await goneFrom(fleet, ID, FIRST);
        } finally {
            iko.report(FIRST);
        }
        expect(await noOpUp()).toEqual([BACKUP]);
    });

    test("destroy leaves nothing: state, template, copies, taint policy", async () => {
        expect((await stack.destroy()).summary.result).toBe("succeeded");
        for (const m of [FIRST, BACKUP]) await goneFrom(fleet, ID, m);
        expect(await fleet.karmada.client.get(resourcePath("policy.karmada.io/v1alpha1", "clustertaintpolicies", { name: "kamino-failover" }))).toBeUndefined();
        const state = await stack.exportStack();
        expect((state.deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
    });
}
