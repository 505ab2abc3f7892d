// What the layers read from the registry of followers (index.ts), each a fold over FOLLOWERS in
// registry order: the config's checks, placements and namespaces, the objects two places declare,
// the objects the generic component declares, the members' rights, the IrisCluster template's
// metadata, Karmada's lookups and what a mirror's DR member keeps. Pure.
import { apiGroup, kindFacts, manifestObjectId, readManifests } from "../manifests";
import { configKey } from "../problems";
import type { CheckContext, CheckedConfig, ConfigCheck } from "../context";
import type { FleetPlan } from "../plan";
import type { ConfigPath, Problem } from "../problems";
import type { PlacementConfig } from "../schema-parts";
import type { FleetConfig, IrisClusterConfig } from "../schema";
import type { DependencyLookup, Follower, KarmadaObject, PropagatedObject } from "./follower";
import { FOLLOWERS } from "./index";

/** The registry, each follower seen through the common interface. */
export const registry = (): readonly Follower[] => FOLLOWERS;

/** Every follower's checks, in registry order (CROSS_CHECKS runs them). */
export const followerChecks = (): ConfigCheck[] => registry().flatMap((f) => f.checks ?? []);

/** The placements followers' entries give, with their config paths. */
export const followerPlacements = (cfg: CheckedConfig): Array<{ path: ConfigPath; placement: PlacementConfig | undefined }> =>
    registry().flatMap((f) => f.placements?.(cfg) ?? []);

/** The namespaces followers' objects live in, in registry order (duplicates kept; the plan dedupes). */
export const followerNamespaces = (cfg: FleetConfig): string[] => registry().flatMap((f) => f.namespaces?.(cfg) ?? []);

/**
 * An object of a `kamino:manifests` file that a follower declares already: two Pulumi resources
 * would write the same object in Karmada, each undoing the other. Refused, naming both places.
 */
export function checkFollowerObjectsInManifests(cfg: CheckedConfig, { env }: CheckContext): Problem[] {
    if (!env.readFile || (cfg.manifests ?? []).length === 0) return [];
    const declared = new Map<string, ConfigPath>();
    for (const f of registry())
        for (const d of f.declares?.(cfg) ?? []) {
            const id = manifestObjectId(d.object);
            if (!declared.has(id)) declared.set(id, d.at);
        }
    if (declared.size === 0) return [];
    // The manifests' own check reports what is wrong with the files (checkManifests); this only compares objects.
    return readManifests(cfg.manifests ?? [], env).manifests.flatMap((m, i) =>
        m.objects.flatMap((o): Problem[] => {
            const at = declared.get(manifestObjectId(o));
            if (!at) return [];
            const what = `${o.kind} '${o.namespace ? `${o.namespace}/` : ""}${o.name}'`;
            return [
                {
                    path: ["manifests", i, "path"],
                    reason: `document ${o.document}: ${what} is ${configKey(at)} already`,
                    fix: `keep it in one place: remove it from the file or from ${configKey(at)}`,
                },
            ];
        }),
    );
}

/** The objects each follower that `describe`s its objects declares for a plan, keyed by follower id (none: no key). */
export function describedObjects(plan: FleetPlan, followers = registry()): Record<string, KarmadaObject[]> {
    const out: Record<string, KarmadaObject[]> = {};
    for (const f of followers) {
        if (!("describe" in f.objects)) continue;
        const objects = f.objects.describe(plan);
        if (objects.length > 0) out[f.id] = objects;
    }
    return out;
}

/** How RBAC names a described object: its kind's group and resource, its namespace and name. */
export function propagatedObject(o: KarmadaObject): PropagatedObject {
    const group = apiGroup(o.apiVersion);
    return { group, resource: kindFacts(group, o.kind).resource, namespace: o.metadata.namespace, name: o.metadata.name };
}

/** Everything Karmada writes on members for the followers: each follower's `rights`, or its described objects. */
export function followerRights(plan: FleetPlan, followers = registry()): PropagatedObject[] {
    return followers.flatMap((f) => {
        if (f.rights) return f.rights(plan);
        return "describe" in f.objects ? f.objects.describe(plan).map(propagatedObject) : [];
    });
}

/** The lookups Karmada's interpreter runs, each once, in registry order, with the followers it finds. */
export function dependencyLookups(followers = registry()): Array<{ lookup: DependencyLookup; followers: string[] }> {
    const out: Array<{ lookup: DependencyLookup; followers: string[] }> = [];
    for (const f of followers) {
        if (!f.lookup) continue;
        const seen = out.find((l) => l.lookup === f.lookup);
        if (seen) seen.followers.push(f.id);
        else out.push({ lookup: f.lookup, followers: [f.id] });
    }
    return out;
}

/**
 * The annotations and labels an IrisCluster entry's template carries for the followers found by
 * one (an annotation or label lookup naming its object for the entry); empty objects when none.
 */
export function followerMetadata(ic: IrisClusterConfig, followers = registry()): { annotations: Record<string, string>; labels: Record<string, string> } {
    const annotations: Record<string, string> = {};
    const labels: Record<string, string> = {};
    for (const { lookup } of dependencyLookups(followers)) {
        if ("spec" in lookup) continue;
        const name = lookup.nameFor(ic);
        if (name === undefined) continue;
        if ("annotation" in lookup) annotations[lookup.annotation] = name;
        else labels[lookup.label] = name;
    }
    return { annotations, labels };
}

/**
 * The entry as a mirror's DR member gets it: the `irisClusterFields` of the followers it does not
 * get (`drMembers: dropped`) taken off.
 */
export function forDrMember<T extends IrisClusterConfig>(entry: T, followers = registry()): T {
    const dropped = followers.flatMap((f) => (f.drMembers === "dropped" ? Object.keys(f.irisClusterFields ?? {}) : []));
    if (dropped.length === 0) return entry;
    const kept: Record<string, unknown> = { ...entry };
    for (const field of dropped) delete kept[field];
    return kept as T;
}
