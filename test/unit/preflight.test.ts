// Preflight: each check with a fake machine, then with the stand-in kind and docker executables as
// real processes and real ports, then inside the stack: problems stop it before any resource.
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import {
    checkDocker,
    checkIkoChart,
    checkKarmadaPort,
    checkKind,
    CommandResult,
    CommandRunner,
    compareVersions,
    MIN_KIND_VERSION,
    preflight,
    PreflightError,
    preflightPlan,
    probePortSync,
} from "../../components/checks/preflight";
import { loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { kaminoStack } from "../../components/stack";
import { fakeCrdReader, FIXTURE_CHART, MockRun, stackConfig } from "../support/mocks";
import { healthyMachine, StandinHost } from "../support/standins";
import { runTempDir } from "../support/process-reaper";

const answer = (stdout: string, status = 0, stderr = ""): CommandResult => ({ missing: false, status, stdout, stderr });
const MISSING: CommandResult = { missing: true, status: null, stdout: "", stderr: "" };
const DAEMON_DOWN = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?";

/** A runner answering from a table keyed by the command line; records what ran. */
function table(answers: Record<string, CommandResult>, calls: string[] = []): CommandRunner {
    return (command, args) => {
        const line = [command, ...args].join(" ");
        calls.push(line);
        const a = answers[line] ?? answers[command];
        if (!a) throw new Error(`unexpected command: ${line}`);
        return a;
    };
}

describe("kind", () => {
    test("the minimum is v0.23.0, and pre-releases sort before their release", () => {
        expect(MIN_KIND_VERSION).toBe("0.23.0");
        expect(compareVersions("0.31.0", "0.23.0")).toBe(1);
        expect(compareVersions("0.9.0", "0.23.0")).toBe(-1);
        expect(compareVersions("0.23.0-alpha", "0.23.0")).toBe(-1);
        expect(compareVersions("v0.23.0", "0.23.0")).toBe(0);
    });
    test.each([
        ["kind v0.31.0 go1.25.5 linux/amd64", true],
        ["kind v0.23.0 go1.22.2 darwin/arm64", true],
        ["kind v0.24.0-alpha.12+a1b2c3d4e5f6a7 go1.22.5 linux/amd64", true],
        ["kind v0.22.0 go1.21.7 linux/amd64", false],
        ["kind v0.23.0-alpha+0123456789abcd go1.22.1 linux/amd64", false],
    ])("'%s' is accepted: %s", (line, ok) => {
        const problems = checkKind(table({ "kind version": answer(`${line}\n`) }), ["ikofett"]);
        if (ok) expect(problems).toEqual([]);
        else
            expect(problems).toEqual([
                expect.objectContaining({ check: "kind", message: expect.stringMatching(/^kind v0\.2[23]\.0.* is older than v0\.23\.0/) }),
            ]);
    });
    test("missing, failing or foreign kind: one problem each, with the install link", () => {
        const missing = checkKind(table({ kind: MISSING }), ["ikofett", "ikoclone"]);
        expect(missing).toEqual([
            {
                check: "kind",
                message: "'kind' is not on PATH; this stack creates kind clusters (ikofett, ikoclone)",
                fix: "install kind v0.23.0 or newer (https://kind.sigs.k8s.io/docs/user/quick-start/#installation)",
            },
        ]);
        expect(checkKind(table({ kind: answer("", 1, "segfault\n") }), ["a"])[0].message).toBe("'kind version' failed (exit 1): segfault");
        expect(checkKind(table({ kind: answer("Kind 3 kindergarten\n") }), ["a"])[0].message).toBe(
            "'kind version' printed 'Kind 3 kindergarten', not a kind version",
        );
    });
});

describe("docker", () => {
    test("a server version means the daemon answers", () => {
        const calls: string[] = [];
        expect(checkDocker(table({ docker: answer("28.3.3\n") }, calls))).toEqual([]);
        expect(calls).toEqual(["docker info --format {{.ServerVersion}}"]);
    });
    test("daemon down: exit 0 with an empty version still fails, quoting Docker's error", () => {
        const [p] = checkDocker(table({ docker: answer("\n", 0, `${DAEMON_DOWN}\n`) }));
        expect(p.message).toBe(`the Docker daemon is not reachable: ${DAEMON_DOWN}`);
        expect(p.fix).toMatch(/start Docker/);
    });
    test("permission denied points at the docker group; missing docker at the install", () => {
        const denied = checkDocker(
            table({ docker: answer("\n", 0, "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: ...\n") }),
        );
        expect(denied[0].fix).toMatch(/usermod -aG docker/);
        expect(checkDocker(table({ docker: MISSING }))[0].message).toBe("'docker' is not on PATH; kind runs its nodes as Docker containers");
    });
});

describe("Karmada host port", () => {
    const args = { kindName: "ikofett", controlPlaneNode: "ikofett-control-plane", containerPort: 32443, hostPort: 5443, listenAddress: "127.0.0.1" };
    test("a free port needs no Docker at all", () => {
        const calls: string[] = [];
        expect(checkKarmadaPort(table({}, calls), () => "free", args)).toEqual([]);
        expect(calls).toEqual([]);
    });
    test("a port held by this stack's own host cluster is fine (docker port shows the mapping)", () => {
        const run = table({ "docker port ikofett-control-plane 32443/tcp": answer("127.0.0.1:5443\n") });
        expect(checkKarmadaPort(run, () => "in-use", args)).toEqual([]);
    });
    test("a port held by anything else is a problem naming the key and the way out", () => {
        const run = table({
            "docker port ikofett-control-plane 32443/tcp": answer("", 1, "Error response from daemon: No such container: ikofett-control-plane\n"),
        });
        const [p] = checkKarmadaPort(run, () => "in-use", args);
        expect(p.message).toBe(
            "127.0.0.1:5443 (kamino:karmada.apiServerHostPort), where the Karmada API is published, is in use by another process (not by kind cluster 'ikofett')",
        );
        expect(p.fix).toMatch(/pulumi config set --path kamino:karmada\.apiServerHostPort <port>/);
        // Published elsewhere by our cluster (another address) is not ours either.
        const elsewhere = table({ "docker port ikofett-control-plane 32443/tcp": answer("0.0.0.0:5443\n[::]:5443\n") });
        expect(checkKarmadaPort(elsewhere, () => "in-use", args)).toHaveLength(1);
    });
    test("a port that cannot be bound at all says why", () => {
        expect(checkKarmadaPort(table({}), () => "EACCES", { ...args, hostPort: 443 })[0].message).toBe(
            "cannot listen on 127.0.0.1:443 (kamino:karmada.apiServerHostPort): EACCES",
        );
    });
    test("the real probe sees a real listener, and a free port after it closes", async () => {
        const server = net.createServer();
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        const port = (server.address() as net.AddressInfo).port;
        expect(probePortSync("127.0.0.1", port)).toBe("in-use");
        await new Promise((r) => server.close(r));
        expect(probePortSync("127.0.0.1", port)).toBe("free");
    });
});

describe("IKO chart", () => {
    let dir: string;
    beforeAll(() => (dir = runTempDir("kamino-chart-")));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const read = (f: string) => (fs.existsSync(f) && fs.statSync(f).isFile() ? fs.readFileSync(f, "utf8") : undefined);
    const chart = (name: string, text: string) => {
        fs.mkdirSync(path.join(dir, name), { recursive: true });
        fs.writeFileSync(path.join(dir, name, "Chart.yaml"), text);
        return path.join(dir, name);
    };

    test("the fixture chart is a chart", () => {
        expect(checkIkoChart(read, FIXTURE_CHART)).toEqual([]);
    });
    test("the unpacked tarball's top directory: the fix names its chart/iris-operator", () => {
        chart("iko-3.8/chart/iris-operator", "apiVersion: v2\nname: iris-operator\nversion: 3.8.0\n");
        const [p] = checkIkoChart(read, path.join(dir, "iko-3.8"));
        expect(p.message).toBe(`no Helm chart at '${path.join(dir, "iko-3.8")}' (kamino:iko.chartPath): it has no Chart.yaml`);
        expect(p.fix).toBe(`pulumi config set --path kamino:iko.chartPath ${path.join(dir, "iko-3.8", "chart", "iris-operator")}`);
    });
    test("the tarball itself: unpack it", () => {
        expect(checkIkoChart(read, "./iris_operator-3.8.42.100-unix.tar.gz")[0].fix).toMatch(
            /^unpack it \('tar xzf \.\/iris_operator-3\.8\.42\.100-unix\.tar\.gz'\)/,
        );
    });
    test.each([
        ["bad-yaml", "name: [unclosed\n", /invalid YAML/],
        ["a-list", "- 1\n", /not a YAML mapping/],
        ["no-version", "apiVersion: v2\nname: x\n", /: no version$/],
        ["v3", "apiVersion: v3\nname: x\nversion: 1.0.0\n", /apiVersion 'v3' is neither v1 nor v2/],
        ["library", "apiVersion: v2\nname: x\nversion: 1.0.0\ntype: library\n", /a library chart, which cannot be installed/],
    ])("%s is not a chart", (name, text, why) => {
        const [p] = checkIkoChart(read, chart(name, text));
        expect(p.check).toBe("iko-chart");
        expect(p.message).toMatch(why);
        expect(p.message).toContain("(kamino:iko.chartPath)");
    });
});

describe("what the stack uses is what is checked", () => {
    const dev = () => loadFleetConfig(stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } }));
    test("the dev stack: both kind clusters, the Karmada port on its host", () => {
        expect(preflightPlan(resolveFleetPlan(dev()))).toEqual({
            kindClusters: ["ikofett", "ikoclone"],
            karmadaPort: { kindName: "ikofett", controlPlaneNode: "ikofett-control-plane", containerPort: 32443, hostPort: 5443, listenAddress: "127.0.0.1" },
            chartPath: FIXTURE_CHART,
            karmadaChart: { repo: "https://raw.githubusercontent.com/karmada-io/karmada/master/charts", chart: "karmada", version: "v1.18.1" },
        });
    });
    test("a stack of existing clusters runs no kind and no docker, and probes no port (it still reads the chart's index)", () => {
        const cfg = dev();
        cfg.clusters = cfg.clusters.map((c) => ({ ...c, provider: "existing", kubeconfigPath: "k" }) as typeof c);
        const calls: string[] = [];
        const env = {
            ...healthyMachine(calls),
            probePort: () => {
                throw new Error("no port to probe");
            },
        };
        expect(preflight(preflightPlan(resolveFleetPlan(cfg)), env, { dryRun: false })).toEqual([]);
        expect(calls).toEqual(["GET https://raw.githubusercontent.com/karmada-io/karmada/master/charts/index.yaml"]);
    });
    test("preview checks the chart only: no process runs", () => {
        const calls: string[] = [];
        const plan = { ...preflightPlan(resolveFleetPlan(dev())), chartPath: "./nowhere" };
        expect(preflight(plan, healthyMachine(calls), { dryRun: true }).map((p) => p.check)).toEqual(["iko-chart"]);
        expect(calls).toEqual([]);
    });
});

