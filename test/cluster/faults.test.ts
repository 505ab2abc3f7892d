// Faults on the loopback fleet (real engine, real Karmada, IKO played by the harness), one after
// another on one 2-member fleet; after each, the fleet converges and a no-op `up` changes nothing.
// It ends with a member lost for good and a `destroy` that still finishes. What a user sees and
// the recovery they run are the "When things go wrong" table in docs/faults.md; times are printed.
import * as fs from "fs";
import * as path from "path";
import { EngineSandbox, toolchainPath } from "../support/engine";
import { PulumiProcess, runPulumi, startPulumi } from "../support/pulumi-cli";
import {
    CLUSTER_API_VERSION,
    clusterCondition,
    IkoPlayer,
    KarmadaClusterObject,
    KubeClient,
    KubeObject,
    LoopbackFleet,
    resourcePath,
    waitFor,
} from "./harness";
import { drawMoments, kaminoObjects, killAt, PHASES, recover, seededRandom } from "./chaos";
import { loopbackStack, setLicense } from "./loopback-stack";
import { SuiteReport } from "./scaffold/report";

jest.setTimeout(30 * 60_000);

const MEMBERS = ["ikoclone", "ikoclone2"];
const WAIT = { timeoutMs: 180_000, intervalMs: 1000 };
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const SECRET = resourcePath("v1", "secrets", { namespace: "iris", name: "iris-key-secret" });

// One kill moment of `up` and one of `destroy` per run, drawn from a seed that is printed: every CI
// run tries other moments; `npm run chaos` sweeps them all (test/chaos/sweep.ts).
const SEED = Number(process.env.KAMINO_CHAOS_SEED ?? Date.now() % 1_000_000);
const [UP_MOMENT, DESTROY_MOMENT] = drawMoments(PHASES, 2, seededRandom(SEED));

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let iko: IkoPlayer;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
const report = new SuiteReport("faults");
const member = (name: string): KubeClient => fleet.members.find((m) => m.name === name)!.client;
const karmada = () => fleet.karmada.client;

// Progress on stderr as it happens (jest holds console output until the file ends; this suite is long).
const note = (line: string) => report.note(line);
const timed = <T>(what: string, fn: () => Promise<T>): Promise<T> => report.timed(what, fn);

/** The CLI, as a user runs it: `pulumi <args>` in the project, with the sandbox's backend. */
function cli(args: string[], env: Record<string, string> = {}): PulumiProcess {
    return startPulumi(sandbox, "faults", args, env);
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
    const { code, output } = await runPulumi(sandbox, "faults", args, env);
    // A failed run is shown whole: it is what the user sees.
    const lines = output.trim().split("\n");
    note(
        `pulumi ${args.join(" ")} exited ${code}:\n${(code === 0 ? lines.slice(-8) : lines.filter((l) => !/using pulumi-.* from \$PATH/.test(l))).join("\n")}`,
    );
    return { code, output };
}

/** A fleet in the state `up` promises: Running everywhere, the Secret's value on every member. */
async function expectConverged(license: string): Promise<void> {
    for (const m of MEMBERS) {
        await waitFor(
            `federated-iris Running on ${m}`,
            async () => ((await member(m).get<KubeObject & { status?: { phase?: string } }>(IRIS))?.status?.phase === "Running" ? true : undefined),
            WAIT,
        );
        await waitFor(
            `license on ${m}`,
            async () => {
                const s = await member(m).get<KubeObject & { data?: Record<string, string> }>(SECRET);
                return s?.data && Buffer.from(s.data["iris.key"], "base64").toString() === license ? true : undefined;
            },
            WAIT,
        );
    }
}

/** A command that must succeed; if not, the failure shows its output's end, as a user would see it. */
function expectSucceeded(result: { code: number | null; output: string }): void {
    if (result.code !== 0) throw new Error(`exited ${result.code}:\n${result.output.slice(-4000)}`);
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
    report.print();
    await iko?.stop();
    sandbox?.cleanup();
    await fleet?.stop();
});

