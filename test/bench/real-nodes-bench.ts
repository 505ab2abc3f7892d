// The bench's real-node rows. Karmada's own chart on a real-node host shaped as the dev stack's ikofett (chart-fleet.ts): from `pulumi up` to
// every component Ready and a member joined (karmada_up_real_s; the seed gives 10-15 minutes for the
// same chart on kind). The production control plane (prod-fleet.ts): from `pulumi up` to its end
// (prod_up_real_s), and the API's longest gap through a node's power cut and through an upgrade, through
// the aggregated API (node_loss_gap_s, upgrade_gap_s) and for Karmada's own objects, which
// karmada-apiserver answers from its watch cache of etcd (node_loss_etcd_gap_s, upgrade_etcd_gap_s);
// production-drills.test.ts asserts them. And the mirror's promotion.
import { ChartUpTimings, karmadaClient, startChartFleet, stopChartFleet, upChartFleet } from "../cluster/chart-fleet";
import { toolchainVersion } from "../cluster/harness/binaries";
import { nodeLossDrill, upgradeDrill } from "../cluster/prod-drills";
import { startProdFleet, stopProdFleet } from "../cluster/prod-fleet";
import { DEFAULTS } from "../../components/config";
import { loseThePrimaryAndPromote, PromoteTimeline, startMirrorPromoteFleet } from "../cluster/mirror-promote-scenario";
import { RealNodes } from "../cluster/nodes";
import { runTag, sweepRealNodes } from "../support/node-sweep";

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

export const PROD_METRICS = ["prod_up_real_s", "node_loss_gap_s", "node_loss_etcd_gap_s", "upgrade_gap_s", "upgrade_etcd_gap_s"] as const;
export type ProdMetric = (typeof PROD_METRICS)[number];

/** One run of the production drills' timed part: `up`, a node's power cut, the upgrade; everything removed after. */
export async function prodDrillsOnce(): Promise<Record<ProdMetric, number>> {
    const f = await startProdFleet("bench-prod");
    try {
        const t0 = Date.now();
        const up = await f.stack.up();
        const prod_up_real_s = Math.round((Date.now() - t0) / 100) / 10;
        const karmada = karmadaClient(f, String(up.outputs.karmadaKubeconfig.value));
        try {
            const loss = await nodeLossDrill(f, karmada);
            const upgrade = await upgradeDrill(f, karmada, DEFAULTS.karmadaChartVersion, toolchainVersion("KARMADA_NEXT_VERSION"));
            // Each gap's calls, for the reading of a long one (seconds from the drill's start).
            const gaps = (p: { outages: string[] }) => (p.outages.length ? p.outages.join("; ") : "none");
            // And when kube-aggregator answered 503 to every aggregated call (its APIService not Available), seconds from the watch's start.
            const unavailable = (w: { apiServiceNotAvailable: string[] }) => w.apiServiceNotAvailable.join("; ") || "never";
            console.log(
                `  node loss (${loss.node}): aggregated ${gaps(loss.probe)}; etcd ${gaps(loss.etcdProbe)}; APIService not Available ${unavailable(loss.watch)}`,
            );
            console.log(
                `  upgrade: aggregated ${gaps(upgrade.probe)}; etcd ${gaps(upgrade.etcdProbe)}; APIService not Available ${unavailable(upgrade.watch)}, ${unavailable(upgrade.agentWatch)}`,
            );
            return {
                prod_up_real_s,
                node_loss_gap_s: loss.probe.longestGap_s,
                node_loss_etcd_gap_s: loss.etcdProbe.longestGap_s,
                upgrade_gap_s: upgrade.probe.longestGap_s,
                upgrade_etcd_gap_s: upgrade.etcdProbe.longestGap_s,
            };
        } finally {
            karmada.close();
        }
    } finally {
        await stopProdFleet(f);
        sweepRealNodes(runTag());
    }
}
