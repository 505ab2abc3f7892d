// Checks of Kamino's etcd under a Karmada it installs off kind: one member per zone needs as many
// zones as members on the host, and backups go to a bucket Kamino can make only on a gke host.
// A kind host runs the chart's single etcd (none of this applies); an existing host's zones are
// not known before its nodes are, so there `zoneSpread: required` is the user's promise
// (docs/production.md).
import { CONFIG_NAMESPACE } from "./defaults";
import type { CheckedConfig } from "./context";
import { ConfigPath, Problem } from "./problems";
import type { GkeClusterConfig } from "./schema";

/** Members when the stack names none (KarmadaEtcd's default). */
const DEFAULT_MEMBERS = 3;
/** GKE puts a regional cluster's nodes in three of its region's zones unless told which. */
export const GKE_DEFAULT_REGIONAL_ZONES = 3;

/** How many zones a gke cluster's nodes are in, and the key that decides it. */
export function gkeNodeZones(c: Pick<GkeClusterConfig, "region" | "zone" | "nodeLocations">): { count: number; key: "nodeLocations" | "zone" | "region" } {
    if (c.nodeLocations) return { count: new Set([...(c.zone ? [c.zone] : []), ...c.nodeLocations]).size, key: "nodeLocations" };
    return c.zone ? { count: 1, key: "zone" } : { count: GKE_DEFAULT_REGIONAL_ZONES, key: "region" };
}

/** A gke host with fewer node zones than etcd members, while each member must have a zone of its own. */
export function checkEtcdZones(cfg: CheckedConfig): Problem[] {
    const i = cfg.clusters.findIndex((c) => c.karmadaHost);
    const host = cfg.clusters[i];
    const etcd = cfg.karmada?.etcd;
    if (host?.provider !== "gke" || cfg.karmada?.existingKubeconfigPath !== undefined || etcd?.zoneSpread === "preferred") return [];
    const members = etcd?.members ?? DEFAULT_MEMBERS;
    const zones = gkeNodeZones(host);
    if (zones.count >= members) return [];
    const region = host.region ?? host.zone?.replace(/-[a-z]$/, "");
    const path: ConfigPath = zones.key === "region" ? ["karmada", "etcd", "members"] : ["clusters", i, zones.key];
    return [
        {
            path,
            reason: `the Karmada host '${host.name}' has nodes in ${zones.count} zone${zones.count === 1 ? "" : "s"} and Kamino's etcd has ${members} members, one per zone (${CONFIG_NAMESPACE}:karmada.etcd.zoneSpread: required), so ${members - zones.count} would never be scheduled`,
            fix:
                (zones.key === "zone"
                    ? `make the host regional (region: ${region} instead of zone), `
                    : `list ${members} zones of ${region} in the host's nodeLocations if the region has them, or use 3 members, `) +
                `or set ${CONFIG_NAMESPACE}:karmada.etcd.zoneSpread: preferred to accept that one zone's outage can stop Karmada`,
        },
    ];
}

/** Backups need a bucket Kamino makes on GCP: only under a Karmada it installs on a gke host. */
export function checkEtcdBackup(cfg: CheckedConfig): Problem[] {
    const host = cfg.clusters.find((c) => c.karmadaHost);
    const backup = cfg.karmada?.etcd?.backup;
    if (!host || !backup?.enabled || host.provider !== "existing") return [];
    return [
        {
            path: ["karmada", "etcd", "backup"],
            reason: `Kamino makes the backup bucket on GCP, for a gke host; '${host.name}' is an existing cluster`,
            fix: "remove backup (or set backup.enabled: false) and take snapshots as docs/production.md shows, to a store of yours",
        },
    ];
}
