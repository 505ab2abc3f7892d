// No process a test starts outlives the jest run: this file is jest's globalSetup and
// globalTeardown (jest.config.js), and holds the process-tree helpers the tests use.
//
// globalSetup (first call, in jest's main process, before any test environment or worker exists)
// puts KAMINO_TEST_RUN=<id> into the environment. Every process the tests start inherits it, and
// so does everything those start in turn (the Pulumi CLI, its language host and provider plugins,
// etcd, kube-apiserver, Karmada), even once reparented to PID 1, as providers are when their CLI is
// killed. Those processes, and jest's own descendants, are then killed with SIGKILL:
//   - by globalTeardown (second call), after the last test file, whatever the tests left behind;
//   - on SIGINT, SIGTERM and SIGHUP of jest's main process (then the signal is re-raised);
//   - when jest's main process exits (`--forceExit`, a globalSetup error).
// The same calls remove what the real-node clusters left (test/support/node-sweep.ts), and the temp
// dirs the tests made with runTempDir (the harness's PKI and logs, the engine sandboxes' state) that
// no test removed.
// Handlers in test files cannot do this: a test file's `process` is a per-file copy whose 'exit'
// and signal events never fire. Not covered: SIGKILL of jest itself; `grep -l KAMINO_TEST_RUN=
// /proc/*/environ` then lists what is left.
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runTag, sweepRealNodes, sweptNothing } from "./node-sweep";

export const RUN_ENV = "KAMINO_TEST_RUN";

interface ProcEntry {
    ppid: number;
    /** One-letter state from /proc/<pid>/stat; "Z" for a zombie. */
    state: string;
    comm: string;
}

/** Every process on the machine (this PID namespace), from /proc/<pid>/stat. */
export function processTable(): Map<number, ProcEntry> {
    const table = new Map<number, ProcEntry>();
    for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        let stat: string;
        try {
            stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        } catch {
            continue; // exited meanwhile
        }
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        const close = stat.lastIndexOf(")");
        const [state, ppid] = stat.slice(close + 2).split(" ");
        table.set(Number(name), { ppid: Number(ppid), state, comm: stat.slice(stat.indexOf("(") + 1, close) });
    }
    return table;
}

/** The given processes and all their descendants that are still in the table (zombies included). */
function subtrees(table: Map<number, ProcEntry>, roots: Iterable<number>): Set<number> {
    const children = new Map<number, number[]>();
    for (const [pid, e] of table) {
        if (!children.has(e.ppid)) children.set(e.ppid, []);
        children.get(e.ppid)!.push(pid);
    }
    const found = new Set<number>();
    const todo = [...roots].filter((p) => table.has(p));
    while (todo.length) {
        const pid = todo.pop()!;
        if (found.has(pid)) continue;
        found.add(pid);
        todo.push(...(children.get(pid) ?? []));
    }
    return found;
}

/** `pid` and all its living descendants (zombies left out). */
export function processTree(pid: number): number[] {
    const table = processTable();
    return [...subtrees(table, [pid])].filter((p) => table.get(p)!.state !== "Z");
}

function signal(pid: number, sig: NodeJS.Signals): void {
    try {
        process.kill(pid, sig);
    } catch {
        // gone, or not ours
    }
}

/**
 * Sends `sig` to the processes `roots()` names and to all their descendants at once. The trees are
 * frozen first (SIGSTOP, walking /proc again until no new process appears), so no process can
 * fork or be reparented away between the walk and the kill; then all get `sig` (and SIGCONT, so a
 * catchable signal is handled). Never signals this process or its ancestors, nor zombies. Returns
 * the pids signalled.
 */
export function signalTrees(roots: (table: Map<number, ProcEntry>) => Iterable<number>, sig: NodeJS.Signals): number[] {
    const spared = new Set<number>();
    const frozen = new Set<number>();
    try {
        for (let round = 0; round < 1000; round++) {
            const table = processTable();
            if (round === 0) for (let p = process.pid; p > 0 && !spared.has(p); p = table.get(p)?.ppid ?? 0) spared.add(p);
            const fresh = [...subtrees(table, [...roots(table), ...frozen])].filter((p) => !frozen.has(p) && !spared.has(p) && table.get(p)!.state !== "Z");
            if (!fresh.length) break;
            for (const p of fresh) {
                signal(p, "SIGSTOP");
                frozen.add(p);
            }
        }
    } finally {
        for (const p of frozen) signal(p, sig);
        if (sig !== "SIGKILL" && sig !== "SIGSTOP") for (const p of frozen) signal(p, "SIGCONT");
    }
    return [...frozen];
}

