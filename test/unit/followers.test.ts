// The registry of followers (components/config/followers): what it holds, and what the layers read
// from it, on the real registry and on stand-in followers that exercise what no follower of the
// registry uses yet (an annotation or a label lookup, a field dropped for a mirror's DR member).
import * as k8s from "@pulumi/kubernetes";
import { z } from "zod";
import {
    dependencyLookups,
    describedObjects,
    Follower,
    followerMetadata,
    followerRights,
    FOLLOWERS,
    forDrMember,
    IrisClusterConfig,
    loadFleetConfig,
    resolveFleetPlan,
} from "../../components/config";
import { FOLLOWER_LABEL, FollowerObjects } from "../../components/federation/follower-objects";
import { dependenciesLua, DEPENDENCIES_LUA } from "../../components/karmada/control-plane/interpreter";
import { callLua } from "../support/lua";
import { FIXTURE_CHART, MockRun, plain, providerName, stackConfig } from "../support/mocks";

const iris = (metadata: Record<string, unknown>, spec?: Record<string, unknown>) => ({
    apiVersion: "intersystems.com/v1alpha1",
    kind: "IrisCluster",
    metadata: { name: "iris", namespace: "iris", ...metadata },
    ...(spec ? { spec } : {}),
});

/** A follower found by an annotation: a NetworkPolicy named after the entry, when the entry has a `guarded` field. */
const byAnnotation: Follower<Record<never, never>, { guarded: z.ZodOptional<z.ZodBoolean> }> = {
    id: "guards",
    irisClusterFields: { guarded: z.boolean().optional() },
    objects: {
        describe: (plan) =>
            plan.irisClusters
                .filter((ic) => (ic.config as IrisClusterConfig & { guarded?: boolean }).guarded)
                .map((ic) => ({
                    apiVersion: "networking.k8s.io/v1",
                    kind: "NetworkPolicy",
                    metadata: { name: `${ic.config.name}-guard`, namespace: ic.config.namespace },
                    spec: { podSelector: {} },
                })),
    },
    lookup: {
        annotation: "example.com/guard",
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        nameFor: (ic) => ((ic as IrisClusterConfig & { guarded?: boolean }).guarded ? `${ic.name}-guard` : undefined),
    },
    drMembers: "dropped",
};
/** A follower found by a label: a ConfigMap named by the template's label. */
const byLabel: Follower = {
    id: "labelled",
    objects: { describe: () => [] },
    lookup: { label: "example.com/extra", apiVersion: "v1", kind: "ConfigMap", nameFor: () => "extra" },
    drMembers: "copied",
};

describe("the registry", () => {
    test("lists each follower once, by a DNS label id, those that predate it first, in the order Kamino read them", () => {
        const ids = FOLLOWERS.map((f) => f.id);
        expect(ids.slice(0, 4)).toEqual(["secrets", "config-maps", "manifests", "mirror-objects"]);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.every((id) => /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(id))).toBe(true);
    });

    test("a follower that describes its objects has a lookup: nothing else would send them to a member", () => {
        const described = (FOLLOWERS as readonly Follower[]).filter((f) => "describe" in f.objects);
        expect(described.filter((f) => f.lookup === undefined).map((f) => f.id)).toEqual([]);
    });

    test("Secrets and ConfigMaps share one lookup, run once: the fields IKO reads", () => {
        const lookups = dependencyLookups();
        expect(lookups[0].followers).toEqual(["secrets", "config-maps"]);
        expect(lookups.slice(1).every((l) => !("spec" in l.lookup))).toBe(true);
        expect(DEPENDENCIES_LUA.match(/-- secrets, config-maps/g)).toHaveLength(1);
    });
});

