// The bench's real-node row: a Karmada host off kind brought up on real nodes, timed. A three-node
// cluster in three zones starts (host_start_s), then `pulumi up` of Kamino's KarmadaEtcd runs its
// three members as real pods until every one is Ready (etcd_up_s); up_real_s is both. Karmada's
// chart cannot be had here (docs/testing.md, Real pods), so this is the part of the production
// install that can run; the seed's "about 10-15 minutes" is the whole chart on kind.
import { LOCAL_STORAGE_CLASS, RealNodes } from "../cluster/nodes";
import { karmadaEtcdStack } from "../cluster/real-etcd-stack";
import { EngineSandbox } from "../support/engine";
import { runTag, sweepRealNodes } from "../support/node-sweep";

export const REAL_METRICS = ["host_start_s", "etcd_up_s", "up_real_s"] as const;
export type RealMetric = (typeof REAL_METRICS)[number];

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** One run: a fresh network, host and stack; everything removed after. */
export async function realNodesOnce(binPath: string): Promise<Record<RealMetric, number>> {
    const nodes = RealNodes.create();
    const sandbox = new EngineSandbox(binPath);
    try {
        const t0 = Date.now();
        const host = await nodes.cluster({ name: "benchhost", nodes: ["zone-a", "zone-b", "zone-c"].map((zone) => ({ zone })), limitCriticalPriority: true });
        const t1 = Date.now();
        const stack = await karmadaEtcdStack(sandbox, "bench-etcd", host.kubeconfig, LOCAL_STORAGE_CLASS);
        const up = await stack.up();
        if (up.summary.result !== "succeeded") throw new Error(`up ${up.summary.result}`);
        const t2 = Date.now();
        return { host_start_s: seconds(t1 - t0), etcd_up_s: seconds(t2 - t1), up_real_s: seconds(t2 - t0) };
    } finally {
        sandbox.cleanup();
        await nodes.close();
        sweepRealNodes(runTag());
    }
}
