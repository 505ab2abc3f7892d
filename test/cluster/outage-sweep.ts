// Outages of a chosen length on the loopback fleet, and whether Karmada moved the IrisCluster: what
// docs/disaster-recovery.md's guard promises (an outage shorter than the bound moves nothing, a loss
// longer than it moves within the failover time). CI asserts two lengths per fault
// (test/cluster/outage-bound.test.ts); `npm run bench` sweeps many (test/bench/outage-sweep-bench.ts).
//
// A fault cuts the first member off for `length_s` seconds and then restores it; Karmada's view (the
// Cluster's Ready condition, the failover taint, the ResourceBinding, the template's aggregated
// status) is read every 250 ms and the first moment of each step kept. A point ends when the
// IrisCluster runs on the backup (moved), or when the member is back, Karmada has heard from it
// since, it is Ready and untainted, and the binding has not changed for a few seconds more (kept).
import { failback } from "../../components/karmada/failover/failback";
import { clusterOf, copyOn, goneFrom, placementOf, runsOn } from "./failover-scenario";
import { AgentPlayer, KubeObject, LoopbackFleet, MemberFront, resourcePath } from "./harness";

/**
 * The faults of the sweep: a Push member's API server refusing or hung; a Pull member's agent lost,
 * or its API server refused (or hung: not swept by default, its detection is in the docs).
 */
export const SWEEP_FAULTS = ["push_refused", "push_hung", "pull_agent", "pull_apiserver", "pull_hung"] as const;
export type SweepFault = (typeof SWEEP_FAULTS)[number];

/** What cuts a member off, what brings it back (resolving once it answers again), and whether Karmada has heard from it since. */
export interface SweepCut {
    fault: SweepFault;
    cut: () => Promise<void>;
    restore: () => Promise<void>;
    /** Whether Karmada heard from the member after `since` (ms since the epoch); default: a status probe interval after it. */
    heardSince?: (since: number) => Promise<boolean>;
}

type Lease = KubeObject & { spec?: { renewTime?: string } };

/**
 * The guard as docs/disaster-recovery.md states it at Kamino's defaults (failureDetectionSeconds 12,
 * failoverAfterSeconds 10), from the sweep in bench-results.json (outage_sweep), and the lengths CI
 * asserts it at: per fault, one below the bound (nothing moves) and one above it (a move within the
 * time).
 */
export const GUARD = {
    /** A refusal this long (Push, or a Pull member's API server) is detected and tainted, and moves nothing. */
    refusedBelowS: 13,
    /** A hang this long is not even detected: Karmada's client waits 32 s for an answer. */
    hungBelowS: 20,
    /**
     * An agent away this long moves nothing, though Karmada marks the member Unknown (its cluster Lease
     * unrenewed for 10 s): the new agent, with no leader election to wait for, reports at once.
     */
    agentBelowS: 13,
    /** From the cut to Running on the backup, for a refused member or a lost agent that stays lost. */
    failoverWithinS: 23,
    /**
     * The same for a hung Push member: 66 s in the sweep and most CI runs (not Ready at 56 s), 93.5 s
     * in one run of the cluster stage (not Ready at 82.2 s: a probe round of Karmada's later, each
     * call it makes to a hung member waiting up to 32 s). docs/disaster-recovery.md.
     */
    hungFailoverWithinS: 95,
    /**
     * What CI adds to those: it shares two cores with another fleet (a Pull API server's loss took
     * 35.6 s in a CI run beside real nodes, 20-22 s alone).
     */
    ciMarginS: 15,
} as const;

/** An outage's figures for a suite's report: the numbers seen, `moved` as 0 or 1. */
export function pointFigures(p: OutagePoint): Record<string, number> {
    const out: Record<string, number> = { moved: p.moved ? 1 : 0 };
    for (const [k, v] of Object.entries(p)) if (typeof v === "number") out[k] = v;
    return out;
}

