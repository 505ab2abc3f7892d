// Preflight: what `pulumi up` needs from this machine, checked before any resource exists, so that a
// missing tool fails in a second with its fix instead of after minutes of creating resources.
// Small named checks, each returning problems; the machine is reached only through the injected
// PreflightEnvironment, so tests run them with fakes or with stand-in executables.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { CONFIG_NAMESPACE, FleetPlan } from "../config";
import { ChartSource, checkChartListed, fetchTextSync, TextFetcher } from "./chart-repository";
import { compareVersions } from "./versions";

export { compareVersions } from "./versions";

/**
 * The oldest kind Kamino accepts. Every kind config field Kamino writes (v1alpha4 `nodes[].role`,
 * `image`, `extraPortMappings` with `listenAddress`/`protocol`, `networking.disableDefaultCNI`,
 * `podSubnet`, `serviceSubnet`), `--config -` and the `kind` Docker network are far older (v0.8.0).
 * What binds is kind's default node image: v0.23.0 is the first release whose default is Kubernetes
 * 1.30 (kindest/node:v1.30.0), the oldest Kubernetes Cilium 1.18 is tested on (1.30-1.33).
 */
export const MIN_KIND_VERSION = "0.23.0";

const KIND_INSTALL = "https://kind.sigs.k8s.io/docs/user/quick-start/#installation";

/** One thing that stops `up`, with what to do about it. */
export interface PreflightProblem {
    /** Which check found it: kind, docker, karmada-port, karmada-chart or iko-chart. */
    check: string;
    /** What is wrong, naming the value found. */
    message: string;
    /** What the user does about it. */
    fix: string;
}

/** What a command printed and how it ended. */
export interface CommandResult {
    /** True when the executable is not on PATH. */
    missing: boolean;
    /** Exit status; null when it did not exit normally. */
    status: number | null;
    stdout: string;
    stderr: string;
}

/** Runs an executable (no shell) and returns what it printed. */
export type CommandRunner = (command: string, args: string[]) => CommandResult;

/** Tries to listen on host:port: "free", "in-use", or the error code that stopped it (e.g. EACCES). */
export type PortProbe = (host: string, port: number) => string;

/** How preflight reaches the machine. */
export interface PreflightEnvironment {
    /** Runs `kind` and `docker`. */
    run: CommandRunner;
    /** Probes a TCP port on this machine. */
    probePort: PortProbe;
    /** A file's text, or undefined when there is none (relative paths: the project directory). */
    readFile: (file: string) => string | undefined;
    /** Reads a URL: the chart repository's index. */
    fetch: TextFetcher;
}

/** When preflight runs. */
export interface PreflightOptions {
    /** A preview: only checks that spawn no process and reach no network run (the IKO chart); the rest waits for `up`. */
    dryRun: boolean;
}

/** Thrown when preflight finds problems: one line per problem, each with its fix. */
export class PreflightError extends Error {
    constructor(public readonly problems: PreflightProblem[]) {
        super(
            `Kamino preflight failed (${problems.length} problem${problems.length === 1 ? "" : "s"}); nothing was created:\n` +
                problems.map((p) => `  - ${p.check}: ${p.message}. Fix: ${p.fix}`).join("\n"),
        );
        this.name = "PreflightError";
    }
}

const firstLine = (text: string) =>
    text
        .split("\n")
        .map((l) => l.trim())
        .find((l) => l !== "") ?? "";

/** `kind` is on PATH and at least MIN_KIND_VERSION (`kind version` prints `kind v0.31.0 go1.25.5 linux/amd64`). */
export function checkKind(run: CommandRunner, clusters: string[]): PreflightProblem[] {
    const fix = `install kind v${MIN_KIND_VERSION} or newer (${KIND_INSTALL})`;
    const r = run("kind", ["version"]);
    if (r.missing) {
        return [{ check: "kind", message: `'kind' is not on PATH; this stack creates kind clusters (${clusters.join(", ")})`, fix }];
    }
    if (r.status !== 0) {
        return [{ check: "kind", message: `'kind version' failed (exit ${r.status}): ${firstLine(r.stderr || r.stdout)}`, fix: `reinstall kind: ${fix}` }];
    }
    const m = /\bv?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.+-]+)?)/.exec(r.stdout);
    if (!m) {
        return [
            { check: "kind", message: `'kind version' printed '${firstLine(r.stdout)}', not a kind version`, fix: `make sure 'kind' on PATH is kind: ${fix}` },
        ];
    }
    const version = m[1].replace(/\+.*$/, "");
    if (compareVersions(version, MIN_KIND_VERSION) < 0) {
        return [
            {
                check: "kind",
                message: `kind v${version} is older than v${MIN_KIND_VERSION}, the first kind whose default node image (Kubernetes 1.30) Cilium 1.18 supports`,
                fix: `upgrade kind: ${fix}`,
            },
        ];
    }
    return [];
}

