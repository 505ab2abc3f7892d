// Nothing a cluster test starts outlives it: killTree() stops a whole process tree, across process
// groups and sessions, and jest's process reaper (test/support/process-reaper.ts) stops what a test
// file left running, after the last test and when jest is interrupted, and removes the temp dirs the
// tests made with runTempDir.
import { spawn } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { killTree, processesWithEnv, processTable, processTree } from "../support/process-reaper";
import { REPO_ROOT } from "./harness";

jest.setTimeout(10 * 60_000);

// Process trees the way the Pulumi CLI builds them: children in process groups and sessions of
// their own. PROBE in their environment finds them wherever they are reparented.
const PROBE = "KAMINO_PROBE";
const TREE = "sleep 300 & setsid sleep 300 & (setsid sh -c 'sleep 300 & sleep 300 & wait') & wait";
const living = (id: string) => processesWithEnv(PROBE, id);
/** How many sessions the probe processes are in. */
const sessions = (id: string) =>
    new Set(
        living(id).map((pid) => {
            try {
                return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[3];
            } catch {
                return undefined;
            }
        }),
    ).size;

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!ok()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
    }
}

/** The probe files' temp dirs of probe run `id`. */
const probeDirs = (id: string) => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`kamino-probe-${id}-`));

/** A nested jest on probe files, with this repository's reaper as its global setup and teardown. */
function nestedJest(dir: string, files: string, args: string[], id: string) {
    const reaper = path.join(REPO_ROOT, "test/support/process-reaper.ts");
    const config = {
        rootDir: REPO_ROOT,
        roots: [dir],
        testMatch: [`${dir}/${files}`],
        testEnvironment: "node",
        transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
        globalSetup: reaper,
        globalTeardown: reaper,
    };
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "node_modules/jest/bin/jest.js"), "--config", JSON.stringify(config), "--ci", ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, [`${PROBE}_ID`]: id },
        stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on("close", (code, signal) => resolve({ code, signal })),
    );
    return { child, exited, output: () => out };
}

describe("process cleanup", () => {
    test("killTree kills a tree across process groups and sessions, forks in flight included, and leaves nothing", async () => {
        const id = crypto.randomBytes(6).toString("hex");
        // The tree, and a shell that keeps forking new sessions while it is killed.
        const root = spawn("sh", ["-c", `(${TREE}) & while :; do setsid sleep 300 & sleep 0.01; done`], {
            detached: true,
            stdio: "ignore",
            env: { ...process.env, [PROBE]: id },
        });
        const exited = new Promise((r) => root.on("exit", r));
        await until("the tree and a few forks", () => living(id).length >= 20 && sessions(id) > 5);
        expect(processTree(root.pid!).length).toBeGreaterThanOrEqual(20);
        const killed = killTree(root.pid!, "SIGKILL");
        expect(killed).toContain(root.pid);
        expect(killed.length).toBeGreaterThanOrEqual(20);
        await exited;
        await until("no probe process left", () => living(id).length === 0, 5_000);
        // Nothing forked late either.
        await new Promise((r) => setTimeout(r, 300));
        expect(living(id)).toEqual([]);
        expect(killTree(root.pid!, "SIGKILL")).toEqual([]);
    });

    describe("jest's process reaper", reaperTests);

    test("SIGINT to `npm run bench` mid-run: its fleet's processes and its temp dirs (keys among them) go", async () => {
        const id = crypto.randomBytes(6).toString("hex");
        // A temp dir of its own, so that what the bench leaves there is its alone.
        const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kamino-bench-int-"));
        const off = {
            KAMINO_BENCH_FAILOVER_RUNS: "0",
            KAMINO_BENCH_SWEEP_RUNS: "0",
            KAMINO_BENCH_PROMOTE_RUNS: "0",
            KAMINO_BENCH_CHART_RUNS: "0",
            KAMINO_BENCH_PROD_RUNS: "0",
        };
        const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "test/bench/loopback-bench.ts"], {
            cwd: REPO_ROOT,
            env: {
                ...process.env,
                ...off,
                KAMINO_BENCH_SCALES: "1",
                KAMINO_BENCH_RUNS: "1",
                KAMINO_BENCH_OUT: path.join(tmp, "out.json"),
                TMPDIR: tmp,
                [PROBE]: id,
            },
            stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
        const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
        const benchDirs = () => fs.readdirSync(tmp).filter((n) => n.startsWith("kamino-"));
        const apiservers = () => living(id).filter((pid) => processTable().get(pid)?.comm === "kube-apiserver");
        try {
            await until("the bench's fleet running: its API servers and temp dirs", () => apiservers().length > 0 && benchDirs().length > 0, 120_000);
            child.kill("SIGINT");
            expect([await exited, out]).toEqual(["SIGINT", expect.stringContaining("process-reaper: on SIGINT: killed")]);
            await until("no process of the bench left", () => living(id).length === 0, 5_000);
            expect(benchDirs()).toEqual([]);
            expect(fs.existsSync(path.join(tmp, "out.json"))).toBe(false);
        } finally {
            killTree(child.pid!);
            for (const pid of living(id)) killTree(pid);
            fs.rmSync(tmp, { recursive: true, force: true });
        }
    }, 180_000);
});

