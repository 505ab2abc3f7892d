// The create and delete scripts a KindCluster registers, taken from the registered Command and run
// under bash and under sh (the command provider runs `/bin/sh -c`) with the stand-in kind and docker.
import * as YAML from "yaml";
import { KindCluster } from "../../components/clusters/kind-cluster";
import { MockRun } from "../support/mocks";
import { StandinHost } from "../support/standins";

const KARMADA = { containerPort: 32443, hostPort: 5443, description: "the Karmada API (kamino:karmada.apiServerHostPort)" };
let scripts: { create: string; delete: string; stdin: string; env: Record<string, string> };
let memberScripts: typeof scripts;

beforeAll(async () => {
    const run = new MockRun(false);
    await run.install();
    new KindCluster("ikofett", { kindName: "ikofett", workers: 1, portMappings: [KARMADA] });
    new KindCluster("ikoclone", { kindName: "ikoclone", workers: 2 });
    await run.settle();
    const of = (name: string) => {
        const c = run.get("command:local:Command", `${name}-kind`).inputs;
        return { create: c.create, delete: c.delete, stdin: c.stdin, env: c.environment };
    };
    scripts = of("ikofett");
    memberScripts = of("ikoclone");
});

describe.each(["bash", "sh"])("under %s", (shell) => {
    let host: StandinHost;
    beforeEach(() => (host = new StandinHost()));
    afterEach(() => host.cleanup());
    const create = (s = scripts) => host.runScript(shell, s.create, s.env, s.stdin);

    test("no cluster: kind create cluster gets the kind config on stdin", () => {
        const r = create();
        expect(r.status).toBe(0);
        expect(host.calls()).toEqual(["kind get clusters", "kind create cluster --name ikofett --config -"]);
        expect(host.createdConfig("ikofett")).toBe(scripts.stdin);
        expect(YAML.parse(host.createdConfig("ikofett")).networking.disableDefaultCNI).toBe(true);
    });

    test("the cluster it created is adopted on a re-run, without a second create", () => {
        expect(create().status).toBe(0);
        const r = create();
        expect(r.status).toBe(0);
        expect(r.stderr).toContain("kamino: adopting the existing kind cluster 'ikofett'");
        expect(host.calls().filter((c) => c.startsWith("kind create"))).toHaveLength(1);
        // Adoption read what kind and Docker expose: roles, kindnet, the published port.
        expect(host.calls()).toEqual(
            expect.arrayContaining([
                "kind get nodes --name ikofett",
                'docker inspect --format {{ index .Config.Labels "io.x-k8s.kind.role" }} ikofett-worker',
                "docker exec ikofett-control-plane kubectl --kubeconfig=/etc/kubernetes/admin.conf get daemonsets --namespace=kube-system --output=name",
                "docker port ikofett-control-plane 32443/tcp",
            ]),
        );
    });

    test("a matching cluster made by hand is adopted", () => {
        host.addCluster("ikoclone", { workers: 2 });
        const r = create(memberScripts);
        expect(r.status).toBe(0);
        expect(host.calls()).not.toContain("kind create cluster --name ikoclone --config -");
    });

    test("the article's hand-made ikofett (no Karmada port mapping) is refused at once, with both ways out", () => {
        host.addCluster("ikofett", { workers: 1 });
        const r = create();
        expect(r.status).toBe(1);
        expect(r.stderr.trim().split("\n")).toEqual([
            "kamino: kind cluster 'ikofett' already exists but is not the cluster this stack would create, so it is not adopted:",
            "  - ports: node port 32443/tcp is not published on 127.0.0.1:5443 for the Karmada API (kamino:karmada.apiServerHostPort); docker port says: Error: No public port '32443/tcp' published for ikofett-control-plane",
            "Two ways out:",
            "  - delete it, and the next up creates it: kind delete cluster --name ikofett",
            "  - or keep it, and give this stack's kind clusters other names: pulumi config set kamino:kindNamePrefix <prefix> (e.g. kamino-)",
        ]);
        expect(host.calls().some((c) => c.startsWith("kind create"))).toBe(false);
        expect(host.hasCluster("ikofett")).toBe(true);
    });

    test("wrong node count, kind's default CNI and a port on another address: every difference named", () => {
        host.addCluster("ikofett", { workers: 3, kindnet: true, ports: ["32443/tcp -> 0.0.0.0:5443", "32443/tcp -> [::]:5443"] });
        const r = create();
        expect(r.status).toBe(1);
        expect(r.stderr).toContain("  - nodes: it has 1 control-plane and 3 worker node(s); this stack makes 1 control-plane and 1 worker(s)");
        expect(r.stderr).toContain(
            "  - CNI: kind's default CNI runs in it (DaemonSet kube-system/kindnet); this stack creates kind clusters with networking.disableDefaultCNI: true",
        );
        expect(r.stderr).toContain(
            "  - ports: node port 32443/tcp is not published on 127.0.0.1:5443 for the Karmada API (kamino:karmada.apiServerHostPort); docker port says: 0.0.0.0:5443 [::]:5443",
        );
        expect(r.stderr).toContain("kind delete cluster --name ikofett");
        expect(r.stderr).toContain("kamino:kindNamePrefix");
    });

    test.each([
        ["kind's default CNI alone", { workers: 1, kindnet: true, ports: ["32443/tcp -> 127.0.0.1:5443"] }, "  - CNI: kind's default CNI runs in it"],
        ["a look-alike host port", { workers: 1, ports: ["32443/tcp -> 127.0.0.1:54430"] }, "docker port says: 127.0.0.1:54430"],
        [
            "the right host port on another node port",
            { workers: 1, ports: ["30443/tcp -> 127.0.0.1:5443"] },
            "docker port says: Error: No public port '32443/tcp'",
        ],
    ])("one difference is enough to refuse: %s", (_, cluster, named) => {
        host.addCluster("ikofett", cluster);
        const r = create();
        expect(r.status).toBe(1);
        expect(r.stderr).toContain(named);
        expect(r.stderr.match(/^ {2}- (nodes|CNI|ports):/gm)).toHaveLength(1);
    });

    test("a member with too few workers is refused; its port mappings are not asked for", () => {
        host.addCluster("ikoclone", { workers: 1 });
        const r = create(memberScripts);
        expect(r.status).toBe(1);
        expect(r.stderr).toContain("it has 1 control-plane and 1 worker node(s); this stack makes 1 control-plane and 2 worker(s)");
        expect(host.calls().some((c) => c.startsWith("docker port"))).toBe(false);
    });

    test("a stopped cluster cannot be checked, so it is not adopted", () => {
        host.addCluster("ikofett", { workers: 1, ports: ["32443/tcp -> 127.0.0.1:5443"], stopped: true });
        const r = create();
        expect(r.status).toBe(1);
        expect(r.stderr).toMatch(
            /- CNI: could not list its kube-system DaemonSets to look for kind's default CNI: Error response from daemon: container \w+ is not running/,
        );
    });

    test("Docker down: the script stops at 'kind get clusters' instead of trying to create", () => {
        host.docker("down");
        const r = create();
        expect(r.status).toBe(1);
        expect(r.stderr).toContain("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?");
        expect(r.stderr).toContain("kamino: 'kind get clusters' failed (above); is Docker running?");
        expect(host.calls()).toEqual(["kind get clusters"]);
    });

    test("delete removes the cluster, and deleting a missing cluster succeeds", () => {
        host.addCluster("ikofett", { workers: 1 });
        expect(host.runScript(shell, scripts.delete, scripts.env).status).toBe(0);
        expect(host.hasCluster("ikofett")).toBe(false);
        const again = host.runScript(shell, scripts.delete, scripts.env);
        expect(again.status).toBe(0);
        expect(again.stderr).toBe('Deleting cluster "ikofett" ...\n');
    });
});
