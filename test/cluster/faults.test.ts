// Faults on the loopback fleet (real engine, real Karmada, IKO played by the harness), one after
// another on one 2-member fleet; after each, the fleet converges and a no-op `up` changes nothing.
// It ends with a member lost for good and a `destroy` that still finishes. What a user sees and
// the recovery they run are the "When things go wrong" table in docs/faults.md; times are printed.
import { EngineSandbox, toolchainPath } from "../support/engine";
import { PulumiProcess, runPulumi, startPulumi } from "../support/pulumi-cli";
import { CLUSTER_API_VERSION, clusterCondition, IkoPlayer, KarmadaClusterObject, KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "./harness";
import { loopbackStack, setLicense } from "./loopback-stack";

jest.setTimeout(30 * 60_000);

const MEMBERS = ["ikoclone", "ikoclone2"];
const WAIT = { timeoutMs: 180_000, intervalMs: 1000 };
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const SECRET = resourcePath("v1", "secrets", { namespace: "iris", name: "iris-key-secret" });

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let iko: IkoPlayer;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
const report: Record<string, string> = {};
const member = (name: string): KubeClient => fleet.members.find((m) => m.name === name)!.client;
const karmada = () => fleet.karmada.client;

/** Progress on stderr as it happens (jest holds console output until the file ends; this suite is long). */
const note = (line: string) => process.stderr.write(`[faults ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const t = Date.now();
    note(`${what} ...`);
    try {
        return await fn();
    } finally {
        report[what] = `${((Date.now() - t) / 1000).toFixed(1)} s`;
        note(`${what}: ${report[what]}`);
    }
}

/** The CLI, as a user runs it: `pulumi <args>` in the project, with the sandbox's backend. */
function cli(args: string[], env: Record<string, string> = {}): PulumiProcess {
    return startPulumi(sandbox, "faults", args, env);
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
    const { code, output } = await runPulumi(sandbox, "faults", args, env);
    // A failed run is shown whole: it is what the user sees.
    const lines = output.trim().split("\n");
    note(`pulumi ${args.join(" ")} exited ${code}:\n${(code === 0 ? lines.slice(-8) : lines.filter((l) => !/using pulumi-.* from \$PATH/.test(l))).join("\n")}`);
    return { code, output };
}

/** A fleet in the state `up` promises: Running everywhere, the Secret's value on every member. */
async function expectConverged(license: string): Promise<void> {
    for (const m of MEMBERS) {
        await waitFor(`federated-iris Running on ${m}`, async () => ((await member(m).get<KubeObject & { status?: { phase?: string } }>(IRIS))?.status?.phase === "Running" ? true : undefined), WAIT);
        await waitFor(`license on ${m}`, async () => {
            const s = await member(m).get<KubeObject & { data?: Record<string, string> }>(SECRET);
            return s?.data && Buffer.from(s.data["iris.key"], "base64").toString() === license ? true : undefined;
        }, WAIT);
    }
}

async function expectNoOp(): Promise<void> {
    const result = await stack.up({ expectNoChanges: true });
    expect(Object.entries(result.summary.resourceChanges ?? {}).filter(([op]) => op !== "same")).toEqual([]);
}

async function clusterReady(name: string): Promise<string | undefined> {
    return clusterCondition(await karmada().get<KarmadaClusterObject>(resourcePath(CLUSTER_API_VERSION, "clusters", { name })), "Ready")?.status;
}

beforeAll(async () => {
    fleet = new LoopbackFleet({ hostName: "ikofett", members: MEMBERS });
    await fleet.start();
    iko = new IkoPlayer(fleet.members, 1000).start();
    sandbox = new EngineSandbox(toolchainPath("engine"));
    stack = await loopbackStack(sandbox, fleet, "faults", { runningTimeoutSeconds: 120 });
}, 10 * 60_000);

afterAll(async () => {
    console.log(`faults on the loopback fleet:\n${Object.entries(report).map(([k, v]) => `  ${k}: ${v}`).join("\n")}`);
    await iko?.stop();
    sandbox?.cleanup();
    await fleet?.stop();
});

test("pulumi up killed with SIGKILL during the policies: cancel, refresh --clear-pending-creates, up with patch-force converges", async () => {
    const up = cli(["up", "--yes", "--skip-preview"]);
    // Kill the CLI, its language host and its providers at once, as a machine losing power would, as
    // federated-iris's policy is created: the joins are done or under way, the IKO releases are done.
    // (A kill during a Helm install leaves Helm's own pending record; docs/faults.md says how to clear it.)
    await waitFor("the policies under way", async () => (/PropagationPolicy federated-iris-policy creating/.test(up.output()) ? true : undefined), { timeoutMs: 240_000, intervalMs: 50 });
    const killed = up.killTree("SIGKILL");
    note(`killed pulumi up and ${killed.length - 1} process(es) it started`);
    await up.exited;

    const locked = await run(["up", "--yes", "--skip-preview"]);
    expect(locked.code).not.toBe(0);
    expect(locked.output).toMatch(/the stack is currently locked by 1 lock\(s\).*pulumi cancel/s);

    await timed("SIGKILL: recovery to converged", async () => {
        expect((await run(["cancel", "--yes"])).code).toBe(0);
        const refresh = await run(["refresh", "--yes", "--clear-pending-creates"]);
        expect([refresh.code, refresh.output]).toEqual([0, expect.any(String)]);
        // An object the killed run had just created belongs to that run's field manager; server-side
        // apply would refuse to take it over ("field conflict") unless told to.
        const again = await run(["up", "--yes", "--skip-preview"], { PULUMI_K8S_ENABLE_PATCH_FORCE: "true" });
        expect([again.code, again.output.slice(-3000)]).toEqual([0, expect.any(String)]);
    });
    await expectConverged("IRIS-LICENSE-FOR-TESTS");
    await expectNoOp();
});

test("an IrisCluster failing on one member: up fails naming exactly that member; after it recovers, up converges", async () => {
    iko.report("ikoclone2", { phase: "Failed", condition: { type: "Ready", status: "False", reason: "ErrImagePull", message: "image not found" } });
    try {
        await waitFor("ikoclone2 reports Failed", async () => ((await member("ikoclone2").get<KubeObject & { status?: { phase?: string } }>(IRIS))?.status?.phase === "Failed" ? true : undefined), WAIT);
        const failed = await timed("failing member: up fails", () => run(["up", "--yes", "--skip-preview"]));
        expect(failed.code).not.toBe(0);
        // The CLI indents a diagnostic's lines; the message is Kamino's, on the template.
        expect(failed.output).toMatch(/IrisCluster \(federated-iris-template\):\n\s+error: IrisCluster default\/federated-iris is not running on 1 member\(s\) \(failed\):\n\s+ikoclone2: Failed \(Ready=False: ErrImagePull: image not found\)\n/);
        expect(failed.output).not.toMatch(/^\s+ikoclone: /m);
    } finally {
        iko.report("ikoclone2");
    }
    await timed("failing member: up after recovery", async () => expect((await stack.up()).summary.result).toBe("succeeded"));
    await expectNoOp();
});

test("a member API server down during up: up fails naming it; the rotated Secret reaches it once it is back", async () => {
    await fleet.stopApiServer("ikoclone2");
    try {
        await timed("member down: Karmada marks it not Ready", () => waitFor("Cluster ikoclone2 not Ready", async () => ((await clusterReady("ikoclone2")) !== "True" ? true : undefined), WAIT));
        await setLicense(stack, "ROTATED-WHILE-DOWN");
        const down = await timed("member down: up fails", () => run(["up", "--yes", "--skip-preview"]));
        expect(down.code).not.toBe(0);
        expect(down.output).toMatch(/IrisCluster default\/federated-iris is not running on 1 member\(s\) \(failed\):\n\s+ikoclone2: ClusterNotReady \(Ready=False: ClusterNotReachable: cluster is not reachable\)\n/);
        // A rotation is an update in place (a replaced Secret would be deleted from every member first).
        expect(down.output).toMatch(/~ {2}kubernetes:core\/v1:Secret secrets-iris-iris-key-secret updated/);
        // The rest of the fleet got the new value.
        await waitFor("rotated license on ikoclone", async () => {
            const s = await member("ikoclone").get<KubeObject & { data?: Record<string, string> }>(SECRET);
            return s?.data && Buffer.from(s.data["iris.key"], "base64").toString() === "ROTATED-WHILE-DOWN" ? true : undefined;
        }, WAIT);
    } finally {
        await fleet.startApiServer("ikoclone2");
    }
    await timed("member back: converged", async () => {
        await waitFor("Cluster ikoclone2 Ready", async () => ((await clusterReady("ikoclone2")) === "True" ? true : undefined), WAIT);
        expect((await stack.up()).summary.result).toBe("succeeded");
        await expectConverged("ROTATED-WHILE-DOWN");
    });
    await expectNoOp();
});

test("the Karmada API down during up: up fails naming its address; after restart up converges", async () => {
    await fleet.stopApiServer("karmada");
    try {
        await setLicense(stack, "ROTATED-WHILE-KARMADA-DOWN");
        const down = await timed("Karmada down: up fails", () => run(["up", "--yes", "--skip-preview"]));
        expect(down.code).not.toBe(0);
        expect(down.output).toMatch(new RegExp(`configured Kubernetes cluster is unreachable: .*${new URL(fleet.karmada.server).host}.*connection refused`));
    } finally {
        await fleet.startApiServer("karmada");
    }
    await timed("Karmada back: converged", async () => {
        expect((await stack.up()).summary.result).toBe("succeeded");
        await expectConverged("ROTATED-WHILE-KARMADA-DOWN");
    });
    await expectNoOp();
});

test("a member lost for good: destroy finishes by the documented path, and cleans the other member", async () => {
    await fleet.stopApiServer("ikoclone2");
    await waitFor("Cluster ikoclone2 not Ready", async () => ((await clusterReady("ikoclone2")) !== "True" ? true : undefined), WAIT);
    await timed("member lost: destroy, documented path", async () => {
        // 1. A plain destroy stops at the lost member, and the provider names the way out.
        const plain = await run(["destroy", "--yes", "--skip-preview"]);
        expect(plain.code).not.toBe(0);
        expect(plain.output).toMatch(/ikoclone2-member-\S+\):\n\s+warning: configured Kubernetes cluster is unreachable/);
        expect(plain.output).toContain("rerunning the operation with the PULUMI_K8S_DELETE_UNREACHABLE environment variable set to \"true\"");
        // 2. With it, everything on the lost member is forgotten but its Helm release, which the provider will not drop.
        sandbox.env.PULUMI_K8S_DELETE_UNREACHABLE = "true";
        const unreachable = await run(["destroy", "--yes", "--skip-preview"]);
        expect(unreachable.code).not.toBe(0);
        expect(unreachable.output).toMatch(/Release \(ikoclone2-iko-iko\):\n\s+error: can't delete Helm Release with unreachable cluster/);
        // 3. Forget that release, and destroy finishes.
        const release = ((await stack.exportStack()).deployment as { resources: Array<{ urn: string; type: string }> }).resources.find(
            (r) => r.type === "kubernetes:helm.sh/v3:Release" && r.urn.endsWith("::ikoclone2-iko-iko"),
        )!;
        expect((await run(["state", "delete", release.urn, "--yes"])).code).toBe(0);
        const last = await run(["destroy", "--yes", "--skip-preview"]);
        expect(last.code).toBe(0);
    });
    const c = member("ikoclone");
    await waitFor("federated-iris gone from ikoclone", async () => ((await c.get(IRIS)) ? undefined : true), WAIT);
    await waitFor("iris-key-secret gone from ikoclone", async () => ((await c.get(SECRET)) ? undefined : true), WAIT);
    await waitFor("karmada-cluster namespace gone from ikoclone", async () => ((await c.get(resourcePath("v1", "namespaces", { name: "karmada-cluster" }))) ? undefined : true), WAIT);
    // Karmada lets the lost member's Cluster go too: nothing to unjoin by hand.
    await waitFor("no Clusters left in Karmada", async () => {
        const list = await karmada().get<KubeObject & { items?: unknown[] }>(resourcePath(CLUSTER_API_VERSION, "clusters"));
        return list?.items?.length === 0 ? true : undefined;
    }, WAIT);
    const state = await stack.exportStack();
    expect((state.deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
});
