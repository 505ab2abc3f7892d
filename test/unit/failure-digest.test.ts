// The digest `.ci/run` prints last when a jest run failed (test/support/failure-digest.js): every
// failed test with the head of its message, a file that failed outside its tests, and nothing else.
import * as path from "path";
import { execFileSync } from "child_process";
import { runTempDir } from "../support/process-reaper";

const DIGEST = path.join(__dirname, "..", "support", "failure-digest.js");
const { failureDigest } = require(DIGEST) as { failureDigest: (results: unknown, lines?: number) => string[] };
const ROOT = path.join(__dirname, "..", "..");

const RESULTS = {
    testResults: [
        {
            name: path.join(ROOT, "test/cluster/two-member-fleet.test.ts"),
            status: "failed",
            message: "",
            assertionResults: [
                { status: "passed", ancestorTitles: ["failover"], title: "moves", failureMessages: [] },
                {
                    status: "failed",
                    ancestorTitles: ["preview diffs"],
                    title: "PR: preview with the clusters unreachable",
                    failureMessages: ["\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nExpected: 0\nReceived: 2\n" + "    at line\n".repeat(20)],
                },
            ],
        },
        {
            name: path.join(ROOT, "test/cluster/propagation.test.ts"),
            status: "passed",
            message: "",
            assertionResults: [{ status: "passed", ancestorTitles: [], title: "ok", failureMessages: [] }],
        },
        { name: path.join(ROOT, "test/cluster/faults.test.ts"), status: "failed", message: "beforeAll: the harness did not start", assertionResults: [] },
    ],
};

test("names each failed test by file and describe path, with its message's head uncoloured; a file that failed outside its tests too; nothing that passed", () => {
    const digest = failureDigest(RESULTS, 4);
    expect(digest[0]).toBe("✕ test/cluster/two-member-fleet.test.ts › preview diffs › PR: preview with the clusters unreachable");
    expect(digest.slice(1, 5)).toEqual(["    Error: expect(received).toBe(expected)", "    Expected: 0", "    Received: 2", "    at line"]);
    expect(digest[5]).toBe("    … 19 more line(s)");
    expect(digest).toContain("✕ test/cluster/faults.test.ts (outside any test)");
    expect(digest).toContain("    beforeAll: the harness did not start");
    expect(digest.join("\n")).not.toMatch(/moves|propagation/);
    expect(failureDigest({ testResults: [RESULTS.testResults[1]] })).toEqual([]);
});

test("run on files: counts the failures, and says so when a run left no results", () => {
    const dir = runTempDir("kamino-digest-");
    const file = path.join(dir, "results.json");
    require("fs").writeFileSync(file, JSON.stringify(RESULTS));
    const out = execFileSync(process.execPath, [DIGEST, file, path.join(dir, "missing.json")], { encoding: "utf8" });
    expect(out).toContain("missing.json: no results");
    expect(out.trim().split("\n").pop()).toBe("3 failure(s) above");
});
