// The real Pulumi engine previews Kamino offline: the CLI, the Node.js language host and the
// kubernetes provider built from Go modules (toolchain/build.sh), a file backend, passphrase
// secrets, no plugin downloads, no update checks.
//
// What this machine cannot preview, and why (each is asserted below, not skipped):
// - kind clusters: they are `command:local:Command` resources, and pulumi-resource-command cannot
//   be built here (the Go module proxy refuses every version of its module). The dev fleet is
//   therefore also previewed with its two clusters declared `existing`, which runs everything
//   else of the dev stack through the real engine and provider.
// - the gcp stack: pulumi-resource-gcp is not built (a Terraform-bridged provider, impractical
//   from Go modules here); it is covered by the mock tests in test/unit/gcp-stack.test.ts.
// - remote Helm charts (Cilium, Karmada): the provider downloads them in Check whenever the
//   cluster's kubeconfig is known. On a fresh dev stack it is unknown, so nothing is fetched.
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { EngineSandbox, PlannedStep, stepRecorder, toolchainPath } from "../support/engine";

jest.setTimeout(10 * 60 * 1000);

const CHART = { "kamino:iko": { chartPath: "./iris-operator" } };
let sandbox: EngineSandbox;

beforeAll(() => {
    sandbox = new EngineSandbox(toolchainPath("engine"));
});
afterAll(() => sandbox?.cleanup());

test("the committed dev stack stops exactly at the kind clusters: no command provider here", async () => {
    const stack = await sandbox.stack("dev", "Pulumi.dev.yaml", CHART);
    const rec = stepRecorder();
    await expect(stack.preview({ onEvent: rec.onEvent })).rejects.toThrow(/no resource plugin 'pulumi-resource-command' found/);
    // Up to the first Command, the program ran under the engine.
    expect(rec.steps.map((s) => s.type)).toEqual(expect.arrayContaining(["pulumi:pulumi:Stack", "kamino:index:Fleet", "kamino:index:KindCluster"]));
});

describe("plain `pulumi preview` loads the program without type checking (tsconfig.pulumi.json)", () => {
    // A type error the engine would stop at if ts-node type-checked; `npm test` (tsc) catches it instead.
    const TYPE_ERROR = '\nconst kaminoTypeCheckProbe: number = "not a number";\nvoid kaminoTypeCheckProbe;\n';
    const previewWithTypeError = async (pulumiYaml: (text: string) => string = (t) => t) => {
        const own = new EngineSandbox(toolchainPath("engine"));
        try {
            fs.appendFileSync(path.join(own.project, "index.ts"), TYPE_ERROR);
            const file = path.join(own.project, "Pulumi.yaml");
            fs.writeFileSync(file, pulumiYaml(fs.readFileSync(file, "utf8")));
            const stack = await own.stack("dev", "Pulumi.dev.yaml", CHART);
            return await stack.preview().then(
                () => "succeeded",
                (e: Error) => e.message,
            );
        } finally {
            own.cleanup();
        }
    };
    test("the program runs despite a type error", async () => {
        // It runs up to the kind clusters (see above), so the error is the missing command plugin, not TS2322.
        const outcome = await previewWithTypeError();
        expect(outcome).toMatch(/no resource plugin 'pulumi-resource-command' found/);
        expect(outcome).not.toMatch(/TS2322/);
    });
    test("without Pulumi.yaml's tsconfig option the same program is type-checked and refused", async () => {
        expect(await previewWithTypeError((t) => t.replace(/^ *tsconfig: .*\n/m, ""))).toMatch(/TS2322/);
    });
});

