// The outage sweep's figures (test/bench/outage-sweep-bench.ts): from the outages run, by how long
// the member was really down, the longest that moved nothing, the shortest from which all moved, and
// the failover time of those.
import { summarize } from "../bench/outage-sweep-bench";
import { OutagePoint } from "../cluster/outage-sweep";

const point = (down_s: number, failover_s: number | null, length_s = down_s): OutagePoint => ({
    fault: "push_refused",
    length_s,
    down_s,
    notReady_s: 10,
    tainted_s: 10,
    ready_s: failover_s === null ? down_s + 2 : null,
    moved: failover_s !== null,
    evicted_s: failover_s === null ? null : failover_s - 0.5,
    scheduled_s: failover_s === null ? null : failover_s - 0.5,
    failover_s,
});

describe("summarize", () => {
    test("a clean edge: the bound is the longest kept outage, every longer one moved", () => {
        const s = summarize([point(10, null), point(13, null), point(16, null), point(18, 20), point(22, 21), point(30, 20.5)]);
        expect(s).toMatchObject({ false_move_bound_s: 16, always_moves_s: 18, failover_s: { min: 20, median: 20.5, max: 21, runs: [20, 21, 20.5] } });
    });

    test("outages are ordered by how long the member was down, not by how long it was cut off", () => {
        // A restarted API server's start-up: a 12 s cut was down 19 s, longer than a 14 s cut's 17 s.
        const s = summarize([point(19, 20, 12), point(17, null, 14)]);
        expect(s).toMatchObject({ false_move_bound_s: 17, always_moves_s: 19 });
    });

    test("a band where some moved and some did not: the bound stops below the first move, always-moves starts above the last kept", () => {
        const s = summarize([point(14, null), point(16, 20), point(17, null), point(19, 21), point(25, 22)]);
        expect(s).toMatchObject({ false_move_bound_s: 14, always_moves_s: 19, failover_s: { runs: [21, 22] } });
    });

    test("nothing moved: the bound is the longest outage, no always-moves nor failover time", () => {
        expect(summarize([point(5, null), point(20, null)])).toMatchObject({ false_move_bound_s: 20, always_moves_s: null, failover_s: null });
    });

    test("the shortest already moved: no bound", () => {
        expect(summarize([point(5, 18), point(8, 19)])).toMatchObject({ false_move_bound_s: null, always_moves_s: 5 });
    });
});
