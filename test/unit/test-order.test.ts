// The cluster stage's order (test/support/longest-first.js): every cluster and engine file has a committed
// time, so that none falls back to jest's order by size on a machine without jest's cache.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

const { longestFirst, expectedSeconds } = require("../support/longest-first") as {
    longestFirst: (tests: Array<{ path: string }>) => Array<{ path: string }>;
    expectedSeconds: (file: string) => number | undefined;
};
const REAL_NODES = (JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "test/support/file-durations.json"), "utf8")) as { realNodes: string[] })
    .realNodes;
const ROOT = path.join(__dirname, "..", "..");
const DURATIONS = (JSON.parse(fs.readFileSync(path.join(ROOT, "test/support/file-durations.json"), "utf8")) as { seconds: Record<string, number> }).seconds;
// CI runs the engine files in the cluster stage's jest run (.ci/run).
const clusterFiles = ["test/cluster", "test/engine"].flatMap((dir) =>
    fs
        .readdirSync(path.join(ROOT, dir))
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `${dir}/${f}`),
);

test("every cluster and engine test file has a time, and every time a file", () => {
    expect(clusterFiles.length).toBeGreaterThan(10);
    expect(clusterFiles.filter((f) => DURATIONS[f] === undefined)).toEqual([]);
    expect(Object.keys(DURATIONS).filter((f) => !clusterFiles.includes(f))).toEqual([]);
});

test("timed files run longest first, after the untimed ones, which keep jest's order", () => {
    const at = (f: string) => ({ path: path.join(ROOT, f) });
    const jestOrder = [
        "test/cluster/harness.test.ts",
        "test/unit/b.test.ts",
        "test/cluster/two-member-fleet.test.ts",
        "test/unit/a.test.ts",
        "test/cluster/faults.test.ts",
    ].map(at);
    expect(longestFirst(jestOrder).map((t) => path.relative(ROOT, t.path))).toEqual([
        "test/unit/b.test.ts",
        "test/unit/a.test.ts",
        "test/cluster/two-member-fleet.test.ts",
        "test/cluster/faults.test.ts",
        "test/cluster/harness.test.ts",
    ]);
    expect(expectedSeconds(path.join(ROOT, "test/cluster/two-member-fleet.test.ts"))).toBe(DURATIONS["test/cluster/two-member-fleet.test.ts"]);
});

test("the files that run real nodes come last, longest first, after every loopback file however long", () => {
    const at = (f: string) => ({ path: path.join(ROOT, f) });
    const order = longestFirst(clusterFiles.map(at)).map((t) => path.relative(ROOT, t.path));
    expect(REAL_NODES.length).toBeGreaterThan(0);
    expect(order.slice(-REAL_NODES.length)).toEqual([...REAL_NODES].sort((a, b) => DURATIONS[b] - DURATIONS[a]));
    // Each listed file exists and starts real nodes (RealNodes), and no other file does.
    const startsNodes = clusterFiles.filter((f) =>
        /startProdFleet|startChartFleet|RealNodes\.create|startMirrorPromoteFleet/.test(fs.readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect([...startsNodes].sort()).toEqual([...REAL_NODES].sort());
});

test("CI builds the whole toolchain in two parts: what the loopback and engine files run first, the real nodes' part beside them", () => {
    const ci = fs.readFileSync(path.join(ROOT, ".ci/run"), "utf8");
    const part = (name: string) => {
        const m = new RegExp(`^${name}=\\(([^)]*)\\)$`, "m").exec(ci);
        if (!m) throw new Error(`.ci/run has no ${name}=(...) line`);
        return m[1].split(/\s+/).filter(Boolean);
    };
    // The cache dirs each part's tools go to, as toolchain/build.sh names them.
    const dirs = (args: string[]) =>
        execFileSync(path.join(ROOT, "toolchain/build.sh"), ["--print-path", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
            .trim()
            .split(":");
    const first = dirs(part("FIRST_TOOLS"));
    const realNodes = dirs(part("REAL_NODE_TOOLS"));
    // Every tool of every group, each in one part only.
    expect([...first, ...realNodes].sort()).toEqual(dirs([]).sort());
    // The loopback harness's programs (the Pulumi engine, kube, etcd, Karmada) and helm, which the
    // engine files render the chart with, are in the first part: those files start before the second ends.
    expect(dirs(["engine", "cluster", "helm"]).filter((d) => !first.includes(d))).toEqual([]);
});