describe("the dev fleet with its clusters declared `existing`, fresh state", () => {
    let steps: PlannedStep[];
    let diagnostics: string[];
    let summary: Record<string, number>;

    beforeAll(async () => {
        // Kubeconfigs of clusters that are not there: the provider is configured (known kubeconfig)
        // and finds them unreachable, the strictest preview short of real clusters.
        const unreachable = path.join(sandbox.dir, "unreachable.kubeconfig");
        fs.writeFileSync(
            unreachable,
            YAML.stringify({
                apiVersion: "v1",
                kind: "Config",
                "current-context": "x",
                clusters: [{ name: "x", cluster: { server: "https://127.0.0.1:9", "insecure-skip-tls-verify": true } }],
                contexts: [{ name: "x", context: { cluster: "x", user: "x" } }],
                users: [{ name: "x", user: { token: "not-a-secret" } }],
            }),
        );
        const dev = YAML.parse(fs.readFileSync("Pulumi.dev.yaml", "utf8")).config;
        const clusters = dev["kamino:clusters"].map((c: Record<string, unknown>) => ({ ...c, provider: "existing", kubeconfigPath: unreachable }));
        const stack = await sandbox.stack("dev-existing", undefined, {
            ...dev,
            ...CHART,
            "kamino:clusters": clusters,
            "kamino:karmada": { existingKubeconfigPath: unreachable },
        });
        const rec = stepRecorder();
        const result = await stack.preview({ onEvent: rec.onEvent });
        steps = rec.steps;
        diagnostics = rec.diagnostics;
        summary = result.changeSummary as Record<string, number>;
    });

    test("every resource is planned as a create", () => {
        expect(Object.keys(summary)).toEqual(["create"]);
        expect(steps.filter((s) => s.op !== "create")).toEqual([]);
    });

    test("the plan has the dev stack's resources, less kind, Cilium and the Karmada chart", () => {
        const count = (type: string) => steps.filter((s) => s.type === type).length;
        expect({
            stack: count("pulumi:pulumi:Stack"),
            fleet: count("kamino:index:Fleet"),
            clusters: count("kamino:index:ExistingCluster"),
            providers: count("pulumi:providers:kubernetes"),
            ikoReleases: count("kubernetes:helm.sh/v3:Release"),
            members: count("kamino:index:KarmadaMember"),
            karmadaClusters: count("kubernetes:cluster.karmada.io/v1alpha1:Cluster"),
            tokenSecrets: steps.filter((s) => s.type === "kubernetes:core/v1:Secret").length,
            crd: count("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"),
            interpreter: count("kubernetes:config.karmada.io/v1alpha1:ResourceInterpreterCustomization"),
            irisClusters: count("kubernetes:intersystems.com/v1alpha1:IrisCluster"),
            policies: count("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy"),
        }).toEqual({
            stack: 1,
            fleet: 1,
            clusters: 2,
            providers: 3,
            ikoReleases: 2,
            members: 1,
            karmadaClusters: 1,
            // Narrow member access (the default) joins without the impersonator: one token Secret in the member, one credentials Secret in Karmada.
            tokenSecrets: 2,
            crd: 1,
            interpreter: 1,
            irisClusters: 1,
            policies: 1,
        });
    });

    test("children sit under their components", () => {
        const parentOf = (type: string) => [...new Set(steps.filter((s) => s.type === type).map((s) => s.parentType))].sort();
        expect(parentOf("kamino:index:ExistingCluster")).toEqual(["kamino:index:Fleet"]);
        expect(parentOf("kubernetes:helm.sh/v3:Release")).toEqual(["kamino:index:IrisOperator"]);
        expect(parentOf("kubernetes:cluster.karmada.io/v1alpha1:Cluster")).toEqual(["kamino:index:KarmadaMember"]);
        expect(parentOf("kubernetes:intersystems.com/v1alpha1:IrisCluster")).toEqual(["kamino:index:FederatedIrisCluster"]);
        expect(parentOf("pulumi:providers:kubernetes")).toEqual(["kamino:index:ExistingCluster", "kamino:index:KarmadaControlPlane"]);
    });

    test("every Kubernetes object names one of the stack's providers", () => {
        const k8s = steps.filter((s) => s.type.startsWith("kubernetes:"));
        expect(k8s.length).toBeGreaterThan(15);
        expect(k8s.filter((s) => !s.provider || /::default/.test(s.provider))).toEqual([]);
    });

    test("every Kubernetes object carries patch-force, so a later up takes its fields back; Helm releases are not objects", () => {
        const objects = steps.filter((s) => s.type.startsWith("kubernetes:") && s.type !== "kubernetes:helm.sh/v3:Release");
        expect(objects.length).toBeGreaterThan(10);
        const annotation = (s: (typeof steps)[number]) =>
            (s.inputs?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.["pulumi.com/patchForce"];
        expect(objects.filter((s) => annotation(s) !== "true").map((s) => s.urn)).toEqual([]);
        expect(steps.filter((s) => s.type === "kubernetes:helm.sh/v3:Release").every((s) => s.inputs?.metadata === undefined)).toBe(true);
    });

    test("no errors; the only warnings are about plugins found on PATH", () => {
        expect(diagnostics.filter((d) => !/^warning: using pulumi-[a-z-]+ from \$PATH/.test(d))).toEqual([]);
    });
});

test("a config error prints its message once, as Pulumi prints a RunError: no stack trace, no object dump", async () => {
    const stack = await sandbox.stack("bad-config", undefined, { ...CHART, "kamino:clusters": [{ name: "Ikofett", provider: "kind", karmadaHost: true }] });
    const { runPulumi } = await import("../support/pulumi-cli");
    const { code, output } = await runPulumi(sandbox, stack.name, ["preview"]);
    expect(code).not.toBe(0);
    expect(output).toContain('kamino:clusters[0].name = "Ikofett": cluster name must be a DNS-1123 label');
    // Each problem line once in all the output; the heading once among the diagnostics (the progress
    // line above them echoes an error's first line, as the CLI does for every error).
    expect(output.split('kamino:clusters[0].name = "Ikofett"').length - 1).toBe(1);
    expect(output.split("Diagnostics:")[1].split("Invalid Kamino stack config").length - 1).toBe(1);
    expect(output).not.toMatch(/unhandled exception|    at |problems: \[/);
});

test("a new user's up without kind or Docker: the preflight names both once, as a RunError, before anything is created", async () => {
    const stack = await sandbox.stack("no-kind", "Pulumi.dev.yaml", CHART);
    const { runPulumi } = await import("../support/pulumi-cli");
    // A PATH with the Pulumi toolchain and Node but no kind or docker, as on a fresh laptop.
    const PATH = [sandbox.binPath, path.dirname(process.execPath), "/usr/bin", "/bin"].join(":");
    const t0 = Date.now();
    const { code, output } = await runPulumi(sandbox, stack.name, ["up", "--yes", "--skip-preview"], { PATH });
    const seconds = (Date.now() - t0) / 1000;
    expect(code).not.toBe(0);
    expect(output).toMatch(/Kamino preflight failed \(\d+ problems?\); nothing was created:/);
    for (const tool of ["kind", "docker"]) expect(output).toMatch(new RegExp(`- [^\\n]*${tool}[^\\n]*Fix: `));
    expect(output.split("Diagnostics:")[1].split("Kamino preflight failed").length - 1).toBe(1);
    expect(output).not.toMatch(/unhandled exception|    at |problems: \[/);
    expect(seconds).toBeLessThan(60);
    const state = (await stack.exportStack()).deployment as { resources?: Array<{ type: string }> };
    expect((state.resources ?? []).map((r) => r.type).filter((t) => t !== "pulumi:pulumi:Stack")).toEqual([]);
});
