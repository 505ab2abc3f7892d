// `npm run chaos`: the kill sweep. On one 2-member loopback fleet (real engine, real Karmada, IKO
// played by the harness; ikoclone joins by Push, ikoclone2 by Pull with the real karmada-agent
// played by the harness, so a kill in "joins" lands in either join), again and again: `pulumi up` from an empty stack, killed with SIGKILL
// (the CLI and every process it started) at a moment drawn from the seed; `npm run recover`; then
// the checks: federated-iris Running on both members, the synced Secret's current value there, and
// a no-op `up` with 0 changes. Then `destroy`, the first ones killed too and finished by
// `npm run recover --destroy`, checked as an empty state and no Kamino object on any API server.
// The moments take the phases in turn (add-ons, Helm installs, joins, CRD copy, policies,
// running-wait), each at a random delay into the phase. Every moment and the seed are printed, and
// the results written as JSON (moment, phase, recovery time, outcome).
//
//   KAMINO_CHAOS_SEED=<n>     replay a sweep (default: from the clock, printed)
//   KAMINO_CHAOS_UP=12        kills of up (default 12)
//   KAMINO_CHAOS_DESTROY=6    kills of destroy (default 6: each of its 5 phases once, and one more; at most one per up)
//   KAMINO_CHAOS_OUT=chaos-results.json
import * as fs from "fs";
import * as os from "os";
import { drawMoments, kaminoObjects, KillMoment, KillResult, killAt, Phase, PHASES, recover, seededRandom } from "../cluster/chaos";
import { AgentPlayer, findBinaries, IkoPlayer, KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "../cluster/harness";
import { LICENSE, licenseSecretId, loopbackStack } from "../cluster/loopback-stack";
import { EngineSandbox, toolchainPath } from "../support/engine";
import processReaper from "../support/process-reaper";
import { runPulumi, startPulumi } from "../support/pulumi-cli";

const SEED = Number(process.env.KAMINO_CHAOS_SEED ?? Date.now() % 1_000_000);
const UP_KILLS = Number(process.env.KAMINO_CHAOS_UP ?? "12");
const DESTROY_KILLS = Math.min(UP_KILLS, Number(process.env.KAMINO_CHAOS_DESTROY ?? "6"));
const OUT = process.env.KAMINO_CHAOS_OUT ?? "chaos-results.json";
const MEMBERS = ["ikoclone", "ikoclone2"];
const SYNC_MODES = { ikoclone: "Push", ikoclone2: "Pull" } as const;
const STACK = "chaos";
const WAIT = { timeoutMs: 180_000, intervalMs: 1000 };
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const [SECRET_NS, SECRET_NAME] = licenseSecretId().split("/");
const SECRET = resourcePath("v1", "secrets", { namespace: SECRET_NS, name: SECRET_NAME });
/** A destroy deletes in the reverse order: no running-wait, and nothing of the policies' kind after the templates. */
const DESTROY_PHASES: Phase[] = ["policies", "joins", "helm-installs", "add-ons", "crd-copy"];

interface KillRecord {
    run: number;
    command: "up" | "destroy";
    aimedAt: Phase;
    delayMs: number;
    killed: boolean;
    killedAtMs: number;
    phase: Phase;
    /** Every phase with a step under way at the kill. */
    phases: Phase[];
    underWay: string[];
    recoverySeconds: number;
    /** What `recover` said it repaired (its `recover:` lines): a torn sidecar, a lock, a Helm record, pending operations. */
    repairs: string[];
    outcome: string;
}

const log = (line: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<void> {
    processReaper(); // whatever this sweep starts is killed when it ends or is interrupted
    log(`seed ${SEED}: ${UP_KILLS} kills of up, ${DESTROY_KILLS} of destroy (replay: KAMINO_CHAOS_SEED=${SEED} npm run chaos)`);
    const random = seededRandom(SEED);
    const upMoments = drawMoments(PHASES, UP_KILLS, random);
    const destroyMoments = drawMoments(DESTROY_PHASES, DESTROY_KILLS, random);

    const fleet = new LoopbackFleet({ hostName: "ikofett", members: MEMBERS });
    const sandbox = new EngineSandbox(toolchainPath("engine"));
    let iko: IkoPlayer | undefined;
    let agents: AgentPlayer | undefined;
    const records: KillRecord[] = [];
    let uncovered: string[] = [];
    try {
        await fleet.start();
        iko = new IkoPlayer(fleet.members, 1000).start();
        agents = new AgentPlayer(fleet.members, { binary: findBinaries()["karmada-agent"], dir: `${fleet.dir}/agents` }).start();
        const servers: Array<[string, KubeClient]> = [
            ["host", fleet.host.client],
            ["karmada", fleet.karmada.client],
            ...fleet.members.map((m) => [m.name, m.client] as [string, KubeClient]),
        ];
        for (const [name, client] of servers) {
            const before = await kaminoObjects(client);
            if (before.length > 0) throw new Error(`${name} holds Kamino-looking objects before any run: ${before.join(", ")}`);
        }
        const stack = await loopbackStack(sandbox, fleet, STACK, { runningTimeoutSeconds: 120, syncModes: SYNC_MODES });

        for (let i = 0; i < UP_KILLS; i++) {
            const first = records.length;
            records.push(
                await killAndRecover(i, "up", upMoments[i], sandbox, async () => {
                    for (const m of fleet.members) {
                        await waitFor(
                            `federated-iris Running on ${m.name}`,
                            async () =>
                                (await m.client.get<KubeObject & { status?: { phase?: string } }>(IRIS))?.status?.phase === "Running" ? true : undefined,
                            WAIT,
                        );
                        await waitFor(
                            `license on ${m.name}`,
                            async () => {
                                const s = await m.client.get<KubeObject & { data?: Record<string, string> }>(SECRET);
                                return s?.data && Buffer.from(s.data["iris.key"], "base64").toString() === LICENSE ? true : undefined;
                            },
                            WAIT,
                        );
                    }
                    const noop = await runPulumi(sandbox, STACK, ["up", "--yes", "--skip-preview", "--expect-no-changes"]);
                    if (noop.code !== 0) throw new Error(`the no-op up made changes or failed:\n${noop.output.slice(-2000)}`);
                }),
            );

            const destroyed = async () => {
                const state = (await stack.exportStack()).deployment as { resources?: unknown[] };
                if ((state.resources ?? []).length > 0) throw new Error(`the state still holds ${(state.resources ?? []).length} resources`);
                for (const [name, client] of servers) {
                    await waitFor(`no Kamino objects on ${name}`, async () => ((await kaminoObjects(client)).length === 0 ? true : undefined), WAIT).catch(
                        async () => {
                            throw new Error(`left on ${name}: ${(await kaminoObjects(client)).join(", ")}`);
                        },
                    );
                }
            };
            if (i < DESTROY_KILLS) {
                records.push(await killAndRecover(i, "destroy", destroyMoments[i], sandbox, destroyed));
            } else {
                const d = await runPulumi(sandbox, STACK, ["destroy", "--yes", "--skip-preview"]);
                if (d.code !== 0) throw new Error(`a plain destroy failed:\n${d.output.slice(-2000)}`);
                await destroyed();
            }
            if (records.slice(first).some((r) => r.outcome.startsWith("failed"))) {
                log("a recovery failed: resetting with npm run recover --destroy before the next run");
                const reset = await recover(sandbox, STACK, { destroy: true });
                if (reset.code !== 0) throw new Error(`could not reset the stack after a failed recovery:\n${reset.output.slice(-2000)}`);
            }
        }
    } finally {
        await iko?.stop();
        await agents?.stop();
        sandbox.cleanup();
        await fleet.stop();
        uncovered = write(records);
    }
    const failed = records.filter((r) => r.outcome.startsWith("failed"));
    if (failed.length > 0) {
        log(`${failed.length} of ${records.length} kills did not recover (seed ${SEED})`);
        process.exit(1);
    }
    if (uncovered.length > 0) {
        log(`no kill landed in ${uncovered.join(", ")}: run more kills (KAMINO_CHAOS_UP, KAMINO_CHAOS_DESTROY) or another seed`);
        process.exit(1);
    }
    log(`all ${records.length} kills recovered (seed ${SEED})`);
}

/** One kill of `command` at `moment`, `npm run recover`, then `check`; the outcome is recorded, not thrown. */
async function killAndRecover(
    run: number,
    command: "up" | "destroy",
    moment: KillMoment,
    sandbox: EngineSandbox,
    check: () => Promise<void>,
): Promise<KillRecord> {
    const p = startPulumi(sandbox, STACK, [command, "--yes", "--skip-preview"]);
    const kill: KillResult = await killAt(p, moment, command === "destroy");
    log(
        `run ${run}: ${command} aimed at ${moment.phase} +${moment.delayMs} ms: ${kill.killed ? `killed at ${kill.atMs} ms in ${kill.phaseSeen} (${kill.underWay.join(", ") || "no step under way"})` : `it ended first (${kill.atMs} ms)`}`,
    );
    const rec = await recover(sandbox, STACK, { destroy: command === "destroy" });
    let outcome = command === "up" ? "converged" : "destroyed";
    try {
        if (rec.code !== 0) throw new Error(`npm run recover exited ${rec.code}:\n${rec.output.slice(-3000)}`);
        await check();
    } catch (e) {
        outcome = `failed: ${(e as Error).message}`;
    }
    log(`run ${run}: recovery ${rec.seconds.toFixed(1)} s: ${outcome.split("\n")[0]}`);
    if (outcome.startsWith("failed")) log(outcome);
    return {
        run,
        command,
        aimedAt: moment.phase,
        delayMs: moment.delayMs,
        killed: kill.killed,
        killedAtMs: kill.atMs,
        phase: kill.phaseSeen,
        phases: kill.phases,
        underWay: kill.underWay,
        recoverySeconds: Math.round(rec.seconds * 10) / 10,
        repairs: rec.output.split("\n").filter((l) => l.startsWith("recover: ")),
        outcome,
    };
}

/** Writes the results; returns the phases no kill landed in. */
function write(records: KillRecord[]): string[] {
    const summary = (command: "up" | "destroy") => {
        const rs = records.filter((r) => r.command === command);
        const times = rs.map((r) => r.recoverySeconds).sort((a, b) => a - b);
        // A kill cuts every phase it finds under way (one member's join beside another's Helm install).
        const phases = [...new Set(rs.filter((r) => r.killed).flatMap((r) => [r.phase, ...r.phases]))].sort();
        return {
            kills: rs.filter((r) => r.killed).length,
            recovered: rs.filter((r) => !r.outcome.startsWith("failed")).length,
            of: rs.length,
            phases,
            uncovered: (command === "up" ? [...PHASES] : DESTROY_PHASES).filter((p) => !phases.includes(p)),
            recoverySeconds: times.length ? { min: times[0], median: times[Math.floor((times.length - 1) / 2)], max: times[times.length - 1] } : undefined,
        };
    };
    const doc = {
        command: "npm run chaos",
        seed: SEED,
        date: new Date().toISOString(),
        machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
        syncModes: SYNC_MODES,
        summary: { up: summary("up"), destroy: summary("destroy") },
        kills: records,
    };
    fs.writeFileSync(OUT, `${JSON.stringify(doc, null, 2)}\n`);
    log(`results in ${OUT}`);
    return [...doc.summary.up.uncovered.map((p) => `up: ${p}`), ...doc.summary.destroy.uncovered.map((p) => `destroy: ${p}`)];
}

main().catch((e: unknown) => {
    log(`sweep aborted: ${(e as Error).stack ?? String(e)}`);
    process.exit(1);
});
