// What a follower of an IrisCluster is: a kind of object Kamino creates in Karmada beside the
// IrisClusters (their Secrets, their CPF ConfigMaps, a NetworkPolicy, ...), said in one place for the
// layers that each handle a part of it. The registry (index.ts) lists them; the config, the plan,
// the federation, Karmada's interpreter, the members' rights and the mirror read them from it.
// Pure, like the rest of config/: a follower describes, the layers above act.
import type { z } from "zod";
import type { CheckedConfig, ConfigCheck } from "../context";
import type { FleetPlan } from "../plan";
import type { ConfigPath } from "../problems";
import type { PlacementConfig } from "../schema-parts";
import type { FleetConfig, IrisClusterConfig } from "../schema";

/** A Kubernetes object as it is created in the Karmada API (and as Karmada sends it to members). */
export interface KarmadaObject {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
    [field: string]: unknown;
}

/**
 * An object Karmada writes on members for Kamino, as RBAC sees it: its kind's API group ("" for the
 * core group) and resource, and its namespace (none: cluster-scoped). A namespaced object is granted
 * by kind in its namespace; a cluster-scoped one by name, which it must then have.
 */
export interface PropagatedObject {
    group: string;
    resource: string;
    namespace?: string;
    name?: string;
}

/**
 * How Karmada's interpreter finds a follower beside an IrisCluster (the Lua `GetDependencies`,
 * karmada/control-plane/interpreter.ts). With `propagateDeps` Karmada then sends it wherever the
 * IrisCluster goes, and takes it away from a member the IrisCluster leaves (failover included).
 * - `spec`: a block of Lua walking the IrisCluster's `spec` (the fields IKO reads); it runs inside
 *   GetDependencies when the spec is a table, with `spec`, `add(kind, name)` (a core-group object in
 *   the IrisCluster's namespace), `addObject(apiVersion, kind, name)` and `sortedKeys(table)` in
 *   scope. Followers that share a block list the same object (the block runs once).
 * - `annotation` or `label`: a key on the IrisCluster template whose value names one object of
 *   `apiVersion`/`kind` in its namespace; `nameFor` gives that name for an entry (undefined: the
 *   entry has none), and the federation puts the key on the template. For what the spec cannot name.
 */
export type DependencyLookup =
    | { spec: string }
    | { annotation: string; apiVersion: string; kind: string; nameFor: (ic: IrisClusterConfig) => string | undefined }
    | { label: string; apiVersion: string; kind: string; nameFor: (ic: IrisClusterConfig) => string | undefined };

/** The followers whose objects a component of their own declares (their Pulumi types and names are in deployed stacks' URNs). */
export type OwnComponent = "SecretSync" | "FederatedConfigMaps" | "FederatedManifests";

/**
 * Where a follower's objects are declared in Karmada:
 * - `component`: by its component in federation/ (federation/followers.ts lists them);
 * - `mirror`: with each IRIS mirror, by IrisMirror (federation/iris-mirror.ts);
 * - `describe`: by the generic `FollowerObjects` component, one per follower, from the objects
 *   `describe` gives for the fleet plan: the way for a new follower.
 */
export type FollowerObjects = { component: OwnComponent } | { mirror: true } | { describe: (plan: FleetPlan) => KarmadaObject[] };

/**
 * A kind of object that follows an IrisCluster. `Keys` and `Fields` are the zod shapes of the
 * config it owns: `kamino:` keys of its own, fields of a `kamino:irisClusters[]` entry.
 */
export interface Follower<Keys extends z.ZodRawShape = Record<never, never>, Fields extends z.ZodRawShape = Record<never, never>> {
    /** Its name in the registry: its objects' component name and label value, and how docs name it. */
    id: string;
    /** Config: `kamino:` keys of its own (merged into KEY_SCHEMAS, in registry order, after irisClusters). */
    keys?: Keys;
    /** Config: fields of each `kamino:irisClusters[]` entry (merged into the entry's schema). */
    irisClusterFields?: Fields;
    /** Config: its rules across keys, run with the other checks (config/checks.ts CROSS_CHECKS), in registry order. */
    checks?: ConfigCheck[];
    /** Config: the placements its entries give, checked as every placement is (members of this fleet). */
    placements?: (cfg: CheckedConfig) => Array<{ path: ConfigPath; placement: PlacementConfig | undefined }>;
    /**
     * Config: the objects it would declare for a config that parses, each with the config path that
     * declares it: a `kamino:manifests` object of the same kind, namespace and name is refused.
     */
    declares?: (cfg: CheckedConfig) => Array<{ object: { group: string; kind: string; namespace?: string; name: string }; at: ConfigPath }>;
    /** Plan: the namespaces its objects live in (Kamino makes each in Karmada; `default` is left out). */
    namespaces?: (cfg: FleetConfig) => string[];
    /** Objects: where they are declared. */
    objects: FollowerObjects;
    /** Interpreter: how Karmada finds it beside an IrisCluster; none: it has placements of its own. */
    lookup?: DependencyLookup;
    /**
     * Rights: what Karmada writes on members for it. A follower that `describe`s its objects may
     * leave it out: each of its objects is then granted by its kind, namespace and name.
     */
    rights?: (plan: FleetPlan) => PropagatedObject[];
    /**
     * Mirror: what a mirror's DR member gets (federation/iris-mirror.ts copies the entry to each DR
     * IrisCluster). `copied`: the entry's fields, so it follows the DR IrisClusters too; `dropped`:
     * its `irisClusterFields` are taken off the DR member's entry; `placed`: nothing of it is in the
     * entry, its own placement decides where it goes.
     */
    drMembers: "copied" | "dropped" | "placed";
}