/**
 * The Docker daemon answers: `docker info` shows a server version. With the daemon down the CLI still
 * renders the template on empty info (an empty line) and puts the error on stderr; Docker 28 exits 1,
 * older CLIs exited 0 (docker/cli system/info.go), so the empty version is what counts.
 */
export function checkDocker(run: CommandRunner): PreflightProblem[] {
    const r = run("docker", ["info", "--format", "{{.ServerVersion}}"]);
    if (r.missing) {
        return [
            {
                check: "docker",
                message: "'docker' is not on PATH; kind runs its nodes as Docker containers",
                fix: "install Docker Engine or Docker Desktop (https://docs.docker.com/get-docker/)",
            },
        ];
    }
    if (r.status === 0 && r.stdout.trim() !== "") return [];
    const why = firstLine(r.stderr) || `'docker info' exited ${r.status} without a server version`;
    if (/permission denied/i.test(why)) {
        return [
            {
                check: "docker",
                message: `the Docker daemon refuses this user: ${why}`,
                fix: "add yourself to the docker group ('sudo usermod -aG docker $USER', then log in again) and check with 'docker info'",
            },
        ];
    }
    return [
        {
            check: "docker",
            message: `the Docker daemon is not reachable: ${why}`,
            fix: "start Docker ('sudo systemctl start docker', or open Docker Desktop) and check that 'docker info' shows a Server Version",
        },
    ];
}

/** Where the Karmada API is published: the host kind cluster's control-plane node and the two ports. */
export interface KarmadaPortArgs {
    /** kind name of the Karmada host cluster. */
    kindName: string;
    /** Its control-plane node container, which maps the host port (KindNames.controlPlaneNode). */
    controlPlaneNode: string;
    /** The NodePort inside the node (kamino:karmada.apiServerNodePort). */
    containerPort: number;
    /** The port on this machine (kamino:karmada.apiServerHostPort). */
    hostPort: number;
    /** The address kind binds the host port to. */
    listenAddress: string;
}

/**
 * The Karmada host port is free, or already published by this stack's host kind cluster (a second
 * `up`, or a cluster to adopt): the probe comes first, so Docker is asked only about a taken port.
 */
export function checkKarmadaPort(run: CommandRunner, probePort: PortProbe, a: KarmadaPortArgs): PreflightProblem[] {
    const key = `${CONFIG_NAMESPACE}:karmada.apiServerHostPort`;
    const address = `${a.listenAddress}:${a.hostPort}`;
    const state = probePort(a.listenAddress, a.hostPort);
    if (state === "free") return [];
    const otherPort = `pick a free port: pulumi config set --path ${key} <port>`;
    if (state !== "in-use") {
        return [{ check: "karmada-port", message: `cannot listen on ${address} (${key}): ${state}`, fix: `${otherPort} (1024 or above)` }];
    }
    const r = run("docker", ["port", a.controlPlaneNode, `${a.containerPort}/tcp`]);
    if (
        r.status === 0 &&
        r.stdout
            .split("\n")
            .map((l) => l.trim())
            .includes(address)
    )
        return [];
    return [
        {
            check: "karmada-port",
            message: `${address} (${key}), where the Karmada API is published, is in use by another process (not by kind cluster '${a.kindName}')`,
            fix: `stop it ('ss -ltnp' or 'lsof -i :${a.hostPort}' shows which; 'docker ps' if a container publishes it), or ${otherPort}`,
        },
    ];
}

/** `kamino:iko.chartPath` is an installable Helm chart: a Chart.yaml with apiVersion, name and version, not a library. */
export function checkIkoChart(readFile: (file: string) => string | undefined, chartPath: string): PreflightProblem[] {
    const key = `${CONFIG_NAMESPACE}:iko.chartPath`;
    const setIt = (p: string) => `pulumi config set --path ${key} ${p}`;
    const text = readFile(path.join(chartPath, "Chart.yaml"));
    if (text === undefined) {
        let fix = `download the IKO tarball from InterSystems (WRC or the InterSystems Container Registry), unpack it and ${setIt("<dir>/chart/iris-operator")}`;
        if (/\.(tgz|tar\.gz)$/.test(chartPath)) fix = `unpack it ('tar xzf ${chartPath}') and ${setIt("<dir>/chart/iris-operator")}`;
        else if (readFile(path.join(chartPath, "chart", "iris-operator", "Chart.yaml")) !== undefined)
            fix = setIt(path.join(chartPath, "chart", "iris-operator"));
        return [{ check: "iko-chart", message: `no Helm chart at '${chartPath}' (${key}): it has no Chart.yaml`, fix }];
    }
    const notAChart = (why: string): PreflightProblem[] => [
        {
            check: "iko-chart",
            message: `'${path.join(chartPath, "Chart.yaml")}' (${key}) is not a Helm chart's: ${why}`,
            fix: `point it at the unpacked IKO chart (the tarball's chart/iris-operator): ${setIt("<dir>")}`,
        },
    ];
    let chart: unknown;
    try {
        chart = YAML.parse(text);
    } catch (e) {
        return notAChart(`invalid YAML (${firstLine(String((e as Error).message))})`);
    }
    if (typeof chart !== "object" || chart === null || Array.isArray(chart)) return notAChart("not a YAML mapping");
    const c = chart as Record<string, unknown>;
    const missing = ["apiVersion", "name", "version"].filter((f) => typeof c[f] !== "string" || c[f] === "");
    if (missing.length > 0) return notAChart(`no ${missing.join(", ")}`);
    if (c.apiVersion !== "v1" && c.apiVersion !== "v2") return notAChart(`apiVersion '${c.apiVersion}' is neither v1 nor v2`);
    if (c.type === "library") return notAChart("a library chart, which cannot be installed");
    return [];
}

