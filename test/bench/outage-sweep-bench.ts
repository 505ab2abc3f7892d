// The outage sweep of `npm run bench`: outages of increasing length of the first member of
// Pulumi.dr.yaml's federated-iris (ikoclone, then ikodr), on one loopback fleet per sync mode, each
// length several times; for each, whether Karmada moved it and when (test/cluster/outage-sweep.ts).
// From them, per fault, by how long the member was really down: `false_move_bound_s`, the longest
// outage that moved nothing (no shorter one moving), `always_moves_s`, the shortest from which every
// longer one moved, and `failover_s`, the time to Running on the backup of those.
//
//   KAMINO_BENCH_SWEEP_RUNS=3                runs per length (0 skips the sweep)
//   KAMINO_BENCH_SWEEP_FAULTS=push_refused,… the faults (default: the four above; pull_hung only when named)
//   KAMINO_BENCH_SWEEP_<FAULT>=6,10,…        the lengths of one fault, in seconds (default below)
//   KAMINO_BENCH_SWEEP_FAILOVER_AFTER=5      failoverAfterSeconds of the IrisCluster (default: Pulumi.dr.yaml's);
//                                            written beside the default sweep, as outage_sweep_failover_after_5
import * as path from "path";
import { EngineSandbox } from "../support/engine";
import { AgentPlayer, findBinaries, IkoPlayer, LoopbackFleet, MemberFront } from "../cluster/harness";
import { loopbackStack } from "../cluster/loopback-stack";
import { moveBack, OutagePoint, outageOf, SWEEP_FAULTS, SweepFault, sweepCut } from "../cluster/outage-sweep";
import { runsOn } from "../cluster/failover-scenario";
import { DEFAULTS } from "../../components/config";
import { detectionFlags } from "../../components/karmada/failover/detection";

const ID = "default/federated-iris";
const [FIRST, BACKUP] = ["ikoclone", "ikodr"];

/**
 * Lengths (s) that bracket each fault's bound at Kamino's defaults (failureDetectionSeconds 12,
 * failoverAfterSeconds 10), found by the first sweeps: refusals moved nothing up to 18 s and
 * everything from 22 s, a hang nothing before Karmada's client timed out twice (about 55 s), a lost
 * agent nothing when it was back within about 5 s while a new agent waited for the old one's leader
 lease; since the agents run without leader election, a lost agent is bracketed as a refusal is.
 */
export const DEFAULT_LENGTHS: Record<SweepFault, number[]> = {
    push_refused: [12, 15, 17, 19, 21, 24],
    push_hung: [45, 58, 66, 72],
    pull_agent: [12, 15, 17, 19, 21, 24],
    pull_apiserver: [12, 15, 17, 19, 21, 24],
    pull_hung: [60, 90, 120],
};

/** The sweep's figures for one fault. */
export interface FaultSweep {
    /** The longest outage (`down_s`) that moved nothing, no shorter one having moved (null: the shortest moved). */
    false_move_bound_s: number | null;
    /** The shortest outage from which every longer one moved (null: the longest stayed). */
    always_moves_s: number | null;
    /** Seconds from the cut to Running on the backup, over the runs at and above always_moves_s. */
    failover_s: { min: number; median: number; max: number; runs: number[] } | null;
    /** Every run, in the order run. */
    points: OutagePoint[];
}

const envList = (name: string) =>
    process.env[name]
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean);

const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return Math.round((s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) * 10) / 10;
};

/**
 * The figures of one fault's points, by how long the member was really down (`down_s`: a restarted
 * API server's start-up makes it longer than the cut): the longest outage that moved nothing with
 * no shorter one moving, and the shortest from which every longer one moved.
 */
export function summarize(points: OutagePoint[]): FaultSweep {
    const byDown = [...points].sort((a, b) => a.down_s - b.down_s);
    const firstMove = byDown.findIndex((p) => p.moved);
    const bound = firstMove === -1 ? byDown[byDown.length - 1]?.down_s : firstMove === 0 ? null : byDown[firstMove - 1].down_s;
    let always: number | null = null;
    for (let i = byDown.length - 1; i >= 0 && byDown[i].moved; i--) always = byDown[i].down_s;
    const times = byDown.filter((p) => always !== null && p.down_s >= always && p.failover_s !== null).map((p) => p.failover_s!);
    return {
        false_move_bound_s: bound ?? null,
        always_moves_s: always,
        failover_s: times.length ? { min: Math.min(...times), median: median(times), max: Math.max(...times), runs: times } : null,
        points,
    };
}

