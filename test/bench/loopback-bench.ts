// `npm run bench`: the everyday loop timed on the loopback fleet (real engine, real Karmada, IKO
// played by the harness with no delay), at several member counts, several runs each. Prints a
// table (min / median / max) and writes the same figures as JSON.
//
// Then failover at Kamino's defaults (Pulumi.dr.yaml's federated-iris over ikoclone and ikodr): on one
// fleet per sync mode, several cycles of outage (until the IrisCluster runs on the backup), return
// (until its stale copy is gone) and failback. Push: the first member's API server stops. Pull (both
// members joined by Pull, the real karmada-agent): its agent stops, then its API server.
//
//   KAMINO_BENCH_SCALES=1,8,16   member counts (default 1,8,16)
//   KAMINO_BENCH_RUNS=3          runs per count (default 3)
//   KAMINO_BENCH_FAILOVER_RUNS=3 failover cycles (default 3; 0 skips failover)
//   KAMINO_BENCH_FAILOVER_MODES=Push,Pull  the sync modes cycled (default both); a mode left out keeps its figures
//   KAMINO_BENCH_PROMOTE_RUNS=3  runs of the mirror's promotion, promote_s (default RUNS; 0 skips it; root only)
//   KAMINO_BENCH_SWEEP_RUNS=3    runs per length of the outage sweep (default 3; 0 skips it; outage-sweep-bench.ts)
//   KAMINO_BENCH_CHART_RUNS=3    installs of Karmada's chart on real nodes, karmada_up_real_s (default RUNS; 0 skips it; root only)
//   KAMINO_BENCH_PROD_RUNS=3     the production drills' timed part on real nodes: prod_up_real_s, node_loss_gap_s, node_loss_etcd_gap_s, upgrade_gap_s, upgrade_etcd_gap_s (default RUNS; 0 skips it; root only)
//   KAMINO_BENCH_OUT=bench-results.json
import * as fs from "fs";
import * as os from "os";
import { EngineSandbox, toolchainPath } from "../support/engine";
import * as path from "path";
import { AgentPlayer, findBinaries, IkoPlayer, KubeObject, LoopbackFleet, resourcePath } from "../cluster/harness";
import { loopbackStack } from "../cluster/loopback-stack";
import { apiServerDown, comeBack, Fault, outage, OutageTimeline, ReturnTimeline, runsOn } from "../cluster/failover-scenario";
import { DEFAULTS } from "../../components/config";
import { failback } from "../../components/karmada/failover/failback";
import { kubeRequest } from "../../components/live/kube-read";
import { peakMemorySampler } from "./memory";
import { CHART_METRICS, karmadaChartOnce, PROD_METRICS, prodDrillsOnce, PROMOTE_METRICS, promoteOnce } from "./real-nodes-bench";
import { outageSweep } from "./outage-sweep-bench";
import processReaper from "../support/process-reaper";

// An empty list (KAMINO_BENCH_SCALES=) runs the failover cycles alone; sections not measured keep their figures in OUT.
const SCALES = (process.env.KAMINO_BENCH_SCALES ?? "1,8,16")
    .split(",")
    .filter((s) => s.trim() !== "")
    .map(Number);
const RUNS = Number(process.env.KAMINO_BENCH_RUNS ?? "3");
const FAILOVER_RUNS = Number(process.env.KAMINO_BENCH_FAILOVER_RUNS ?? "3");
const FAILOVER_MODES = (process.env.KAMINO_BENCH_FAILOVER_MODES ?? "Push,Pull").split(",").map((m) => m.trim());
for (const m of FAILOVER_MODES) if (m !== "Push" && m !== "Pull") throw new Error(`KAMINO_BENCH_FAILOVER_MODES: unknown mode ${m} (Push, Pull)`);
const OUT = process.env.KAMINO_BENCH_OUT ?? "bench-results.json";
const PROMOTE_RUNS = Number(process.env.KAMINO_BENCH_PROMOTE_RUNS ?? String(RUNS));
const CHART_RUNS = Number(process.env.KAMINO_BENCH_CHART_RUNS ?? String(RUNS));
const PROD_RUNS = Number(process.env.KAMINO_BENCH_PROD_RUNS ?? String(RUNS));
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });

