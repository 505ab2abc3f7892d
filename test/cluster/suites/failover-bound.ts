// The guard of failoverAfterSeconds on the shared fleet's Push member (docs/disaster-recovery.md, the
// bound): CI's points of the outage sweep's Push faults (test/cluster/outage-sweep.ts; `npm run bench`
// sweeps many lengths). Refused, below the bound: the member's front refuses long enough for Karmada
// to mark it not Ready and taint it, and answers again in time: nothing moves (with Karmada's own
// 30 s success threshold it moved). Hung, above the bound: its API server hangs until Karmada has
// moved the IrisCluster, which it does within the documented time. The refused loss above the bound
// is the failover suite's outage; the hang below it, its 20 s blink.
import { GUARD, moveBack, outageOf, pointFigures, sweepCut } from "../outage-sweep";
import { placementOf } from "../failover-scenario";
import { LoopbackFleet, MemberFront } from "../harness";
import { SuiteReport } from "../scaffold/report";
import { DEFAULTS } from "../../../components/config";
import { detectionFlags } from "../../../components/karmada/failover/detection";

/** What the tests act on, read when they run (the suite's beforeAll sets them). */
export interface BoundContext {
    fleet: LoopbackFleet;
    /** The first member's front, which Karmada dials (the stack declares the member at it). */
    front: MemberFront;
    report: SuiteReport;
    id: string;
    first: string;
    backup: string;
}

const probeS = parseInt(detectionFlags(DEFAULTS.failureDetectionSeconds).controllerManager["cluster-status-update-frequency"], 10);

/** A refusal shorter than the bound: detected and tainted, and the IrisCluster stays. */
export function refusedBelowBound(ctx: () => BoundContext): void {
    test(`a refusal of the first member shorter than the bound (${GUARD.refusedBelowS} s): not Ready and tainted, Ready again before the toleration ran out, nothing moved`, async () => {
        const { fleet, front, report, id, first, backup } = ctx();
        const p = await outageOf(fleet, id, first, backup, sweepCut("push_refused", { fleet, member: first, front }), GUARD.refusedBelowS, { probeS });
        report.record("refused below the bound (s since the cut)", pointFigures(p));
        expect(p.moved).toBe(false);
        // The toleration did the guarding: Karmada had marked it not Ready and tainted it.
        expect(p.notReady_s).not.toBeNull();
        expect(p.tainted_s).not.toBeNull();
        expect(p.ready_s).not.toBeNull();
        expect((await placementOf(fleet, id)).clusters).toEqual([first]);
    });
}

/** A hang longer than the bound: moved within the documented time; then the member answers again. */
export function hungAboveBound(ctx: () => BoundContext): void {
    test(`a hang of the first member longer than the bound: Karmada moves the IrisCluster within ${GUARD.hungFailoverWithinS} s`, async () => {
        const { fleet, report, id, first, backup } = ctx();
        // Where the step before left it: back on the first member, as `npm run failback` puts it.
        if ((await placementOf(fleet, id)).clusters[0] !== first) report.record("failback before the hang (s)", await moveBack(fleet, id, first, backup));
        const p = await outageOf(fleet, id, first, backup, sweepCut("push_hung", { fleet, member: first }), GUARD.hungFailoverWithinS + 30, {
            probeS,
            untilMoved: true,
        });
        report.record("hung above the bound (s since the hang)", pointFigures(p));
        expect(p.moved).toBe(true);
        // Not detected before Karmada's client gave up on it twice (32 s each, hard-coded).
        expect(p.notReady_s).toBeGreaterThan(32);
        expect(p.failover_s).toBeLessThanOrEqual(GUARD.hungFailoverWithinS + GUARD.ciMarginS);
    });
}
