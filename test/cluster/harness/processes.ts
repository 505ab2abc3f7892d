// Child processes of the harness: each runs in its own process group with stdout and stderr in a
// log file, can be stopped (SIGTERM, then SIGKILL to the whole group), and is killed when the
// Node process exits, whatever the reason, so that no API server outlives a test run.
//
// Under jest the exit and signal hooks below never fire (a test file's `process` is a per-file
// copy whose events are not the real process's); there jest's process reaper
// (test/support/process-reaper.ts) kills what is left, since every process started here inherits
// its KAMINO_TEST_RUN mark. The hooks serve plain Node callers such as test/bench.
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

/** What to run. */
export interface ProcessSpec {
    /** Unique, file-name-safe name, used in messages and for the log file `<name>.log`. */
    name: string;
    /** Absolute path of the executable. */
    command: string;
    args: string[];
    /** Extra environment variables (the harness's own environment minus proxies and KUBECONFIG is the base). */
    env?: Record<string, string>;
    /** Grace between SIGTERM and SIGKILL for this process, overriding the caller's. */
    stopGraceMs?: number;
}

/** How a process ended. */
export interface ExitInfo {
    code: number | null;
    signal: NodeJS.Signals | null;
}

/** Process groups still running, killed on exit of the Node process (outside jest; see above). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
    try {
        process.kill(-pid, signal);
    } catch {
        // already gone
    }
}

function installExitHook(): void {
    if (exitHookInstalled) return;
    exitHookInstalled = true;
    process.on("exit", () => {
        for (const pid of liveGroups) killGroup(pid, "SIGKILL");
    });
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
        process.once(sig, () => {
            for (const pid of liveGroups) killGroup(pid, "SIGKILL");
            liveGroups.clear();
            process.kill(process.pid, sig);
        });
    }
}

/** The last `lines` lines of a text file ("" if it does not exist). */
export function tailFile(file: string, lines = 30, maxBytes = 64 * 1024): string {
    let fd: number | undefined;
    try {
        fd = fs.openSync(file, "r");
        const size = fs.fstatSync(fd).size;
        const len = Math.min(size, maxBytes);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, size - len);
        return buf
            .toString("utf8")
            .split("\n")
            .slice(-lines - 1)
            .join("\n")
            .trimEnd();
    } catch {
        return "";
    } finally {
        if (fd !== undefined) fs.closeSync(fd);
    }
}

const STRIPPED_ENV = /^(KUBECONFIG|https?_proxy|all_proxy|no_proxy)$/i;

/** A started child process. */
export class ManagedProcess {
    readonly pid: number;
    /** Resolves when the process has exited. */
    readonly exited: Promise<ExitInfo>;
    private exitInfo: ExitInfo | undefined;

    constructor(
        readonly spec: ProcessSpec,
        readonly logPath: string,
    ) {
        installExitHook();
        const out = fs.openSync(logPath, "a");
        fs.writeSync(out, `# ${new Date().toISOString()} ${spec.command} ${spec.args.join(" ")}\n`);
        const env: NodeJS.ProcessEnv = {};
        for (const [k, v] of Object.entries(process.env)) if (!STRIPPED_ENV.test(k)) env[k] = v;
        Object.assign(env, spec.env ?? {});
        const child = spawn(spec.command, spec.args, { detached: true, stdio: ["ignore", out, out], env });
        fs.closeSync(out);
        this.exited = new Promise<ExitInfo>((resolve) => {
            child.on("error", (err) => {
                fs.appendFileSync(logPath, `# spawn failed: ${err.message}\n`);
                this.exitInfo = { code: -1, signal: null };
                resolve(this.exitInfo);
            });
            child.on("exit", (code, signal) => {
                this.exitInfo = { code, signal };
                fs.appendFileSync(logPath, `# ${new Date().toISOString()} ${this.describe()}\n`);
                if (child.pid) liveGroups.delete(child.pid);
                resolve(this.exitInfo);
            });
        });
        this.pid = child.pid ?? -1;
        if (child.pid) liveGroups.add(child.pid);
    }

    get name(): string {
        return this.spec.name;
    }

    /** Undefined while running. */
    get exit(): ExitInfo | undefined {
        return this.exitInfo;
    }