/** jest's process reaper, on nested jest runs of probe files that leave process trees and temp dirs. */
function reaperTests(): void {
    let dir: string;
    beforeAll(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "kamino-reaper-"));
        // Probe test files: each starts the tree, detached, and leaves it running.
        // The tree, and a temp dir of the run (the harness's kind: runTempDir) that nothing removes.
        const reaper = JSON.stringify(path.join(REPO_ROOT, "test/support/process-reaper.ts"));
        const tree =
            `const tree = () => { require("child_process").spawn("sh", ["-c", ${JSON.stringify(TREE)}], { detached: true, stdio: "ignore", env: { ...process.env, ${PROBE}: process.env.${PROBE}_ID } }).unref();\n` +
            `  require(${reaper}).runTempDir(\`kamino-probe-\${process.env.${PROBE}_ID}-\`); };\n`;
        fs.writeFileSync(
            path.join(dir, "fail.probe.js"),
            `${tree}beforeAll(() => { tree(); throw new Error("beforeAll fails"); });\ntest("never runs", () => {});\n`,
        );
        for (const f of ["hang1.probe.js", "hang2.probe.js"])
            fs.writeFileSync(path.join(dir, f), `${tree}test("hangs", () => { tree(); return new Promise(() => {}); }, 600000);\n`);
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    test("a failing beforeAll: what it started is killed after the last test", async () => {
        const id = crypto.randomBytes(6).toString("hex");
        const run = nestedJest(dir, "fail.probe.js", ["--runInBand"], id);
        const { code } = await run.exited;
        expect([code, run.output()]).toEqual([
            1,
            expect.stringMatching(/beforeAll fails[^]*process-reaper: after the tests: killed [1-9]\d* process\(es\)[^]*removed 1 temp dir\(s\)/),
        ]);
        expect(living(id)).toEqual([]);
        expect(probeDirs(id)).toEqual([]);
    }, 120_000);

    for (const [sig, args, files] of [
        ["SIGINT", ["--runInBand"], "hang1.probe.js"],
        ["SIGTERM", ["--maxWorkers=2"], "hang*.probe.js"],
    ] as const) {
        test(`${sig} to jest (${args[0]}): every process the tests started is killed`, async () => {
            const id = crypto.randomBytes(6).toString("hex");
            const run = nestedJest(dir, files, [...args], id);
            try {
                // The tree is six processes in three sessions; with workers, one tree per file.
                const trees = files.includes("*") ? 2 : 1;
                await until(
                    `${trees} probe tree(s) and temp dir(s)`,
                    () => living(id).length === 6 * trees && sessions(id) === 3 * trees && probeDirs(id).length === trees,
                    60_000,
                );
                run.child.kill(sig);
                const { signal } = await run.exited;
                expect([signal, run.output()]).toEqual([sig, expect.stringContaining(`process-reaper: on ${sig}: killed`)]);
                await until("no probe process left", () => living(id).length === 0, 5_000);
                expect(probeDirs(id)).toEqual([]);
            } finally {
                killTree(run.child.pid!);
            }
        }, 120_000);
    }
}
