// An existing Karmada is asked, on `up` and before anything is created, whether it can run failover:
// the webhook must accept NoExecute ClusterTaintPolicies, and the controller manager must run with
// the Failover gate and NoExecute eviction. What is missing is named, flag by flag.
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { failoverReadiness, KarmadaProbe, missingControllerSettings } from "../../components/checks/failover-readiness";
import { kaminoProgram } from "../../components/stack";
import { fakeCrdReader, fakeKubeconfig, fakeRunningWaiter, FIXTURE_CHART, MockRun } from "../support/mocks";
import { healthyMachine } from "../support/standins";
import { runTempDir } from "../support/process-reaper";

const CHART_LIKE = [
    "/bin/karmada-controller-manager",
    "--kubeconfig=/etc/kubeconfig",
    "--feature-gates=Failover=true,PropagateDeps=true",
    "--enable-no-execute-taint-eviction=true",
];
const ACCEPTED = { status: 201, body: "{}" };
const probe = (dryRun: { status: number; body: string }, command: string[] | undefined): KarmadaProbe => ({
    dryRunTaintPolicy: async () => dryRun,
    controllerManagerCommand: async () => command,
    controllerManagerImage: async () => undefined,
});

describe("missingControllerSettings", () => {
    test.each([
        ["the chart's command line with Kamino's values", CHART_LIKE, []],
        ["no gates, no flag", ["karmada-controller-manager"], ["--feature-gates=Failover=true", "--enable-no-execute-taint-eviction=true"]],
        ["Failover off", ["--feature-gates=PropagateDeps=true,Failover=false", "--enable-no-execute-taint-eviction=true"], ["--feature-gates=Failover=true"]],
        [
            "the last --feature-gates wins",
            ["--feature-gates=Failover=true", "--feature-gates=Failover=false", "--enable-no-execute-taint-eviction=true"],
            ["--feature-gates=Failover=true"],
        ],
        [
            "PropagateDeps turned off, as Karmada's chart does",
            ["--feature-gates=PropagateDeps=false,Failover=true", "--enable-no-execute-taint-eviction=true"],
            ["--feature-gates=PropagateDeps=true"],
        ],
        ["eviction off", ["--feature-gates=Failover=true", "--enable-no-execute-taint-eviction=false"], ["--enable-no-execute-taint-eviction=true"]],
    ])("%s", (_, command, missing) => {
        expect(missingControllerSettings(command)).toEqual(missing);
    });
});

describe("failoverReadiness", () => {
    test("a Karmada set up for failover passes", async () => {
        expect(await failoverReadiness(probe(ACCEPTED, CHART_LIKE))).toEqual({ problems: [], notes: [] });
    });
    test("a webhook that refuses NoExecute taints is named with the flag that allows them", async () => {
        const denied = {
            status: 403,
            body: JSON.stringify({
                message:
                    'admission webhook "clustertaintpolicy.karmada.io" denied the request: spec.taints[0]: Forbidden: Configuring taint with NoExecute effect is not allowed',
            }),
        };
        const { problems } = await failoverReadiness(probe(denied, CHART_LIKE));
        expect(problems).toEqual([
            expect.stringMatching(
                /^karmada-webhook refuses NoExecute taints \(HTTP 403: .*NoExecute.*\)\. Fix: start karmada-webhook with --allow-no-execute-taint-policy=true$/,
            ),
        ]);
    });
    test("a Karmada without ClusterTaintPolicy is too old", async () => {
        expect((await failoverReadiness(probe({ status: 404, body: "" }, CHART_LIKE))).problems).toEqual([
            expect.stringContaining("upgrade Karmada to v1.14 or later"),
        ]);
    });
    test("a controller manager without the settings is named with each missing one", async () => {
        const { problems } = await failoverReadiness(probe(ACCEPTED, ["karmada-controller-manager", "--feature-gates=PropagateDeps=true"]));
        expect(problems).toEqual([
            "karmada-controller-manager runs without --feature-gates=Failover=true --enable-no-execute-taint-eviction=true. Fix: add them to its command line",
        ]);
    });
    test("a controller manager Kamino cannot see is a warning naming the settings, not a failure", async () => {
        const { problems, notes } = await failoverReadiness(probe(ACCEPTED, undefined));
        expect(problems).toEqual([]);
        expect(notes).toEqual([
            expect.stringContaining("failover fires only if it runs with --feature-gates=Failover=true --enable-no-execute-taint-eviction=true"),
        ]);
    });
});

describe("the program checks an existing Karmada before creating anything", () => {
    const dir = runTempDir("kamino-readiness-");
    const kubeconfig = (name: string) => {
        const file = path.join(dir, `${name}.kubeconfig`);
        fs.writeFileSync(file, fakeKubeconfig(`https://${name}.example:6443`, name));
        return file;
    };
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const existing = {
        "kamino:clusters": JSON.stringify(
            ["hub", "a", "b"].map((name) => ({ name, provider: "existing", karmadaHost: name === "hub", kubeconfigPath: kubeconfig(name) })),
        ),
        "kamino:karmada": JSON.stringify({ existingKubeconfigPath: kubeconfig("karmada") }),
        "kamino:iko": JSON.stringify({ chartPath: FIXTURE_CHART }),
        "kamino:irisClusters": JSON.stringify([{ name: "iris", image: "iris:1", placement: { mode: "failover", clusterNames: ["a", "b"] } }]),
    };
    test("missing flags: a RunError (message only, no stack trace) listing them, and no resource", async () => {
        const run = new MockRun(false);
        await run.install(existing);
        const probed: string[] = [];
        const error = await kaminoProgram(existing, {
            pathExists: () => true,
            preflight: healthyMachine(),
            crdReader: fakeCrdReader(),
            runningWaiter: fakeRunningWaiter(),
            karmadaProbe: (cfg) => (probed.push(cfg.karmada.existingKubeconfigPath!), probe(ACCEPTED, ["karmada-controller-manager"])),
        }).then(
            () => undefined,
            (e: unknown) => e,
        );
        await run.settle();
        expect(probed).toEqual([path.join(dir, "karmada.kubeconfig")]);
        expect(error).toBeInstanceOf(pulumi.RunError);
        expect((error as Error).message).toMatch(
            /^The existing Karmada .* is not set up for failover placement; nothing was created:\n {2}- karmada-controller-manager runs without --feature-gates=Failover=true --enable-no-execute-taint-eviction=true/,
        );
        expect(run.resources).toEqual([]);
    });
    test("a preview asks nothing", async () => {
        const run = new MockRun(true);
        await run.install(existing);
        const probed: string[] = [];
        await kaminoProgram(existing, {
            pathExists: () => true,
            preflight: healthyMachine(),
            crdReader: fakeCrdReader(),
            runningWaiter: fakeRunningWaiter(),
            karmadaProbe: () => (probed.push("asked"), probe(ACCEPTED, [])),
        });
        await run.settle();
        expect(probed).toEqual([]);
    });
    test("config errors end the run as a RunError too", async () => {
        const run = new MockRun(false);
        await run.install({});
        const error = await kaminoProgram({ "kamino:clusters": "[]" }, { pathExists: () => true, preflight: healthyMachine() }).then(
            () => undefined,
            (e: unknown) => e,
        );
        await run.settle();
        expect(error).toBeInstanceOf(pulumi.RunError);
        expect((error as Error).message).toMatch(/^Invalid Kamino stack config/);
    });
});