    /** "exited with code 1" / "was killed by SIGKILL" / "is running". */
    describe(): string {
        const e = this.exitInfo;
        if (!e) return `${this.name} (pid ${this.pid}) is running`;
        return e.signal ? `${this.name} was killed by ${e.signal}` : `${this.name} exited with code ${e.code}`;
    }

    /** The end of its log, for error messages. */
    tail(lines = 30): string {
        return tailFile(this.logPath, lines);
    }

    /** SIGKILL to the process group at once, with no grace (a power cut). Resolves once it has exited. */
    async kill(): Promise<void> {
        if (this.exitInfo || this.pid < 0) return;
        killGroup(this.pid, "SIGKILL");
        await this.exited;
    }

    /** SIGTERM to the process group; SIGKILL after `graceMs` (or the spec's). Resolves once it has exited. */
    async stop(graceMs = 10_000): Promise<void> {
        if (this.exitInfo || this.pid < 0) return;
        graceMs = this.spec.stopGraceMs ?? graceMs;
        killGroup(this.pid, "SIGTERM");
        let timer: NodeJS.Timeout | undefined;
        const killed = new Promise<void>((resolve) => {
            timer = setTimeout(() => {
                killGroup(this.pid, "SIGKILL");
                resolve();
            }, graceMs);
        });
        await Promise.race([this.exited, killed]);
        await this.exited;
        clearTimeout(timer);
        // Anything the process left behind in its group.
        killGroup(this.pid, "SIGKILL");
    }
}

/** Starts processes with logs in one directory and stops them all, newest first. */
export class ProcessSupervisor {
    private readonly procs: ManagedProcess[] = [];
    private readonly stoppedOnPurpose = new Set<ManagedProcess>();
    private closed = false;

    constructor(readonly logDir: string) {
        fs.mkdirSync(logDir, { recursive: true });
    }

    /** Starts a process; refused once stopAll() has begun (a start racing a stop must not leak). */
    start(spec: ProcessSpec): ManagedProcess {
        if (this.closed) throw new Error(`not starting ${spec.name}: the processes are being stopped`);
        if (this.procs.some((p) => p.name === spec.name)) throw new Error(`process name ${spec.name} used twice`);
        if (!path.isAbsolute(spec.command)) throw new Error(`${spec.name}: command must be an absolute path, got ${spec.command}`);
        const p = new ManagedProcess(spec, path.join(this.logDir, `${spec.name}.log`));
        this.procs.push(p);
        return p;
    }

    get processes(): readonly ManagedProcess[] {
        return this.procs;
    }

    /** Processes that have exited although nobody stopped them. */
    crashed(): ManagedProcess[] {
        return this.procs.filter((p) => p.exit !== undefined && !this.stoppedOnPurpose.has(p));
    }

    /** Stops one process on purpose (a fault a test injects): it does not count as crashed. */
    async stopOne(p: ManagedProcess): Promise<void> {
        this.stoppedOnPurpose.add(p);
        await p.stop();
    }

    /** Kills one process on purpose at once (SIGKILL, no grace: a power cut); it does not count as crashed. */
    async killOne(p: ManagedProcess): Promise<void> {
        this.stoppedOnPurpose.add(p);
        await p.kill();
    }

    /** Starts a process stopped with stopOne() or killOne() again, with the same spec; the log is appended to. */
    restart(p: ManagedProcess): ManagedProcess {
        if (!this.stoppedOnPurpose.has(p) || p.exit === undefined) throw new Error(`${p.name} was not stopped with stopOne() or killOne()`);
        this.procs.splice(this.procs.indexOf(p), 1);
        this.stoppedOnPurpose.delete(p);
        return this.start(p.spec);
    }

    /**
     * Stops everything: the given layers in order (each layer in parallel), then whatever else is
     * left, newest first. Never throws.
     */
    async stopAll(layers: ManagedProcess[][] = [], graceMs = 10_000): Promise<void> {
        this.closed = true;
        const done = new Set<ManagedProcess>();
        for (const layer of [...layers, [...this.procs].reverse()]) {
            const todo = layer.filter((p) => !done.has(p));
            todo.forEach((p) => done.add(p));
            await Promise.all(todo.map((p) => p.stop(graceMs).catch(() => undefined)));
        }
    }
}