/** What the stack needs from this machine, from its config: only what it uses is checked. */
export interface PreflightPlan {
    /** kind names of the kind clusters; none means no kind and no Docker are needed. */
    kindClusters: string[];
    /** The Karmada host port, when Karmada is installed on a kind cluster. */
    karmadaPort?: KarmadaPortArgs;
    /** The IKO chart directory. */
    chartPath: string;
    /** Karmada's chart, when Kamino installs it: its repository must list the version. */
    karmadaChart?: ChartSource;
}

/** What this machine must offer the fleet a plan describes. */
export function preflightPlan(plan: FleetPlan): PreflightPlan {
    const cfg = plan.config;
    const kindClusters = plan.clusters.flatMap((c) => (c.kind ? [c.kind.clusterName] : []));
    const host = plan.host;
    const karmadaPort =
        host.kind && host.hostsKarmadaChart
            ? {
                  kindName: host.kind.clusterName,
                  controlPlaneNode: host.kind.controlPlaneNode,
                  containerPort: cfg.karmada.apiServerNodePort,
                  hostPort: cfg.karmada.apiServerHostPort,
                  listenAddress: "127.0.0.1",
              }
            : undefined;
    const karmadaChart = plan.karmada.source === "chart" ? { repo: cfg.karmada.chartRepo, chart: "karmada", version: cfg.karmada.chartVersion } : undefined;
    return { kindClusters, karmadaPort, chartPath: cfg.iko.chartPath, ...(karmadaChart ? { karmadaChart } : {}) };
}

/** Runs the checks the plan calls for; those that spawn a process or reach the network only outside a preview. */
export function preflight(plan: PreflightPlan, env: PreflightEnvironment, opts: PreflightOptions): PreflightProblem[] {
    const problems = [...checkIkoChart(env.readFile, plan.chartPath)];
    if (opts.dryRun) return problems;
    if (plan.kindClusters.length > 0) {
        problems.push(...checkKind(env.run, plan.kindClusters), ...checkDocker(env.run));
    }
    if (plan.karmadaPort) problems.push(...checkKarmadaPort(env.run, env.probePort, plan.karmadaPort));
    if (plan.karmadaChart) problems.push(...checkChartListed(env.fetch, plan.karmadaChart));
    return problems;
}

/** Runs preflight for a fleet plan and throws PreflightError listing every problem. */
export function assertPreflight(plan: FleetPlan, env: PreflightEnvironment, opts: PreflightOptions): void {
    const problems = preflight(preflightPlan(plan), env, opts);
    if (problems.length > 0) throw new PreflightError(problems);
}

/** Runs executables with spawnSync (no shell); `env` replaces the process environment when given. */
export function systemRunner(env?: NodeJS.ProcessEnv): CommandRunner {
    return (command, args) => {
        const r = spawnSync(command, args, { encoding: "utf8", env: env ?? process.env, timeout: 60_000 });
        const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
        if (code === "ENOENT") return { missing: true, status: null, stdout: "", stderr: "" };
        return { missing: false, status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? (r.error ? String(r.error) : "") };
    };
}

// Listening needs the event loop; a child node keeps the Pulumi program synchronous up to the Fleet.
const PROBE_SCRIPT =
    'const s=require("net").createServer();' +
    's.once("error",e=>{process.stdout.write(e.code==="EADDRINUSE"?"in-use":String(e.code||e));});' +
    's.listen(Number(process.argv[2]),process.argv[1],()=>{process.stdout.write("free");s.close();});';

/** Probes a port by listening on it (and closing at once) in a child node process. */
export const probePortSync: PortProbe = (host, port) => {
    const r = spawnSync(process.execPath, ["-e", PROBE_SCRIPT, host, String(port)], { encoding: "utf8", timeout: 15_000 });
    return (r.stdout ?? "").trim() || `probe failed: ${firstLine(r.stderr ?? "") || String(r.error ?? r.status)}`;
};

/** The real machine: kind and docker from PATH, real ports, real files, the network. */
export function systemPreflightEnvironment(): PreflightEnvironment {
    return {
        run: systemRunner(),
        probePort: probePortSync,
        fetch: fetchTextSync,
        readFile: (file) => {
            try {
                return fs.readFileSync(file, "utf8");
            } catch {
                return undefined;
            }
        },
    };
}
