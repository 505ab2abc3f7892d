// Which member clusters a placement selects, and the member-cluster helpers the checks share.
import { ClusterConfig, FleetConfig, PlacementConfig } from "./schema";

/**
 * The member clusters a placement selects, in fleet order. No placement (or an empty one) means
 * every member; label selection matches the `labels` given to clusters in config.
 */
export function resolvePlacement(clusters: ClusterConfig[], placement: PlacementConfig | undefined): string[] {
    const exclude = new Set(placement?.excludeClusters ?? []);
    return clusters
        .filter((c) => !c.karmadaHost)
        .filter((c) => !placement?.clusterNames || placement.clusterNames.includes(c.name))
        .filter((c) => Object.entries(placement?.clusterLabels ?? {}).every(([key, value]) => c.labels[key] === value))
        .filter((c) => !exclude.has(c.name))
        .map((c) => c.name);
}

/** The names of the clusters that are Karmada members (every cluster but the host). */
export const memberNames = (cfg: Pick<FleetConfig, "clusters">) => new Set(cfg.clusters.filter((c) => !c.karmadaHost).map((c) => c.name));
/** The fix for a placement that names something other than a member. */
export const useMembers = (members: Set<string>) => (members.size > 0 ? `use a member cluster: ${[...members].join(", ")}` : "add a member cluster first");
