// The machine as preflight and the kind scripts see it: a fake PreflightEnvironment for stack tests,
// and a StandinHost that puts the stand-in `kind` and `docker` (test/fixtures/bin-standins) on PATH
// over a state directory describing Docker and its kind clusters.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { runTempDir } from "./process-reaper";
import { CommandResult, PreflightEnvironment, systemRunner } from "../../components/checks/preflight";

/** The stand-in executables. */
export const STANDIN_BIN = path.resolve(__dirname, "../fixtures/bin-standins");

/** A machine with kind v0.31.0, a running Docker, every port free and Karmada's chart repository as it was; records the commands run and URLs read. */
export function healthyMachine(calls: string[] = []): PreflightEnvironment {
    const ok = (stdout: string): CommandResult => ({ missing: false, status: 0, stdout, stderr: "" });
    return {
        run: (command, args) => {
            calls.push([command, ...args].join(" "));
            if (command === "kind" && args[0] === "version") return ok("kind v0.31.0 go1.25.5 linux/amd64\n");
            if (command === "docker" && args[0] === "info") return ok("28.3.3\n");
            throw new Error(`healthyMachine: unexpected command ${command} ${args.join(" ")}`);
        },
        probePort: () => "free",
        readFile: (file) => (fs.existsSync(file) && fs.statSync(file).isFile() ? fs.readFileSync(file, "utf8") : undefined),
        fetch: (url) => {
            calls.push(`GET ${url}`);
            return { status: 200, body: chartIndex("karmada", LISTED_KARMADA_VERSIONS) };
        },
    };
}

/** What Karmada's chart repository listed on 2026-08-21 (../shared/charts/README.md), newest last: no v1.18.2. */
export const LISTED_KARMADA_VERSIONS = ["v1.15.0", "v1.16.0", "v1.17.0", "v1.18.0", "v1.18.1"];

/** A Helm repository index.yaml listing `versions` of one chart. */
export function chartIndex(chart: string, versions: string[]): string {
    const entries = versions.map((version) => `  - name: ${chart}\n    version: ${version}\n    urls: [https://example.invalid/${chart}-${version}.tgz]\n`);
    return `apiVersion: v1\nentries:\n  ${chart}:\n${entries.join("")}`;
}

/** A kind cluster as Docker shows it. */
export interface StandinCluster {
    /** Worker nodes besides the one control plane. */
    workers: number;
    /** `docker port <name>-control-plane` lines besides the API server's, e.g. `32443/tcp -> 127.0.0.1:5443`. */
    ports?: string[];
    /** True when kind's default CNI (DaemonSet kindnet) runs in it. */
    kindnet?: boolean;
    /** True when its node containers are stopped. */
    stopped?: boolean;
}

/** What a shell script did. */
export interface ScriptResult {
    status: number | null;
    stdout: string;
    stderr: string;
}

/** A temporary machine for the stand-ins: its Docker, its kind clusters, the calls made. */
export class StandinHost {
    readonly state = runTempDir("kamino-standins-");
    private readonly bin = path.join(this.state, "bin");

    /** @param tools the stand-ins on PATH; leave one out to make it "not installed". */
    constructor(tools: Array<"kind" | "docker"> = ["kind", "docker"]) {
        fs.mkdirSync(this.bin);
        for (const t of tools) fs.symlinkSync(path.join(STANDIN_BIN, t), path.join(this.bin, t));
    }

    /** PATH and state for the stand-ins; system tools come after them, never a real kind or docker first. */
    env(): NodeJS.ProcessEnv {
        return { PATH: `${this.bin}:/usr/bin:/bin`, KAMINO_STANDIN_STATE: this.state, HOME: this.state, LANG: "C" };
    }

    /** A preflight runner that runs the stand-ins as real processes. */
    runner() {
        return systemRunner(this.env());
    }

    /** Makes a kind cluster exist, as `kind create cluster` with some config would have left it. */
    addCluster(name: string, c: StandinCluster): void {
        const dir = path.join(this.state, "clusters", name);
        fs.mkdirSync(dir, { recursive: true });
        const nodes = [`${name}-control-plane control-plane`, ...Array.from({ length: c.workers }, (_, i) => `${name}-worker${i === 0 ? "" : i + 1} worker`)];
        fs.writeFileSync(path.join(dir, "nodes"), nodes.join("\n") + "\n");
        fs.writeFileSync(path.join(dir, "ports"), ["6443/tcp -> 127.0.0.1:41234", ...(c.ports ?? [])].join("\n") + "\n");
        fs.writeFileSync(path.join(dir, "daemonsets"), ["daemonset.apps/kube-proxy", ...(c.kindnet ? ["daemonset.apps/kindnet"] : [])].join("\n") + "\n");
        if (c.stopped) fs.writeFileSync(path.join(dir, "stopped"), "");
    }

    /** True when a kind cluster of that name exists. */
    hasCluster(name: string): boolean {
        return fs.existsSync(path.join(this.state, "clusters", name));
    }

    /** The config `kind create cluster --config -` read for a cluster. */
    createdConfig(name: string): string {
        return fs.readFileSync(path.join(this.state, "clusters", name, "config"), "utf8");
    }

    /** Sets what `kind version` prints. */
    kindVersion(line: string): void {
        fs.writeFileSync(path.join(this.state, "kind-version"), `${line}\n`);
    }

    /** Makes the Docker daemon unreachable ("down") or refuse this user ("denied"). */
    docker(state: "down" | "denied"): void {
        fs.writeFileSync(path.join(this.state, `docker-${state}`), "");
    }

    /** Every kind/docker invocation so far. */
    calls(): string[] {
        const f = path.join(this.state, "calls");
        return fs.existsSync(f)
            ? fs
                  .readFileSync(f, "utf8")
                  .trim()
                  .split("\n")
                  .filter((l) => l !== "")
            : [];
    }

    /** Runs a script as the command provider does (`<shell> -c`), with stdin and extra environment. */
    runScript(shell: string, script: string, env: Record<string, string>, stdin = ""): ScriptResult {
        // stdin from a file: a script that stops before reading it (e.g. Docker down) must not race a
        // pipe write into EPIPE.
        const input = path.join(this.state, `stdin-${process.hrtime.bigint()}`);
        fs.writeFileSync(input, stdin);
        const fd = fs.openSync(input, "r");
        try {
            const r = spawnSync(shell, ["-c", script], { stdio: [fd, "pipe", "pipe"], encoding: "utf8", env: { ...this.env(), ...env }, timeout: 30_000 });
            if (r.error) throw r.error;
            return { status: r.status, stdout: r.stdout, stderr: r.stderr };
        } finally {
            fs.closeSync(fd);
            fs.rmSync(input, { force: true });
        }
    }

    /** Removes the temporary machine. */
    cleanup(): void {
        fs.rmSync(this.state, { recursive: true, force: true });
    }
}