/** One fleet for the faults of one sync mode; every fault's lengths, `runs` times each, in increasing order of length. */
async function sweepMode(mode: "Push" | "Pull", faults: SweepFault[], runs: number, binPath: string): Promise<Partial<Record<SweepFault, FaultSweep>>> {
    const fleet = new LoopbackFleet({ hostName: "ikofett", members: [FIRST, BACKUP] });
    const sandbox = new EngineSandbox(binPath);
    let iko: IkoPlayer | undefined;
    let agents: AgentPlayer | undefined;
    let front: MemberFront | undefined;
    const out: Partial<Record<SweepFault, FaultSweep>> = {};
    try {
        await fleet.start();
        // Karmada (Push) or the first member's agent (Pull) dials it through a front that can refuse.
        front = await new MemberFront(fleet.members[0]).start();
        iko = new IkoPlayer(fleet.members, 250).start();
        if (mode === "Pull")
            agents = new AgentPlayer(fleet.members, {
                binary: findBinaries()["karmada-agent"],
                dir: path.join(fleet.dir, "agents"),
                memberServers: { [FIRST]: front.address },
            }).start();
        const syncModes = mode === "Pull" ? { [FIRST]: "Pull" as const, [BACKUP]: "Pull" as const } : undefined;
        const memberKubeconfigs = mode === "Push" ? { [FIRST]: front.kubeconfig } : undefined;
        const stack = await loopbackStack(sandbox, fleet, `sweep-${mode.toLowerCase()}`, { irisClustersFrom: "Pulumi.dr.yaml", syncModes, memberKubeconfigs });
        const after = process.env.KAMINO_BENCH_SWEEP_FAILOVER_AFTER;
        if (after) {
            const iris = JSON.parse((await stack.getConfig("kamino:irisClusters")).value) as Array<Record<string, unknown>>;
            await stack.setConfig("kamino:irisClusters", { value: JSON.stringify(iris.map((i) => ({ ...i, failoverAfterSeconds: Number(after) }))) });
        }
        const up = await stack.up();
        if (up.summary.result !== "succeeded") throw new Error(`up ${up.summary.result}`);
        await runsOn(fleet, ID, FIRST);
        const probeS = parseInt(detectionFlags(DEFAULTS.failureDetectionSeconds).controllerManager["cluster-status-update-frequency"], 10);
        for (const fault of faults) {
            const lengths = (envList(`KAMINO_BENCH_SWEEP_${fault.toUpperCase()}`)?.map(Number) ?? DEFAULT_LENGTHS[fault]).sort((a, b) => a - b);
            const points: OutagePoint[] = [];
            for (const length of lengths) {
                for (let r = 0; r < runs; r++) {
                    const p = await outageOf(fleet, ID, FIRST, BACKUP, sweepCut(fault, { fleet, member: FIRST, agents, front }), length, { probeS });
                    const back = p.moved ? await moveBack(fleet, ID, FIRST, BACKUP) : undefined;
                    console.log(
                        `sweep ${fault} ${length} s run ${r + 1}/${runs}: ${p.moved ? `MOVED evicted ${p.evicted_s} s, scheduled ${p.scheduled_s} s, Running on ${BACKUP} ${p.failover_s} s` : "kept"}; ` +
                            `down ${p.down_s} s, notReady ${p.notReady_s ?? "-"}, tainted ${p.tainted_s ?? "-"}, Ready again ${p.ready_s ?? "-"}` +
                            (back !== undefined ? `; moved back in ${back} s` : ""),
                    );
                    points.push(p);
                }
            }
            out[fault] = summarize(points);
        }
        await stack.destroy();
    } finally {
        await iko?.stop();
        await agents?.stop();
        await front?.stop();
        sandbox.cleanup();
        await fleet.stop();
    }
    return out;
}

/** The sweep over the faults asked for (all four by default); nothing when KAMINO_BENCH_SWEEP_RUNS=0. */
export async function outageSweep(binPath: string): Promise<Partial<Record<SweepFault, FaultSweep>> | undefined> {
    const runs = Number(process.env.KAMINO_BENCH_SWEEP_RUNS ?? "3");
    if (runs <= 0) return undefined;
    const faults = (envList("KAMINO_BENCH_SWEEP_FAULTS") ?? SWEEP_FAULTS.filter((f) => f !== "pull_hung")) as SweepFault[];
    for (const f of faults) if (!SWEEP_FAULTS.includes(f)) throw new Error(`KAMINO_BENCH_SWEEP_FAULTS: unknown fault ${f} (one of ${SWEEP_FAULTS.join(", ")})`);
    const push = faults.filter((f) => f.startsWith("push_"));
    const pull = faults.filter((f) => f.startsWith("pull_"));
    return {
        ...(push.length ? await sweepMode("Push", push, runs, binPath) : {}),
        ...(pull.length ? await sweepMode("Pull", pull, runs, binPath) : {}),
    };
}
