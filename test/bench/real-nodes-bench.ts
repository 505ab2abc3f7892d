// The bench's real-node row: a Karmada host off kind brought up on real nodes, timed. A three-node
// cluster in three zones starts (host_start_s), then `pulumi up` of Kamino's KarmadaEtcd runs its
// three members as real pods until every one is Ready (etcd_up_s); up_real_s is both. Karmada's
// chart cannot be had here (docs/testing.md, Real pods), so this is the part of the production
// install that can run; the seed's "about 10-15 minutes" is the whole chart on kind.
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