// peak_memory_mib: the RSS of the bench's whole process tree (the harness's processes, Pulumi and its
// providers, the bench) at its highest during the run, sampled every 0.5 s.
const METRICS = ["harness_start_s", "up_s", "propagated_s", "noop_up_s", "preview_s", "destroy_s", "peak_memory_mib"] as const;
/** The medians compared with the 1-member run: a flat loop stays near 1. */
const RATIO_METRICS = ["up_s", "noop_up_s", "preview_s"] as const;
type Metric = (typeof METRICS)[number];
type Stats = { min: number; median: number; max: number; runs: number[] };

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const stats = (xs: number[]): Stats => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    return { min: s[0], median: Math.round(mid * 10) / 10, max: s[s.length - 1], runs: xs };
};

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
    const t = Date.now();
    const out = await fn();
    return [out, seconds(Date.now() - t)];
}

/** One run at one scale: a fresh harness and stack, up / no-op up / preview / destroy. */
async function once(members: number, binPath: string): Promise<Record<Metric, number>> {
    const names = Array.from({ length: members }, (_, i) => (i === 0 ? "ikoclone" : `ikoclone${i + 1}`));
    const fleet = new LoopbackFleet({ hostName: "ikofett", members: names });
    const sandbox = new EngineSandbox(binPath);
    let iko: IkoPlayer | undefined;
    const memory = peakMemorySampler();
    try {
        const [, harness] = await timed(() => fleet.start());
        iko = new IkoPlayer(fleet.members, 0).start();
        const stack = await loopbackStack(sandbox, fleet, `bench-${members}`);

        // Propagated: from the start of `up` until federated-iris exists on every member.
        const t0 = Date.now();
        let propagatedAt: number | undefined;
        const watch = (async () => {
            while (propagatedAt === undefined) {
                const found = await Promise.all(fleet.members.map((m) => m.client.get<KubeObject>(IRIS).catch(() => undefined)));
                if (found.every((f) => f)) propagatedAt = Date.now();
                else await new Promise((r) => setTimeout(r, 200));
            }
        })();
        const up = await stack.up();
        const upS = seconds(Date.now() - t0);
        if (up.summary.result !== "succeeded") throw new Error(`up ${up.summary.result}`);
        await watch;
        const [, noop] = await timed(() => stack.up({ expectNoChanges: true }));
        const [, preview] = await timed(() => stack.preview());
        const [, destroy] = await timed(() => stack.destroy());
        const peak = memory.stop();
        return {
            harness_start_s: harness,
            up_s: upS,
            propagated_s: seconds(propagatedAt! - t0),
            noop_up_s: noop,
            preview_s: preview,
            destroy_s: destroy,
            peak_memory_mib: peak,
        };
    } finally {
        memory.stop();
        await iko?.stop();
        sandbox.cleanup();
        await fleet.stop();
    }
}

const FAILOVER_METRICS = ["notReady_s", "tainted_s", "evicted_s", "scheduled_s", "failover_s", "stale_removed_s", "ready_s", "failback_s"] as const;
type FailoverMetric = (typeof FAILOVER_METRICS)[number];

/** What is lost in one failover cycle: a Push member's API server, a Pull member's agent, or a Pull member's API server. */
const FAULTS = ["push_apiserver", "pull_agent", "pull_apiserver"] as const;
type FaultKind = (typeof FAULTS)[number];

/**
 * Failover cycles on one 2-member fleet per sync mode: outage, return, failback; the stack made once
 * per mode. Push: the first member's API server stops. Pull (both members joined by Pull, the real
 * karmada-agent played by the harness): its agent stops, then, in the same cycle, its API server.
 */