describe("with the stand-in kind and docker as real processes", () => {
    let host: StandinHost;
    afterEach(() => host.cleanup());
    const plan = (hostPort = 5443) => ({
        kindClusters: ["ikofett", "ikoclone"],
        karmadaPort: { kindName: "ikofett", controlPlaneNode: "ikofett-control-plane", containerPort: 32443, hostPort, listenAddress: "127.0.0.1" },
        chartPath: FIXTURE_CHART,
    });
    const envOf = (h: StandinHost, probePort = probePortSync) => ({ ...healthyMachine(), run: h.runner(), probePort });

    test("a healthy machine passes, having asked kind and docker", () => {
        host = new StandinHost();
        expect(
            preflight(
                plan(),
                envOf(host, () => "free"),
                { dryRun: false },
            ),
        ).toEqual([]);
        expect(host.calls()).toEqual(["kind version", "docker info --format {{.ServerVersion}}"]);
    });
    test("no kind, Docker down, the port taken: three lines, each with its fix", async () => {
        host = new StandinHost(["docker"]);
        host.docker("down");
        const server = net.createServer();
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        try {
            const port = (server.address() as net.AddressInfo).port;
            const problems = preflight(plan(port), envOf(host), { dryRun: false });
            expect(problems.map((p) => p.check)).toEqual(["kind", "docker", "karmada-port"]);
            expect(problems[1].message).toBe(`the Docker daemon is not reachable: ${DAEMON_DOWN}`);
            const err = new PreflightError(problems);
            expect(err.message.split("\n")).toEqual([
                "Kamino preflight failed (3 problems); nothing was created:",
                expect.stringMatching(/^ {2}- kind: 'kind' is not on PATH; .*\. Fix: install kind v0\.23\.0 or newer/),
                expect.stringMatching(/^ {2}- docker: the Docker daemon is not reachable: Cannot connect .*\. Fix: start Docker/),
                expect.stringMatching(new RegExp(`^  - karmada-port: 127\\.0\\.0\\.1:${port} .* in use by another process .*\\. Fix: stop it`)),
            ]);
        } finally {
            await new Promise((r) => server.close(r));
        }
    });
    test("the port held by this stack's matching host cluster is not a problem", async () => {
        host = new StandinHost();
        const server = net.createServer(); // stands for kind's docker-proxy on the host port
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        try {
            const port = (server.address() as net.AddressInfo).port;
            host.addCluster("ikofett", { workers: 1, ports: [`32443/tcp -> 127.0.0.1:${port}`] });
            expect(preflight(plan(port), envOf(host), { dryRun: false })).toEqual([]);
            expect(host.calls()).toContain("docker port ikofett-control-plane 32443/tcp");
        } finally {
            await new Promise((r) => server.close(r));
        }
    });
    test("an old kind and a Docker socket that refuses the user", () => {
        host = new StandinHost();
        host.kindVersion("kind v0.20.0 go1.20.4 linux/amd64");
        host.docker("denied");
        const problems = preflight(
            plan(),
            envOf(host, () => "free"),
            { dryRun: false },
        );
        expect(problems.map((p) => p.message)).toEqual([
            "kind v0.20.0 is older than v0.23.0, the first kind whose default node image (Kubernetes 1.30) Cilium 1.18 supports",
            expect.stringMatching(/^the Docker daemon refuses this user: permission denied while trying to connect to the Docker daemon socket/),
        ]);
    });
});

describe("in the stack", () => {
    test("a failing preflight on up throws before any resource is registered", async () => {
        const run = new MockRun(false);
        const config = stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } });
        await run.install(config);
        const host = new StandinHost(["docker"]);
        try {
            host.docker("down");
            expect(() => kaminoStack(config, { crdReader: fakeCrdReader(), preflight: { run: host.runner(), probePort: () => "free" } })).toThrow(
                PreflightError,
            );
            await run.settle();
            expect(run.resources).toEqual([]);
        } finally {
            host.cleanup();
        }
    });
});
