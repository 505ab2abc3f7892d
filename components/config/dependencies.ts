// What an IrisCluster depends on, as config names it (the ConfigMap and Secrets Karmada makes follow
// the IrisCluster: followers/iko-references.ts), where such an entry goes, and the check on those
// references. The followers' own checks are in their modules (config/followers).
import { CONFIG_NAMESPACE } from "./defaults";
import { resolvePlacement } from "./placement";
import { ConfigPath, Problem } from "./problems";
import { FleetConfig, IrisClusterConfig, MirrorConfig, PlacementConfig } from "./schema";
import type { CheckedConfig } from "./context";

/** One object an IrisCluster entry names, and the field (under the entry) that names it. */
export interface DependencyRef {
    kind: "ConfigMap" | "Secret";
    namespace: string;
    name: string;
    field: ConfigPath;
}

/** The ConfigMap and Secrets an IrisCluster entry names by its typed fields, in the order Karmada lists them. */
export function irisDependencies(ic: IrisClusterConfig): DependencyRef[] {
    const refs: DependencyRef[] = [];
    const add = (kind: DependencyRef["kind"], name: string, field: ConfigPath) => refs.push({ kind, namespace: ic.namespace, name, field });
    if (ic.configSource) add("ConfigMap", ic.configSource, ["configSource"]);
    if (ic.licenseKeySecret) add("Secret", ic.licenseKeySecret, ["licenseKeySecret"]);
    (ic.imagePullSecrets ?? []).forEach((n, j) => add("Secret", n, ["imagePullSecrets", j]));
    if (ic.tlsSecret) add("Secret", ic.tlsSecret, ["tlsSecret"]);
    return refs;
}

/** `Kind namespace/name` of an object, the key of `namedBy`. */
export const dependencyKey = (kind: DependencyRef["kind"], namespace: string, name: string) => `${kind} ${namespace}/${name}`;

/**
 * For every ConfigMap and Secret some IrisCluster names, the IrisCluster entries naming it (by
 * index), keyed by `dependencyKey`.
 */
export function namedBy(irisClusters: IrisClusterConfig[]): Map<string, number[]> {
    const out = new Map<string, number[]>();
    irisClusters.forEach((ic, i) => {
        for (const r of irisDependencies(ic)) {
            const key = dependencyKey(r.kind, r.namespace, r.name);
            const list = out.get(key) ?? [];
            if (!list.includes(i)) list.push(i);
            out.set(key, list);
        }
    });
    return out;
}

/** A Secret or ConfigMap entry gets a PropagationPolicy of its own unless it only follows the IrisClusters that name it. */
export function hasOwnPlacement(entry: { placement?: unknown }, followed: boolean): boolean {
    return entry.placement !== undefined || !followed;
}

/** The members an IrisCluster entry may run on: its failover list, or every member its placement selects. */
export const irisTargets = (cfg: Pick<FleetConfig, "clusters">, ic: IrisClusterConfig): string[] =>
    ic.mirror ? mirrorTargets(ic.mirror) : ic.placement.mode === "failover" ? (ic.placement.clusterNames ?? []) : resolvePlacement(cfg.clusters, ic.placement);

/** The members a mirror's IrisClusters run on now: the pair's (unless fenced by a promotion and not rejoining), then each DR member's. */
export const mirrorTargets = (m: MirrorConfig): string[] => [...(pairDeclared(m) ? [m.primary] : []), ...m.drAsync];

/** Kamino declares the failover pair unless a promotion fenced it and failback has not brought it back. */
export const pairDeclared = (m: MirrorConfig): boolean => m.promoted === undefined || m.rejoin;

/**
 * Where a Secret or ConfigMap entry goes: whether it has a policy of its own, and the members it
 * may reach, in fleet order: its placement's (when it has one), and those of every IrisCluster naming it.
 */
export function dependencyPlacement(
    cfg: Pick<FleetConfig, "clusters" | "irisClusters">,
    kind: DependencyRef["kind"],
    entry: { name: string; namespace: string; placement?: PlacementConfig },
): { ownPlacement: boolean; targetClusters: string[] } {
    const naming = namedBy(cfg.irisClusters).get(dependencyKey(kind, entry.namespace, entry.name)) ?? [];
    const ownPlacement = hasOwnPlacement(entry, naming.length > 0);
    const reach = new Set([
        ...(ownPlacement ? resolvePlacement(cfg.clusters, entry.placement) : []),
        ...naming.flatMap((i) => irisTargets(cfg, cfg.irisClusters[i])),
    ]);
    return { ownPlacement, targetClusters: cfg.clusters.map((c) => c.name).filter((n) => reach.has(n)) };
}

/**
 * The ConfigMap and Secrets an IrisCluster names must be Kamino's (`kamino:configMaps`,
 * `kamino:secrets`), in its namespace: Karmada makes only objects of its own API follow an
 * IrisCluster, and silently skips a name it does not hold. Where they go needs no check: they go
 * wherever the IrisCluster goes, the backups of a failover placement included (`propagateDeps`).
 */
export function checkDependencyReferences(cfg: CheckedConfig): Problem[] {
    const held = new Set([
        ...(cfg.secrets ?? []).map((s) => dependencyKey("Secret", s.namespace, s.name)),
        ...(cfg.configMaps ?? []).map((c) => dependencyKey("ConfigMap", c.namespace, c.name)),
    ]);
    return (cfg.irisClusters ?? []).flatMap((ic, i) =>
        irisDependencies(ic)
            .filter((r) => !held.has(dependencyKey(r.kind, r.namespace, r.name)))
            .map((r) => {
                const list = r.kind === "Secret" ? "secrets" : "configMaps";
                return {
                    path: ["irisClusters", i, ...r.field],
                    reason: `${r.kind} '${r.namespace}/${r.name}' is not in ${CONFIG_NAMESPACE}:${list}`,
                    fix: `add it there (namespace ${r.namespace}) so Karmada can send it with the IrisCluster`,
                };
            }),
    );
}