test("pulumi up killed (SIGKILL) at a random moment: npm run recover converges, with no env var, kubectl or state surgery", async () => {
    const up = cli(["up", "--yes", "--skip-preview"]);
    const kill = await killAt(up, UP_MOMENT);
    note(
        `up killed ${kill.killed ? `at ${kill.atMs} ms, phase ${kill.phaseSeen} (${kill.underWay.join(", ") || "no step under way"})` : "(it ended first)"}; replay with KAMINO_CHAOS_SEED=${SEED}`,
    );
    report.record(
        "SIGKILL moment",
        `${UP_MOMENT.phase} +${UP_MOMENT.delayMs} ms -> ${kill.killed ? `${kill.atMs} ms, ${kill.phaseSeen}` : "not killed"} (seed ${SEED})`,
    );
    // The narrowest moment, which a CI run once hit: between truncating the checkpoint's sidecar and
    // writing it (gocloud writes it in place). Every command then says "failed to load checkpoint: EOF".
    fs.writeFileSync(path.join(sandbox.dir, "state/.pulumi/stacks/kamino/faults.json.attrs"), "");
    expect((await run(["stack", "export"])).output).toMatch(/failed to load checkpoint: EOF/);

    const rec = await timed("SIGKILL: npm run recover to converged", () => recover(sandbox, "faults"));
    expectSucceeded(rec);
    await expectConverged("IRIS-LICENSE-FOR-TESTS");
    await expectNoOp();
});

test("hand edits on Kamino's objects: pulumi up --refresh puts them back, no env var", async () => {
    const template = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
    const policy = resourcePath("policy.karmada.io/v1alpha1", "propagationpolicies", { namespace: "default", name: "iriscluster-propagate" });
    const before = await karmada().get<KubeObject & { spec: { topology: { data: { image: string } } } }>(template);
    const placementBefore = (await karmada().get<KubeObject & { spec: { placement: unknown } }>(policy))!.spec.placement;
    // As `kubectl edit` would: another field manager changes fields Kamino owns.
    const edit = (path: string, body: unknown) => karmada().request("PATCH", `${path}?fieldManager=kubectl-edit`, body, "application/merge-patch+json");
    expect((await edit(template, { spec: { topology: { data: { image: "registry.example/hand-edited:1" } } } })).status).toBe(200);
    // (A field Kamino does not declare, e.g. an added clusterNames, is not its to take back.)
    expect((await edit(policy, { spec: { placement: { clusterAffinity: { labelSelector: { matchLabels: { lab: "hand-edited" } } } } } })).status).toBe(200);

    const repaired = await timed("drift: up --refresh", () => run(["up", "--yes", "--skip-preview", "--refresh"]));
    expectSucceeded(repaired);
    expect((await karmada().get<KubeObject & { spec: { topology: { data: { image: string } } } }>(template))!.spec.topology.data.image).toBe(
        before!.spec.topology.data.image,
    );
    expect((await karmada().get<KubeObject & { spec: { placement: unknown } }>(policy))!.spec.placement).toEqual(placementBefore);
    await expectConverged("IRIS-LICENSE-FOR-TESTS");
    await expectNoOp();
});

test("an IrisCluster failing on one member: up fails naming exactly that member; after it recovers, up converges", async () => {
    iko.report("ikoclone2", { phase: "Failed", condition: { type: "Ready", status: "False", reason: "ErrImagePull", message: "image not found" } });
    try {
        await waitFor(
            "ikoclone2 reports Failed",
            async () => ((await member("ikoclone2").get<KubeObject & { status?: { phase?: string } }>(IRIS))?.status?.phase === "Failed" ? true : undefined),
            WAIT,
        );
        const failed = await timed("failing member: up fails", () => run(["up", "--yes", "--skip-preview"]));
        expect(failed.code).not.toBe(0);
        // The CLI indents a diagnostic's lines; the message is Kamino's, on the template.
        expect(failed.output).toMatch(
            /IrisCluster \(federated-iris-template\):\n\s+error: IrisCluster default\/federated-iris is not running on 1 member\(s\) \(failed\):\n\s+ikoclone2: Failed \(Ready=False: ErrImagePull: image not found\)\n/,
        );
        expect(failed.output).not.toMatch(/^\s+ikoclone: /m);
        // Said once, as help: no "unhandled exception" and no stack trace after it.
        expect(failed.output).not.toMatch(/unhandled exception|^\s+at /m);
    } finally {
        iko.report("ikoclone2");
    }
    await timed("failing member: up after recovery", async () => expect((await stack.up()).summary.result).toBe("succeeded"));
    await expectNoOp();
});

