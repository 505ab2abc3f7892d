// `npm run bench` as CI runs it: one member, one run, no failover cycles and no real-node rows (their
// code runs in the failover suite, karmada-chart.test.ts, production-drills.test.ts and mirror-promote-pod.test.ts), in a
// process of its own as a user runs it. A test file, so that jest runs it beside the others instead
// of after them. It is also the cluster tests' 1-member run in CI (KAMINO_CLUSTER_SCALES=4 there): up
// until IKO reports Running, propagation, a no-op up that must change nothing, preview and destroy.
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { REPO } from "../support/engine";
import { runTempDir } from "../support/process-reaper";

jest.setTimeout(10 * 60_000);

test("npm run bench at 1 member writes every figure of its row", async () => {
    const dir = runTempDir("kamino-bench-smoke-");
    try {
        const out = path.join(dir, "bench-results.json");
        await promisify(execFile)(process.execPath, ["-r", "ts-node/register/transpile-only", path.join(REPO, "test/bench/loopback-bench.ts")], {
            cwd: REPO,
            env: {
                ...process.env,
                KAMINO_BENCH_SCALES: "1",
                KAMINO_BENCH_RUNS: "1",
                KAMINO_BENCH_FAILOVER_RUNS: "0",
                KAMINO_BENCH_PROMOTE_RUNS: "0",
                KAMINO_BENCH_SWEEP_RUNS: "0",
                KAMINO_BENCH_CHART_RUNS: "0",
                KAMINO_BENCH_PROD_RUNS: "0",
                KAMINO_BENCH_OUT: out,
            },
            maxBuffer: 16 * 1024 * 1024,
        });
        const row = (JSON.parse(fs.readFileSync(out, "utf8")) as Record<string, Record<string, { median: number }>>)["1"];
        for (const k of ["harness_start_s", "up_s", "propagated_s", "noop_up_s", "preview_s", "destroy_s", "peak_memory_mib"]) {
            expect({ [k]: row?.[k]?.median > 0 }).toEqual({ [k]: true });
        }
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});