describe("Karmada's lookups, generated from the followers", () => {
    const lua = dependenciesLua(dependencyLookups([...FOLLOWERS, byAnnotation, byLabel]));

    test("an annotation or a label names one object of its kind, in the IrisCluster's namespace", () => {
        const deps = callLua(
            lua,
            "GetDependencies",
            iris({ annotations: { "example.com/guard": "iris-guard" }, labels: { "example.com/extra": "extra" } }, {}),
        );
        expect(deps).toEqual([
            { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespace: "iris", name: "iris-guard" },
            { apiVersion: "v1", kind: "ConfigMap", namespace: "iris", name: "extra" },
        ]);
    });

    test("after what the spec names, each object once; without a spec, the metadata's still count", () => {
        const withSpec = callLua(
            lua,
            "GetDependencies",
            iris({ annotations: { "example.com/guard": "g" }, labels: { "example.com/extra": "cpf" } }, { configSource: { name: "cpf" } }),
        );
        expect(withSpec).toEqual([
            { apiVersion: "v1", kind: "ConfigMap", namespace: "iris", name: "cpf" },
            { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespace: "iris", name: "g" },
        ]);
        expect(callLua(lua, "GetDependencies", iris({ annotations: { "example.com/guard": "g" } }))).toEqual([
            { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespace: "iris", name: "g" },
        ]);
        // No annotation, an empty one, a foreign one: nothing.
        expect(callLua(lua, "GetDependencies", iris({ annotations: { "example.com/guard": "", other: "x" } }, {}))).toEqual({});
    });
});

describe("what the other layers read", () => {
    const config = loadFleetConfig(stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART } }), { pathExists: () => true });
    const entry = { ...config.irisClusters[0], guarded: true } as IrisClusterConfig;
    const plan = { ...resolveFleetPlan(config), irisClusters: [{ ...resolveFleetPlan(config).irisClusters[0], config: entry }] };

    test("the template's metadata names what the spec cannot", () => {
        expect(followerMetadata(entry, [byAnnotation, byLabel])).toEqual({
            annotations: { "example.com/guard": "federated-iris-guard" },
            labels: { "example.com/extra": "extra" },
        });
        expect(followerMetadata({ ...entry, guarded: false } as IrisClusterConfig, [byAnnotation])).toEqual({ annotations: {}, labels: {} });
        expect(followerMetadata(entry)).toEqual({ annotations: {}, labels: {} });
    });

    test("described objects are granted by kind, namespace and name unless the follower says otherwise", () => {
        expect(describedObjects(plan, [byAnnotation, byLabel])).toEqual({ guards: [expect.objectContaining({ kind: "NetworkPolicy" })] });
        expect(followerRights(plan, [byAnnotation])).toEqual([
            { group: "networking.k8s.io", resource: "networkpolicies", namespace: "default", name: "federated-iris-guard" },
        ]);
    });

    test("a mirror's DR member loses the fields of a follower it does not get, and only those", () => {
        expect(forDrMember(entry, [byAnnotation, byLabel])).toEqual(config.irisClusters[0]);
        expect(forDrMember(entry, [byLabel])).toBe(entry);
    });
});

test("FollowerObjects: each object in the Karmada API as described, labelled with its follower, not awaited there", async () => {
    const run = new MockRun(false);
    await run.install();
    const karmada = new k8s.Provider("karmada", { kubeconfig: "unused", clusterIdentifier: "karmada" });
    const objects = [
        {
            apiVersion: "networking.k8s.io/v1",
            kind: "NetworkPolicy",
            metadata: { name: "p", namespace: "iris", labels: { a: "b" } },
            spec: { podSelector: {} },
        },
    ];
    const c = new FollowerObjects("guards", { follower: "guards", objects, karmada: { provider: karmada } });
    await run.settle();
    const np = run.get("kubernetes:networking.k8s.io/v1:NetworkPolicy", "guards-iris-p");
    expect(providerName(np)).toBe("karmada");
    expect(plain(np.inputs)).toEqual({
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        metadata: { name: "p", namespace: "iris", labels: { a: "b", [FOLLOWER_LABEL]: "guards" }, annotations: { "pulumi.com/skipAwait": "true" } },
        spec: { podSelector: {} },
    });
    expect(Object.keys(c.objects)).toEqual(["NetworkPolicy.networking.k8s.io iris/p"]);
});