/** What a fault acts on: the fleet, the member, its agent's player (Pull) and its front (refusals). */
export interface SweepTarget {
    fleet: LoopbackFleet;
    member: string;
    /** The fleet's AgentPlayer (pull_agent). */
    agents?: AgentPlayer;
    /** The member's front, which Karmada (Push) or its agent (Pull) dials: refused at once, for exactly the cut (else the API server is stopped and started again). */
    front?: MemberFront;
}

/** The cut of each fault: refused = the front refusing (or the API server stopped and started), hung = SIGSTOP and SIGCONT, agent = paused and resumed. */
export function sweepCut(fault: SweepFault, { fleet, member, agents, front }: SweepTarget): SweepCut {
    switch (fault) {
        case "push_refused":
        case "pull_apiserver":
            return front
                ? { fault, cut: () => front.refuse(), restore: () => front.restore() }
                : { fault, cut: () => fleet.stopApiServer(member), restore: () => fleet.startApiServer(member) };
        case "push_hung":
        case "pull_hung":
            return { fault, cut: async () => fleet.hangApiServer(member), restore: async () => fleet.resumeApiServer(member) };
        case "pull_agent": {
            if (!agents) throw new Error("pull_agent needs the fleet's AgentPlayer");
            const lease = resourcePath("coordination.k8s.io/v1", "leases", { namespace: "karmada-cluster", name: member });
            return {
                fault,
                cut: () => agents.pause(member),
                // Back once the player has started its agent again (kubelet's restart, after its back-off).
                restore: async () => {
                    agents.resume(member);
                    const t = Date.now();
                    while (!agents.agentOf(member)) {
                        if (Date.now() - t > 60_000) throw new Error(`the agent of ${member} did not start again within 60 s`);
                        await new Promise((r) => setTimeout(r, 100));
                    }
                },
                // The agent renews the cluster's Lease in the Karmada API as soon as it runs again.
                heardSince: async (since) => Date.parse((await fleet.karmada.client.get<Lease>(lease))?.spec?.renewTime ?? "") > since,
            };
        }
    }
}

/** One outage: its length and what Karmada did, in seconds since the cut (null: not seen). */
export interface OutagePoint {
    fault: SweepFault;
    /** How long the member was left cut off before it was restored. */
    length_s: number;
    /** From the cut until it answered again (a restarted API server's start-up, an agent's restart, included). */
    down_s: number;
    /** Karmada's Cluster turned not Ready. */
    notReady_s: number | null;
    /** Kamino's ClusterTaintPolicy tainted it NoExecute. */
    tainted_s: number | null;
    /** Ready and untainted again, after having been not Ready. */
    ready_s: number | null;
    /** Whether the IrisCluster left the member. */
    moved: boolean;
    /** The binding no longer targets the member (the taint manager evicted it). */
    evicted_s: number | null;
    /** The binding targets the backup alone (the scheduler moved down the list). */
    scheduled_s: number | null;
    /** Running on the backup. */
    failover_s: number | null;
}

export interface OutageOptions {
    /** Karmada's status probe interval (s): after the member answers again, one probe must have seen it. */
    probeS: number;
    /** How long the binding must stay put once the member is Ready again (default 3 s). */
    settleS?: number;
    /** Give up after this long (default 180 s). */
    timeoutMs?: number;
    /** Restore the member as soon as the IrisCluster runs on the backup (a loss at least that long), rather than after the whole length. */
    untilMoved?: boolean;
}

type ClusterView = Awaited<ReturnType<typeof clusterOf>>;
const readyOf = (c: ClusterView) => c?.status?.conditions?.find((x) => x.type === "Ready")?.status;
const taintedOf = (c: ClusterView) => !!c?.spec?.taints?.some((t) => t.key === "cluster.karmada.io/not-ready" && t.effect === "NoExecute");

/**
 * Cuts `first` off with `cut` for `lengthS` seconds, restores it, and says whether Karmada moved `id`
 * to `backup` and when. The member is always restored, even when the watch fails.
 */
