// Every Karmada object Kamino creates, in the dev, gcp, dr and secrets configurations, validates
// against Karmada's own v1.15 schemas.
import { kaminoStack } from "../../components/stack";
import { describeErrors, karmadaValidators } from "../support/karmada-schemas";
import { fakeAgentReadyWaiter, fakeCrdReader, fakeRunningWaiter, FIXTURE_CHART, MockRun, plain, Registered, stackConfig } from "../support/mocks";
import { healthyMachine } from "../support/standins";

const validators = karmadaValidators();
const KARMADA_GROUPS = ["policy.karmada.io/v1alpha1", "cluster.karmada.io/v1alpha1", "config.karmada.io/v1alpha1"];

const secretsConfig: Record<string, string> = {
    ...stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } }),
    "kamino:secrets": JSON.stringify([
        { name: "iris-key-secret", namespace: "iris", fromConfig: "lic", overwriteExisting: true },
        {
            name: "pull",
            namespace: "iris",
            type: "dockerconfigjson",
            fromConfig: "icr",
            placement: { clusterLabels: { a: "b" }, excludeClusters: ["ikoclone"] },
        },
    ]),
    "kamino:lic": JSON.stringify({ "iris.key": "k" }),
    "kamino:icr": JSON.stringify({ server: "s", username: "u", password: "p" }),
};

const stacks: Array<[string, Record<string, string>]> = [
    ["dev", stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } })],
    ["gcp", stackConfig("Pulumi.gcp.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } })],
    ["dr", stackConfig("Pulumi.dr.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } })],
    ["prod", stackConfig("Pulumi.prod.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } })],
    ["secrets", secretsConfig],
];

const objects: Array<{ stack: string; name: string; kind: string; object: Record<string, unknown> }> = [];

beforeAll(async () => {
    for (const [name, config] of stacks) {
        const run = new MockRun(false);
        await run.install(config, ["kamino:lic", "kamino:icr"], name);
        kaminoStack(config, {
            crdReader: fakeCrdReader(),
            preflight: healthyMachine(),
            runningWaiter: fakeRunningWaiter(),
            agentReadyWaiter: fakeAgentReadyWaiter(),
        });
        await run.settle();
        for (const r of run.resources.filter(isKarmadaObject)) {
            const [, apiVersion, kind] = /^kubernetes:(.+):(\w+)$/.exec(r.type)!;
            objects.push({
                stack: name,
                name: r.name,
                kind,
                object: plain({ apiVersion, kind, metadata: r.inputs.metadata, spec: r.inputs.spec }) as Record<string, unknown>,
            });
        }
    }
    // Several whole stacks under mocks: over 5 s on a busy two-core machine.
}, 60_000);

function isKarmadaObject(r: Registered): boolean {
    return !r.id && KARMADA_GROUPS.some((g) => r.type.startsWith(`kubernetes:${g}:`));
}

test("the stacks create every kind of Karmada object Kamino knows", () => {
    expect(new Set(objects.map((o) => o.kind))).toEqual(
        new Set(["PropagationPolicy", "OverridePolicy", "Cluster", "ResourceInterpreterCustomization", "ClusterTaintPolicy"]),
    );
    expect(objects.length).toBeGreaterThanOrEqual(10);
});

test("every object validates against the upstream schema", () => {
    const invalid = objects
        .map((o) => ({ ...o, errors: validators[o.kind](o.object) ? [] : describeErrors(validators[o.kind].errors) }))
        .filter((o) => o.errors.length > 0)
        .map((o) => `${o.stack}/${o.name} (${o.kind}): ${o.errors.join("; ")}`);
    expect(invalid).toEqual([]);
});

describe("the validators reject what Karmada would", () => {
    const pp = (spec: unknown) => ({ apiVersion: "policy.karmada.io/v1alpha1", kind: "PropagationPolicy", metadata: { name: "x" }, spec });
    test.each([
        ["a policy without resourceSelectors", "PropagationPolicy", pp({ placement: {} })],
        [
            "a typo in a placement field",
            "PropagationPolicy",
            pp({ resourceSelectors: [{ apiVersion: "v1", kind: "Secret" }], placement: { clusterAfinity: {} } }),
        ],
        ["an unknown conflict resolution", "PropagationPolicy", pp({ resourceSelectors: [{ apiVersion: "v1", kind: "Secret" }], conflictResolution: "Merge" })],
        [
            "an override operator Karmada does not know",
            "OverridePolicy",
            { ...pp({ overrideRules: [{ overriders: { plaintext: [{ path: "/spec", operator: "merge" }] } }] }), kind: "OverridePolicy" },
        ],
        [
            "a Cluster without syncMode",
            "Cluster",
            { apiVersion: "cluster.karmada.io/v1alpha1", kind: "Cluster", metadata: { name: "c" }, spec: { apiEndpoint: "https://x" } },
        ],
        [
            "a taint without a key",
            "ClusterTaintPolicy",
            { apiVersion: "policy.karmada.io/v1alpha1", kind: "ClusterTaintPolicy", metadata: { name: "t" }, spec: { taints: [{ effect: "NoExecute" }] } },
        ],
        [
            "a failover purge mode Karmada does not know",
            "PropagationPolicy",
            pp({ resourceSelectors: [{ apiVersion: "v1", kind: "Secret" }], failover: { cluster: { purgeMode: "Never" } } }),
        ],
        [
            "a Cluster with a misspelled field",
            "Cluster",
            { apiVersion: "cluster.karmada.io/v1alpha1", kind: "Cluster", metadata: { name: "c" }, spec: { syncMode: "Push", apiEndpiont: "https://x" } },
        ],
    ])("%s", (_, kind, object) => {
        expect(validators[kind](object)).toBe(false);
    });
});