async function failoverCycles(runs: number, binPath: string, mode: "Push" | "Pull"): Promise<Partial<Record<FaultKind, Record<FailoverMetric, number>[]>>> {
    const id = "default/federated-iris";
    const fleet = new LoopbackFleet({ hostName: "ikofett", members: ["ikoclone", "ikodr"] });
    const sandbox = new EngineSandbox(binPath);
    let iko: IkoPlayer | undefined;
    let agents: AgentPlayer | undefined;
    const out: Partial<Record<FaultKind, Record<FailoverMetric, number>[]>> = {};
    try {
        await fleet.start();
        iko = new IkoPlayer(fleet.members, 0).start();
        if (mode === "Pull") agents = new AgentPlayer(fleet.members, { binary: findBinaries()["karmada-agent"], dir: path.join(fleet.dir, "agents") }).start();
        const syncModes = mode === "Pull" ? { ikoclone: "Pull" as const, ikodr: "Pull" as const } : undefined;
        const stack = await loopbackStack(sandbox, fleet, `bench-failover-${mode.toLowerCase()}`, { irisClustersFrom: "Pulumi.dr.yaml", syncModes });
        const up = await stack.up();
        if (up.summary.result !== "succeeded") throw new Error(`up ${up.summary.result}`);
        const karmada = fs.readFileSync(fleet.karmadaKubeconfig, "utf8");
        const faults: [FaultKind, Fault][] =
            mode === "Push"
                ? [["push_apiserver", apiServerDown(fleet, "ikoclone")]]
                : [
                      ["pull_agent", { cut: () => agents!.pause("ikoclone"), restore: async () => agents!.resume("ikoclone") }],
                      ["pull_apiserver", apiServerDown(fleet, "ikoclone")],
                  ];
        for (let i = 0; i < runs; i++) {
            for (const [kind, fault] of faults) {
                const away: OutageTimeline = await outage(fleet, id, "ikoclone", "ikodr", 180_000, fault);
                const back: ReturnTimeline = await comeBack(fleet, id, "ikoclone", 180_000, fault);
                const t = Date.now();
                await failback((method, p, body, contentType) => kubeRequest(karmada, method, p, body, { contentType }), id);
                await runsOn(fleet, id, "ikoclone");
                const r = { ...away, ...back, failback_s: seconds(Date.now() - t) };
                console.log(`failover ${kind} run ${i + 1}/${runs}: ${FAILOVER_METRICS.map((m) => `${m}=${r[m].toFixed(1)}`).join(" ")}`);
                (out[kind] ??= []).push(r);
            }
        }
        await stack.destroy();
    } finally {
        await iko?.stop();
        await agents?.stop();
        sandbox.cleanup();
        await fleet.stop();
    }
    return out;
}

/** For each scale but 1, its medians over the 1-member medians (none without a 1-member run). */
function ratiosToOne(results: Record<string, Record<Metric, Stats>>): Record<string, Record<string, number>> {
    const one = results["1"];
    if (!one) return {};
    return Object.fromEntries(
        Object.entries(results)
            .filter(([n]) => n !== "1")
            .map(([n, r]) => [n, Object.fromEntries(RATIO_METRICS.map((m) => [m, Math.round((r[m].median / one[m].median) * 100) / 100]))]),
    );
}

/** The figures OUT holds from earlier runs (none yet: empty). */
function readEarlier(): Record<string, unknown> & { machine?: Record<string, unknown> } {
    const text = fs.existsSync(OUT) ? fs.readFileSync(OUT, "utf8").trim() : "";
    return text ? JSON.parse(text) : {};
}