/** Sends `sig` to `pid` and every descendant at once, whatever their process group or session. */
export function killTree(pid: number, sig: NodeJS.Signals = "SIGKILL"): number[] {
    return signalTrees(() => [pid], sig);
}

/** Processes whose environment, as they were started (/proc/<pid>/environ), has `name`=`value`. */
export function processesWithEnv(name: string, value: string, table: Map<number, ProcEntry> = processTable()): number[] {
    const needle = `\0${name}=${value}\0`;
    const found: number[] = [];
    for (const pid of table.keys()) {
        try {
            if (`\0${fs.readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(needle)) found.push(pid);
        } catch {
            // exited, or not readable
        }
    }
    return found;
}

/** The file that marks a temp dir as a test run's: it holds the run's id. */
const RUN_DIR_MARK = ".kamino-test-run";

/**
 * A new temp dir `<root>/<prefix>XXXXXX` (root: the OS temp dir) marked as this test run's, so that
 * the reaper removes it after the last test or when jest is interrupted, if the test did not. Outside
 * jest (the bench, `npm run real-nodes`) it is a plain temp dir.
 */
export function runTempDir(prefix: string, root: string = os.tmpdir()): string {
    const dir = fs.mkdtempSync(path.join(root, prefix));
    const runId = process.env[RUN_ENV];
    if (runId) fs.writeFileSync(path.join(dir, RUN_DIR_MARK), runId);
    return dir;
}

/** Removes the temp dirs of run `runId` (runTempDir's mark) directly under `root`; returns them. */
export function sweepRunTempDirs(runId: string, root: string = os.tmpdir()): string[] {
    const removed: string[] = [];
    for (const name of fs.readdirSync(root)) {
        const dir = path.join(root, name);
        let mark: string;
        try {
            mark = fs.readFileSync(path.join(dir, RUN_DIR_MARK), "utf8");
        } catch {
            continue; // not a dir, or not a test run's
        }
        if (mark !== runId) continue;
        fs.rmSync(dir, { recursive: true, force: true });
        removed.push(dir);
    }
    return removed;
}

const STATE = Symbol.for("kamino.processReaper");
type ReaperState = { runId: string };

/** Kills (SIGKILL) everything this run started and says what on stderr. Returns the pids killed. */
function reap(runId: string, when: string): number[] {
    const names = processTable();
    const killed = signalTrees((table) => [...processesWithEnv(RUN_ENV, runId, table), ...subtrees(table, [process.pid])], "SIGKILL");
    if (killed.length) {
        const list = killed.map((p) => `${names.get(p)?.comm ?? "?"}[${p}]`).join(" ");
        process.stderr.write(`process-reaper: ${when}: killed ${killed.length} process(es) the tests left running: ${list}\n`);
    }
    // The real-node clusters' containers, mounts, namespaces, interfaces and cgroups (test/cluster/nodes).
    const swept = sweepRealNodes(runTag(runId));
    if (!sweptNothing(swept)) process.stderr.write(`process-reaper: ${when}: removed what real nodes left: ${JSON.stringify(swept)}\n`);
    // Last, once nothing runs in them: the temp dirs (private keys among them) no test removed.
    const dirs = sweepRunTempDirs(runId);
    if (dirs.length) process.stderr.write(`process-reaper: ${when}: removed ${dirs.length} temp dir(s) the tests left: ${dirs.join(" ")}\n`);
    return killed;
}

/** jest's globalSetup and globalTeardown: the first call marks the run, the second reaps it. */
export default function processReaper(): void {
    const holder = process as unknown as Record<symbol, ReaperState | undefined>;
    const state = holder[STATE];
    if (state) {
        reap(state.runId, "after the tests");
        return;
    }
    const runId = `${process.pid}-${crypto.randomBytes(6).toString("hex")}`;
    holder[STATE] = { runId };
    process.env[RUN_ENV] = runId;
    process.on("exit", () => reap(runId, "at exit"));
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
        const onSignal = () => {
            reap(runId, `on ${sig}`);
            process.removeListener(sig, onSignal);
            // Die of the signal as without this handler, unless someone else handles it.
            if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
        };
        process.on(sig, onSignal);
    }
}