export async function outageOf(
    fleet: LoopbackFleet,
    id: string,
    first: string,
    backup: string,
    cut: SweepCut,
    lengthS: number,
    o: OutageOptions,
): Promise<OutagePoint> {
    const t0 = Date.now();
    const sec = () => Math.round((Date.now() - t0) / 100) / 10;
    const seen: Partial<Record<"notReady_s" | "tainted_s" | "ready_s" | "evicted_s" | "scheduled_s" | "failover_s", number>> = {};
    const see = (k: keyof typeof seen, yes: boolean) => yes && seen[k] === undefined && (seen[k] = sec());
    await cut.cut();
    let backAt: number | undefined;
    let moved = () => {};
    const restored = new Promise<void>((r) => {
        const timer = setTimeout(r, Math.max(0, t0 + lengthS * 1000 - Date.now()));
        moved = () => (clearTimeout(timer), r());
    })
        .then(() => cut.restore())
        .then(() => (backAt = Date.now()));
    let quietSince: number | undefined;
    try {
        for (;;) {
            if (Date.now() - t0 > (o.timeoutMs ?? 180_000)) throw new Error(`${id}: no outcome ${sec()} s after a ${lengthS} s cut of ${first}`);
            const [cluster, p] = await Promise.all([clusterOf(fleet, first), placementOf(fleet, id)]);
            const ready = readyOf(cluster) === "True";
            const tainted = taintedOf(cluster);
            see("notReady_s", readyOf(cluster) !== undefined && !ready);
            see("tainted_s", tainted);
            see("ready_s", seen.notReady_s !== undefined && ready && !tainted);
            see("evicted_s", !p.clusters.includes(first));
            see("scheduled_s", seen.evicted_s !== undefined && p.clusters.length === 1 && p.clusters[0] === backup);
            see("failover_s", seen.scheduled_s !== undefined && p.running.includes(backup));
            if (seen.failover_s !== undefined) {
                if (o.untilMoved) moved();
                break;
            }
            const heard = backAt !== undefined && (cut.heardSince ? await cut.heardSince(backAt) : Date.now() >= backAt + (o.probeS + 1) * 1000);
            quietSince = heard && ready && !tainted && seen.evicted_s === undefined ? (quietSince ?? Date.now()) : undefined;
            if (quietSince !== undefined && Date.now() - quietSince >= (o.settleS ?? 3) * 1000) break;
            await new Promise((r) => setTimeout(r, 250));
        }
    } finally {
        await restored;
    }
    const at = (k: keyof typeof seen) => seen[k] ?? null;
    return {
        fault: cut.fault,
        length_s: lengthS,
        down_s: Math.round((backAt! - t0) / 100) / 10,
        notReady_s: at("notReady_s"),
        tainted_s: at("tainted_s"),
        ready_s: at("ready_s"),
        moved: seen.evicted_s !== undefined,
        evicted_s: at("evicted_s"),
        scheduled_s: at("scheduled_s"),
        failover_s: at("failover_s"),
    };
}

/**
 * After a move: waits until `first` is Ready again without its stale copy, then moves `id` back to
 * it as `npm run failback` does, and waits until it runs there only. Returns the failback's seconds.
 */
export async function moveBack(fleet: LoopbackFleet, id: string, first: string, backup: string): Promise<number> {
    await fleet.waitFor(
        `${first} Ready and untainted without its stale copy of ${id}`,
        async () => {
            const c = await clusterOf(fleet, first);
            return readyOf(c) === "True" && !taintedOf(c) && (await copyOn(fleet, first, id)) === undefined ? true : undefined;
        },
        180_000,
    );
    const t = Date.now();
    // The harness's own client: @kubernetes/client-node (kubeRequest's) does not load under jest.
    await failback((method, path, body, contentType) => fleet.karmada.client.request(method, path, body, contentType), id);
    await runsOn(fleet, id, first);
    await goneFrom(fleet, id, backup);
    return Math.round((Date.now() - t) / 100) / 10;
}