async function main(): Promise<void> {
    processReaper(); // its fleets, real nodes and temp dirs (keys among them) go when it ends or is interrupted
    const binPath = toolchainPath("engine");
    const results: Record<string, Record<Metric, Stats>> = {};
    for (const members of SCALES) {
        const runs: Record<Metric, number>[] = [];
        for (let i = 0; i < RUNS; i++) {
            const r = await once(members, binPath);
            console.log(`members=${members} run ${i + 1}/${RUNS}: ${METRICS.map((m) => `${m}=${r[m]}`).join(" ")}`);
            runs.push(r);
        }
        results[String(members)] = Object.fromEntries(METRICS.map((m) => [m, stats(runs.map((r) => r[m]))])) as Record<Metric, Stats>;
    }
    const ratios = ratiosToOne(results);
    for (const [n, r] of Object.entries(ratios)) (results[n] as Record<string, unknown>).ratio_to_1_member = r;
    const cycles: Partial<Record<FaultKind, Record<FailoverMetric, number>[]>> = {};
    if (FAILOVER_RUNS > 0)
        for (const mode of FAILOVER_MODES as Array<"Push" | "Pull">) Object.assign(cycles, await failoverCycles(FAILOVER_RUNS, binPath, mode));
    const timeline = (rs: Record<FailoverMetric, number>[]) =>
        Object.fromEntries(FAILOVER_METRICS.map((m) => [m, stats(rs.map((r) => Math.round(r[m] * 10) / 10))])) as Record<FailoverMetric, Stats>;
    // `failover` keeps its shape (a Push member's API server lost); the Pull faults sit beside it. A mode
    // not cycled this run keeps the figures of the run before.
    type Timeline = Record<FailoverMetric, Stats>;
    const earlierFailover = (readEarlier().failover ?? {}) as Timeline & { pull: { agent_lost: Timeline; apiserver_lost: Timeline } };
    const failover =
        cycles.push_apiserver || cycles.pull_agent
            ? {
                  ...(cycles.push_apiserver ? timeline(cycles.push_apiserver) : earlierFailover),
                  detection_s: DEFAULTS.failureDetectionSeconds,
                  pull: cycles.pull_agent
                      ? { agent_lost: timeline(cycles.pull_agent), apiserver_lost: timeline(cycles.pull_apiserver!) }
                      : earlierFailover.pull,
              }
            : undefined;
    const sweep = await outageSweep(binPath);
    // A sweep at another toleration than Pulumi.dr.yaml's is kept beside the default one.
    const after = process.env.KAMINO_BENCH_SWEEP_FAILOVER_AFTER;
    const sweepKey = after ? `outage_sweep_failover_after_${after}` : "outage_sweep";
    const promoteRuns: Record<string, number>[] = [];
    for (let i = 0; i < PROMOTE_RUNS; i++) {
        promoteRuns.push(await promoteOnce(binPath));
        console.log(`promotion run ${i + 1}/${PROMOTE_RUNS}: ${PROMOTE_METRICS.map((m) => `${m}=${promoteRuns[i][m]}`).join(" ")}`);
    }
    const promote = PROMOTE_RUNS > 0 ? Object.fromEntries(PROMOTE_METRICS.map((m) => [m, stats(promoteRuns.map((r) => r[m]))])) : undefined;
    const chartRuns: Record<string, number>[] = [];
    for (let i = 0; i < CHART_RUNS; i++) {
        chartRuns.push(await karmadaChartOnce());
        console.log(`Karmada's chart run ${i + 1}/${CHART_RUNS}: ${CHART_METRICS.map((m) => `${m}=${chartRuns[i][m]}`).join(" ")}`);
    }
    const chart = CHART_RUNS > 0 ? Object.fromEntries(CHART_METRICS.map((m) => [m, stats(chartRuns.map((r) => r[m]))])) : undefined;
    const prodRuns: Record<string, number>[] = [];
    for (let i = 0; i < PROD_RUNS; i++) {
        prodRuns.push(await prodDrillsOnce());
        console.log(`production drills run ${i + 1}/${PROD_RUNS}: ${PROD_METRICS.map((m) => `${m}=${prodRuns[i][m]}`).join(" ")}`);
    }
    const prod = PROD_RUNS > 0 ? Object.fromEntries(PROD_METRICS.map((m) => [m, stats(prodRuns.map((r) => r[m]))])) : undefined;
    const machine = {
        cores: os.cpus().length,
        memory_gib: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        date: new Date().toISOString().slice(0, 10),
        runs: RUNS,
        failover_runs: (cycles.push_apiserver ?? cycles.pull_agent)?.length ?? 0,
        ...(FAILOVER_MODES.length < 2 ? { failover_modes: FAILOVER_MODES } : {}),
    };
    // Sections this run did not measure keep their figures, and the machine they were taken on.
    const earlier = readEarlier();
    const earlierMachines = earlier.machine && "cores" in earlier.machine ? { scales: earlier.machine } : (earlier.machine ?? {});
    // Each section by its key, undefined when this run did not measure it.
    const sections: Record<string, unknown> = { failover, promote, karmada_chart: chart, prod_drills: prod };
    const measured = (k: string) => (k in sections ? sections[k] !== undefined : k.startsWith("outage_sweep") ? !!sweep && k === sweepKey : SCALES.length > 0);
    const kept = Object.fromEntries(Object.entries(earlier).filter(([k]) => k !== "machine" && !measured(k)));
    // A sweep of some faults (KAMINO_BENCH_SWEEP_FAULTS) keeps the others' figures, and says when those were taken.
    const earlierSweep = (earlier[sweepKey] ?? {}) as Record<string, unknown>;
    const keptFaults = Object.keys(earlierSweep).filter((f) => !(sweep && f in sweep));
    const sweepFigures = sweep ? { ...earlierSweep, ...sweep } : undefined;
    const sweepMachine = {
        ...machine,
        runs: Number(process.env.KAMINO_BENCH_SWEEP_RUNS ?? "3"),
        ...(sweep && keptFaults.length
            ? { faults: Object.keys(sweep), earlier: { faults: keptFaults, ...((earlierMachines as Record<string, unknown>)[sweepKey] as object) } }
            : {}),
    };
    const machines = {
        ...earlierMachines,
        ...(SCALES.length ? { scales: machine } : {}),
        ...(failover ? { failover: machine } : {}),
        ...(promote ? { promote: { ...machine, runs: PROMOTE_RUNS } } : {}),
        ...(sweep ? { [sweepKey]: sweepMachine } : {}),
        ...(chart ? { karmada_chart: { ...machine, runs: CHART_RUNS } } : {}),
        ...(prod ? { prod_drills: { ...machine, runs: PROD_RUNS } } : {}),
    };
    fs.writeFileSync(
        OUT,
        JSON.stringify(
            {
                machine: machines,
                ...kept,
                ...results,
                ...(failover ? { failover } : {}),
                ...(promote ? { promote } : {}),
                ...(sweepFigures ? { [sweepKey]: sweepFigures } : {}),
                ...(chart ? { karmada_chart: chart } : {}),
                ...(prod ? { prod_drills: prod } : {}),
            },
            null,
            2,
        ) + "\n",
    );

    const head = `| members | ${METRICS.map((m) => m.replace(/_s$/, "")).join(" | ")} |`;
    const rows = Object.entries(results).map(([n, r]) => `| ${n} | ${METRICS.map((m) => `${r[m].min} / ${r[m].median} / ${r[m].max}`).join(" | ")} |`);
    if (rows.length)
        console.log(
            [
                `seconds, min / median / max of ${RUNS} run(s); ${machine.cores} cores, Node ${machine.node}`,
                head,
                `|---|${METRICS.map(() => "---").join("|")}|`,
                ...rows,
            ].join("\n"),
        );
    for (const [n, r] of Object.entries(ratios))
        console.log(`${n} members / 1 member, medians: ${RATIO_METRICS.map((m) => `${m.replace(/_s$/, "")} ${r[m]}x`).join(", ")}`);
    if (failover) {
        console.log(
            `failover at Kamino's defaults (detection ${DEFAULTS.failureDetectionSeconds} s), seconds since the outage (return and failback: since their start), min / median / max of ${machine.failover_runs} run(s)`,
        );
        for (const [what, t] of [
            ["Push, API server lost", failover],
            ["Pull, agent lost", failover.pull.agent_lost],
            ["Pull, API server lost", failover.pull.apiserver_lost],
        ] as const) {
            console.log(`${what}\n${FAILOVER_METRICS.map((m) => `  ${m}: ${t[m].min} / ${t[m].median} / ${t[m].max}`).join("\n")}`);
        }
    }
    if (promote)
        console.log(
            `the mirror's promotion (the primary's member lost for good, then npm run promote), seconds since the loss, min / median / max of ${PROMOTE_RUNS} run(s): ${PROMOTE_METRICS.map((m) => `${m} ${promote[m].min} / ${promote[m].median} / ${promote[m].max}`).join(", ")}`,
        );
    for (const [fault, f] of Object.entries(sweep ?? {}))
        console.log(
            `outage sweep, ${fault}: nothing moved up to ${f.false_move_bound_s ?? "-"} s, everything from ${f.always_moves_s ?? "-"} s` +
                (f.failover_s ? `, Running on the backup ${f.failover_s.min} / ${f.failover_s.median} / ${f.failover_s.max} s after the cut` : ""),
        );
    if (chart)
        console.log(
            `Karmada's chart on real nodes (ikofett's shape; from pulumi up), min / median / max of ${CHART_RUNS} run(s): ${CHART_METRICS.map((m) => `${m} ${chart[m].min} / ${chart[m].median} / ${chart[m].max}`).join(", ")}`,
        );
    if (prod)
        console.log(
            `the production control plane on real nodes, min / median / max of ${PROD_RUNS} run(s): ${PROD_METRICS.map((m) => `${m} ${prod[m].min} / ${prod[m].median} / ${prod[m].max}`).join(", ")}`,
        );
    console.log(`wrote ${OUT}`);
}

main().catch((e) => {
    console.error(e);
    process.exit(1);
});