test("a member API server down during up: up fails naming it; the rotated Secret reaches it once it is back", async () => {
    await fleet.stopApiServer("ikoclone2");
    try {
        await timed("member down: Karmada marks it not Ready", () =>
            waitFor("Cluster ikoclone2 not Ready", async () => ((await clusterReady("ikoclone2")) !== "True" ? true : undefined), WAIT),
        );
        await setLicense(stack, "ROTATED-WHILE-DOWN");
        const down = await timed("member down: up fails", () => run(["up", "--yes", "--skip-preview"]));
        expect(down.code).not.toBe(0);
        expect(down.output).toMatch(
            /IrisCluster default\/federated-iris is not running on 1 member\(s\) \(failed\):\n\s+ikoclone2: ClusterNotReady \(Ready=False: ClusterNotReachable: cluster is not reachable\)\n/,
        );
        // A rotation is an update in place (a replaced Secret would be deleted from every member first).
        expect(down.output).toMatch(/~ {2}kubernetes:core\/v1:Secret secrets-iris-iris-key-secret updated/);
        // The rest of the fleet got the new value.
        await waitFor(
            "rotated license on ikoclone",
            async () => {
                const s = await member("ikoclone").get<KubeObject & { data?: Record<string, string> }>(SECRET);
                return s?.data && Buffer.from(s.data["iris.key"], "base64").toString() === "ROTATED-WHILE-DOWN" ? true : undefined;
            },
            WAIT,
        );
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

test("a member lost for good: it leaves by config and npm run recover; then a destroy killed at a random moment is finished by npm run recover --destroy", async () => {
    await fleet.stopApiServer("ikoclone2");
    await waitFor("Cluster ikoclone2 not Ready", async () => ((await clusterReady("ikoclone2")) !== "True" ? true : undefined), WAIT);
    const clusters = JSON.parse((await stack.getConfig("kamino:clusters")).value) as Array<{ name: string }>;
    await stack.setConfig("kamino:clusters", { value: JSON.stringify(clusters.filter((c) => c.name !== "ikoclone2")) });
    await timed("member lost: removed from config, npm run recover", async () => {
        const rec = await recover(sandbox, "faults");
        note(
            rec.output
                .split("\n")
                .filter((l) => /^recover:/.test(l))
                .join("\n"),
        );
        expectSucceeded(rec);
    });
    // Karmada let the lost member go; the other member runs on, with the current Secret.
    await waitFor(
        "Cluster ikoclone2 gone from Karmada",
        async () => ((await karmada().get(resourcePath(CLUSTER_API_VERSION, "clusters", { name: "ikoclone2" }))) ? undefined : true),
        WAIT,
    );
    await waitFor(
        "federated-iris Running on ikoclone",
        async () => ((await member("ikoclone").get<KubeObject & { status?: { phase?: string } }>(IRIS))?.status?.phase === "Running" ? true : undefined),
        WAIT,
    );
    const state = JSON.stringify(await stack.exportStack());
    expect(state).not.toMatch(/ikoclone2-(iko|member)/);
    await expectNoOp();

    const destroy = cli(["destroy", "--yes", "--skip-preview"]);
    const kill = await killAt(destroy, DESTROY_MOMENT, true);
    note(
        `destroy killed ${kill.killed ? `at ${kill.atMs} ms, phase ${kill.phaseSeen} (${kill.underWay.join(", ") || "no step under way"})` : "(it ended first)"}; replay with KAMINO_CHAOS_SEED=${SEED}`,
    );
    report.record(
        "destroy SIGKILL moment",
        `${DESTROY_MOMENT.phase} +${DESTROY_MOMENT.delayMs} ms -> ${kill.killed ? `${kill.atMs} ms, ${kill.phaseSeen}` : "not killed"} (seed ${SEED})`,
    );
    const rec = await timed("killed destroy: npm run recover --destroy", () => recover(sandbox, "faults", { destroy: true }));
    expectSucceeded(rec);
    expect(((await stack.exportStack()).deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
    for (const [name, client] of [
        ["karmada", karmada()],
        ["ikoclone", member("ikoclone")],
        ["host", fleet.host.client],
    ] as const) {
        await waitFor(`no Kamino objects left on ${name}`, async () => ((await kaminoObjects(client)).length === 0 ? true : undefined), WAIT).catch(
            async (e) => {
                throw new Error(`${(e as Error).message}: ${(await kaminoObjects(client)).join(", ")}`);
            },
        );
    }
});
