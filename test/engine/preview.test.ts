// The real Pulumi engine previews the dev stack offline: CLI, Node.js language host and the
// kubernetes and command providers built from Go modules (scripts/toolchain.sh), a file backend,
// passphrase secrets, no plugin downloads, no update checks.
import { EngineSandbox, PlannedStep, stepRecorder, toolchainPath } from "../support/engine";

jest.setTimeout(10 * 60 * 1000);

const FIXTURE = { "kamino:iko": { chartPath: "./iris-operator" } };
let sandbox: EngineSandbox;

beforeAll(() => {
    sandbox = new EngineSandbox(toolchainPath("engine"));
});
afterAll(() => sandbox?.cleanup());

describe("dev stack, fresh state", () => {
    let steps: PlannedStep[];
    let diagnostics: string[];
    let summary: Record<string, number>;

    beforeAll(async () => {
        const stack = await sandbox.stack("dev", "Pulumi.dev.yaml", FIXTURE);
        const rec = stepRecorder();
        const result = await stack.preview({ onEvent: rec.onEvent });
        steps = rec.steps;
        diagnostics = rec.diagnostics;
        summary = result.changeSummary as Record<string, number>;
    });

    test("every resource is planned as a create", () => {
        expect(Object.keys(summary)).toEqual(["create"]);
        expect(steps.every((s) => s.op === "create")).toBe(true);
    });

    test("the plan has the dev stack's resources", () => {
        const count = (type: string) => steps.filter((s) => s.type === type).length;
        expect(count("pulumi:pulumi:Stack")).toBe(1);
        expect(count("kamino:index:Fleet")).toBe(1);
        expect(count("kamino:index:KindCluster")).toBe(2);
        expect(count("command:local:Command")).toBe(6);
        expect(count("kubernetes:helm.sh/v3:Release")).toBe(5);
        expect(count("pulumi:providers:kubernetes")).toBe(3);
        expect(count("kubernetes:cluster.karmada.io/v1alpha1:Cluster")).toBe(1);
        expect(count("kubernetes:intersystems.com/v1alpha1:IrisCluster")).toBe(1);
        expect(count("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy")).toBe(1);
        expect(count("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition")).toBe(1);
    });

    test("children sit under their components", () => {
        const parentOf = (type: string) => [...new Set(steps.filter((s) => s.type === type).map((s) => s.parentType))];
        expect(parentOf("kamino:index:KindCluster")).toEqual(["kamino:index:Fleet"]);
        expect(parentOf("command:local:Command")).toEqual(["kamino:index:KindCluster"]);
        expect(parentOf("kubernetes:cluster.karmada.io/v1alpha1:Cluster")).toEqual(["kamino:index:KarmadaMember"]);
        expect(parentOf("kubernetes:intersystems.com/v1alpha1:IrisCluster")).toEqual(["kamino:index:FederatedIrisCluster"]);
        expect(parentOf("pulumi:providers:kubernetes").sort()).toEqual(["kamino:index:KarmadaControlPlane", "kamino:index:KindCluster"]);
    });

    test("nothing is planned on a default provider", () => {
        const k8s = steps.filter((s) => s.type.startsWith("kubernetes:"));
        expect(k8s.length).toBeGreaterThan(20);
        expect(k8s.filter((s) => !s.provider || s.provider.includes("::default"))).toEqual([]);
    });

    test("no warnings or errors", () => {
        expect(diagnostics).toEqual([]);
    });
});
