// The bench's real-node rows. Kamino's etcd off kind brought up on real nodes, timed: a three-node
// cluster in three zones starts (host_start_s), then `pulumi up` of Kamino's KarmadaEtcd runs its
// three members as real pods until every one is Ready (etcd_up_s); up_real_s is both. Karmada's own
// chart on a real-node host shaped as the dev stack's ikofett (chart-fleet.ts): from `pulumi up` to
// every component Ready and a member joined (karmada_up_real_s; the seed gives 10-15 minutes for the
// same chart on kind). And the mirror's promotion.
import { ChartUpTimings, startChartFleet, stopChartFleet, upChartFleet } from "../cluster/chart-fleet";
import { loseThePrimaryAndPromote, PromoteTimeline, startMirrorPromoteFleet } from "../cluster/mirror-promote-scenario";
import { RealNodes } from "../cluster/nodes";
import { realEtcdHost, RealEtcdTimings } from "../cluster/real-etcd-stack";
import { EngineSandbox } from "../support/engine";
import { runTag, sweepRealNodes } from "../support/node-sweep";

export const REAL_METRICS = ["host_start_s", "etcd_up_s", "up_real_s"] as const satisfies readonly (keyof RealEtcdTimings)[];
export type RealMetric = (typeof REAL_METRICS)[number];

/** One run: a fresh network, host and stack; everything removed after. */
export async function realNodesOnce(binPath: string): Promise<Record<RealMetric, number>> {
    const nodes = RealNodes.create();
    const sandbox = new EngineSandbox(binPath);
    try {
        return (await realEtcdHost(nodes, sandbox, { host: "benchhost", stack: "bench-etcd" })).timings;
    } finally {
        sandbox.cleanup();
        await nodes.close();
        sweepRealNodes(runTag());
    }
}

export const PROMOTE_METRICS = ["detected_s", "promote_cmd_s", "promote_s"] as const satisfies readonly (keyof PromoteTimeline)[];
export type PromoteMetric = (typeof PROMOTE_METRICS)[number];

/**
 * One promotion: a fresh fleet (loopback Karmada and primary, a real-node DR member with its DR pod),
 * the mirror up, the primary's member lost for good, then the whole `npm run promote`, timed from the
 * loss (mirror-promote-pod.test.ts asserts the same scenario in CI).
 */
export async function promoteOnce(binPath: string): Promise<Record<PromoteMetric, number>> {
    const nodes = RealNodes.create();
    try {
        const f = await startMirrorPromoteFleet(nodes, binPath);
        try {
            return (await loseThePrimaryAndPromote(f)).timeline;
        } finally {
            await f.stop();
        }
    } finally {
        await nodes.close();
        sweepRealNodes(runTag());
    }
}

export const CHART_METRICS = ["components_ready_s", "karmada_up_real_s", "up_s"] as const satisfies readonly (keyof ChartUpTimings)[];
export type ChartMetric = (typeof CHART_METRICS)[number];

/** One install of Karmada's chart on a fresh real-node fleet (karmada-chart.test.ts asserts the same up), timed. */
export async function karmadaChartOnce(): Promise<Record<ChartMetric, number>> {
    const f = await startChartFleet("bench-chart");
    try {
        const { timings } = await upChartFleet(f);
        return Object.fromEntries(CHART_METRICS.map((m) => [m, Math.round(timings[m] * 10) / 10])) as Record<ChartMetric, number>;
    } finally {
        await stopChartFleet(f);
        sweepRealNodes(runTag());
    }
}
