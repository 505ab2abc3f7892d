// The IrisCluster interpreter's Lua scripts, run on sample IrisCluster objects.
import { AGGREGATE_LUA, HEALTH_LUA, irisInterpreterSpec, REFLECT_LUA, RETAIN_LUA } from "../../components/karmada/control-plane/interpreter";
import { callLua } from "../support/lua";

const iris = (status?: Record<string, unknown>, spec: Record<string, unknown> = { topology: { data: { image: "iris:1" } } }) => ({
    apiVersion: "intersystems.com/v1alpha1",
    kind: "IrisCluster",
    metadata: { name: "federated-iris", namespace: "default" },
    spec,
    ...(status ? { status } : {}),
});

describe("health: Unhealthy only when IKO reports a failure, so a starting IRIS is never failed over", () => {
    test.each([
        ["running", iris({ phase: "Running" }), true],
        ["not yet reported", iris(), true],
        ["creating", iris({ phase: "Creating" }), true],
        ["pending with a Ready condition False", iris({ phase: "Pending", conditions: [{ type: "Ready", status: "False" }] }), true],
        ["failed", iris({ phase: "Failed", message: "ImagePullBackOff" }), false],
        ["error", iris({ phase: "Error" }), false],
    ])("%s", (_, obj, healthy) => {
        expect(callLua(HEALTH_LUA, "InterpretHealth", obj)).toBe(healthy);
    });
});

describe("status reflection", () => {
    test("the member's whole status is reflected", () => {
        expect(callLua(REFLECT_LUA, "ReflectStatus", iris({ phase: "Running", shards: 1 }))).toEqual({ phase: "Running", shards: 1 });
    });
    test("no status reflects as an empty table", () => {
        expect(callLua(REFLECT_LUA, "ReflectStatus", iris())).toEqual({});
    });
});

describe("status aggregation onto the template", () => {
    const item = (clusterName: string, phase?: string) => ({ clusterName, applied: true, status: phase ? { phase } : undefined });
    test("Running when every member runs it", () => {
        const out = callLua(AGGREGATE_LUA, "AggregateStatus", iris(), [item("ikoclone", "Running"), item("ikogke", "Running")]) as { status: unknown };
        expect(out.status).toEqual({
            phase: "Running",
            clusters: [
                { name: "ikoclone", phase: "Running" },
                { name: "ikogke", phase: "Running" },
            ],
        });
    });
    test("the first member that is not running decides the phase", () => {
        const out = callLua(AGGREGATE_LUA, "AggregateStatus", iris(), [item("ikoclone", "Running"), item("ikogke", "Failed")]) as { status: { phase: string } };
        expect(out.status.phase).toBe("Failed");
    });
    test("a member's first condition that is not True is kept, to say why it does not run", () => {
        const failing = {
            clusterName: "ikogke",
            applied: true,
            status: {
                phase: "Failed",
                conditions: [
                    { type: "Scheduled", status: "True" },
                    { type: "Ready", status: "False", reason: "ImagePullBackOff", message: "x".repeat(300) },
                ],
            },
        };
        const out = callLua(AGGREGATE_LUA, "AggregateStatus", iris(), [item("ikoclone", "Running"), failing]) as { status: { clusters: unknown[] } };
        expect(out.status.clusters).toEqual([
            { name: "ikoclone", phase: "Running" },
            { name: "ikogke", phase: "Failed", condition: `Ready=False: ImagePullBackOff: ${"x".repeat(200)}` },
        ]);
    });
    test("a member without status is Pending", () => {
        const out = callLua(AGGREGATE_LUA, "AggregateStatus", iris(), [item("ikoclone")]) as { status: unknown };
        expect(out.status).toEqual({ phase: "Pending", clusters: [{ name: "ikoclone", phase: "Pending" }] });
    });
    test("no members yet is Pending, and the template is otherwise untouched", () => {
        const out = callLua(AGGREGATE_LUA, "AggregateStatus", iris(), []) as Record<string, unknown>;
        expect(out.status).toEqual({ phase: "Pending", clusters: {} });
        expect(out.spec).toEqual(iris().spec);
    });
});

describe("retention", () => {
    test("references to dependencies are the template's: one removed from it goes from the member too", () => {
        const desired = iris(undefined, { topology: { data: { image: "iris:1", webgateway: { type: "apache" } } }, licenseKeySecret: { name: "lic" } });
        const observed = iris(
            { phase: "Running" },
            {
                topology: { data: { image: "iris:1", webgateway: { type: "apache", loginSecret: { name: "wg" } } } },
                licenseKeySecret: { name: "lic" },
                imagePullSecrets: [{ name: "icr-pull" }],
                configSource: { name: "cpf" },
                tls: { common: { secret: { secretName: "tls" } } },
                volumes: [{ name: "v", secret: { secretName: "s" } }],
            },
        );
        const out = callLua(RETAIN_LUA, "Retain", desired, observed) as { spec: unknown };
        expect(out.spec).toEqual({ topology: { data: { image: "iris:1", webgateway: { type: "apache" } } }, licenseKeySecret: { name: "lic" } });
    });
    test("fields IKO defaults on the member are kept; fields the template sets win", () => {
        const desired = iris(undefined, { topology: { data: { image: "iris:2" } } });
        const observed = iris(
            { phase: "Running" },
            { topology: { data: { image: "iris:1", compatibilityVersion: "2025.1" } }, updateStrategy: { type: "RollingUpdate" } },
        );
        const out = callLua(RETAIN_LUA, "Retain", desired, observed) as { spec: unknown };
        expect(out.spec).toEqual({ topology: { data: { image: "iris:2", compatibilityVersion: "2025.1" } }, updateStrategy: { type: "RollingUpdate" } });
    });
});

test("the customization wires each script to its Karmada hook", () => {
    const spec = irisInterpreterSpec();
    expect(spec.customizations.healthInterpretation.luaScript).toContain("function InterpretHealth(observedObj)");
    expect(spec.customizations.statusReflection.luaScript).toContain("function ReflectStatus(observedObj)");
    expect(spec.customizations.statusAggregation.luaScript).toContain("function AggregateStatus(desiredObj, statusItems)");
    expect(spec.customizations.retention.luaScript).toContain("function Retain(desiredObj, observedObj)");
});
