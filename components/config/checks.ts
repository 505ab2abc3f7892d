// The cross-key checks: each a pure function of the parsed config returning Problems, composed in
// CROSS_CHECKS in the order their problems are listed.
import { CONFIG_NAMESPACE, MAX_CLUSTER_NAME_LENGTH } from "./defaults";
import { memberNames, useMembers } from "./placement";
import { ConfigPath, hasOwn, Problem } from "./problems";
import { KEY_SCHEMAS, PlacementConfig } from "./schema";
import type { CheckContext, CheckedConfig, ConfigCheck } from "./context";
import { checkDependencyReferences } from "./dependencies";
import { checkFailoverPlacements } from "./failover";
import { checkFollowerObjectsInManifests, followerChecks, followerPlacements } from "./followers/derived";
import { secretSourceKeys } from "./secrets";
import { checkKarmadaEtcd, checkKarmadaHost } from "./karmada-host";
import { checkEtcdBackup, checkEtcdZones } from "./karmada-etcd";
import { checkSyncModes } from "./sync-mode";
import { checkMirrors } from "./mirror";

export type { CheckContext, CheckedConfig, ConfigCheck, ConfigEnvironment } from "./context";

/** Cluster names must be unique: they name kind clusters, Karmada `Cluster`s and placements. */
export function checkNamesUnique(cfg: CheckedConfig): Problem[] {
    const first = new Map<string, number>();
    const problems: Problem[] = [];
    cfg.clusters.forEach((c, i) => {
        const earlier = first.get(c.name);
        if (earlier === undefined) first.set(c.name, i);
        else
            problems.push({
                path: ["clusters", i, "name"],
                reason: `duplicate cluster name (also clusters[${earlier}])`,
                fix: "rename one of them; names must be unique",
            });
    });
    return problems;
}

/** Exactly one cluster hosts the Karmada control plane. */
export function checkHostCount(cfg: CheckedConfig): Problem[] {
    const hosts = cfg.clusters.filter((c) => c.karmadaHost);
    if (hosts.length === 0) {
        return [{ path: ["clusters"], reason: "no cluster has 'karmadaHost: true'", fix: "mark exactly one cluster as the Karmada host" }];
    }
    if (hosts.length > 1) {
        return [
            {
                path: ["clusters"],
                reason: `${hosts.length} clusters have 'karmadaHost: true' (${hosts.map((c) => c.name).join(", ")})`,
                fix: "keep it on exactly one cluster; the others join as members",
            },
        ];
    }
    return [];
}

/** Federation needs somewhere to propagate to. */
export function checkHasMember(cfg: CheckedConfig): Problem[] {
    return cfg.clusters.length < 2
        ? [{ path: ["clusters"], reason: "a fleet needs the Karmada host and at least one member cluster", fix: "add a member cluster" }]
        : [];
}

/** kind prefixes names with kindNamePrefix; the result is the Karmada `Cluster` name's source too. */
export function checkKindNameLength(cfg: CheckedConfig): Problem[] {
    return cfg.clusters.flatMap((c, i) => {
        const full = `${cfg.kindNamePrefix ?? ""}${c.name}`;
        return c.provider === "kind" && full.length > MAX_CLUSTER_NAME_LENGTH
            ? [
                  {
                      path: ["clusters", i, "name"],
                      reason: `with kindNamePrefix the kind cluster name '${full}' is longer than ${MAX_CLUSTER_NAME_LENGTH} characters`,
                      fix: "shorten the name or kindNamePrefix",
                  },
              ]
            : [];
    });
}

/** GKE's own rules for names and locations, which the shared cluster schema cannot express. */
export function checkGkeClusters(cfg: CheckedConfig): Problem[] {
    const problems: Problem[] = [];
    cfg.clusters.forEach((c, i) => {
        if (c.provider !== "gke") return;
        const at = (field: string): ConfigPath => ["clusters", i, field];
        if (c.name.length > 40 || !/^[a-z]/.test(c.name)) {
            problems.push({ path: at("name"), reason: "GKE cluster names start with a letter and have at most 40 characters", fix: "rename it" });
        }
        if (!c.project) {
            problems.push({
                path: at("project"),
                reason: `a gke cluster needs the GCP project to create '${c.name}' in`,
                fix: `pulumi config set --path '${CONFIG_NAMESPACE}:clusters[${i}].project' <project-id>`,
            });
        }
        if (c.region === undefined && c.zone === undefined) {
            problems.push({
                path: at("region"),
                reason: "a gke cluster needs a location",
                fix: "set 'region' (us-central1, regional) or 'zone' (us-central1-a, zonal)",
            });
        } else if (c.region !== undefined && c.zone !== undefined) {
            problems.push({
                path: at("zone"),
                reason: "'region' is set too",
                fix: "set either 'region' (a regional cluster) or 'zone' (a zonal cluster), not both",
            });
        } else if (c.region !== undefined && !/^[a-z]+-[a-z]+\d+$/.test(c.region)) {
            problems.push({
                path: at("region"),
                reason: "is not a GCP region such as us-central1",
                fix: "use a region that 'gcloud compute regions list' shows",
            });
        }
        if (c.zones !== undefined) {
            problems.push({ path: at("zones"), reason: "not used for gke clusters; the Karmada zone comes from 'zone'", fix: "remove 'zones'" });
        }
        const region = c.region ?? c.zone?.replace(/-[a-z]$/, "");
        (c.nodeLocations ?? []).forEach((z, j) => {
            if (region !== undefined && z.replace(/-[a-z]$/, "") !== region) {
                problems.push({
                    path: ["clusters", i, "nodeLocations", j],
                    reason: `is not a zone of the cluster's region ${region}`,
                    fix: `list zones of ${region}, e.g. ${region}-b`,
                });
            }
        });
        // The control plane is on the Internet: who may reach it is the stack's to say, as for Karmada's API.
        if (!c.authorizedNetworks || c.authorizedNetworks.length === 0) {
            problems.push({
                path: at("authorizedNetworks"),
                reason: `nothing limits who may reach the control plane of '${c.name}' (GKE's master authorized networks)`,
                fix: `pulumi config set --path '${CONFIG_NAMESPACE}:clusters[${i}].authorizedNetworks[0]' <CIDR>: this machine or CI${c.karmadaHost ? "" : ", and the Karmada host's egress when the member joins by Push"}`,
            });
        }
    });
    return problems;
}

/** Files the program reads must exist: a missing one would otherwise fail mid-`up`. */
export function checkFilesExist(cfg: CheckedConfig, { env }: CheckContext): Problem[] {
    const exists = env.pathExists;
    if (!exists) return [];
    const problems: Problem[] = [];
    cfg.clusters.forEach((c, i) => {
        if (c.provider === "existing" && !exists(c.kubeconfigPath)) {
            problems.push({ path: ["clusters", i, "kubeconfigPath"], reason: "file does not exist", fix: "give the path of the cluster's kubeconfig file" });
        }
    });
    if (cfg.iko && !exists(`${cfg.iko.chartPath}/Chart.yaml`)) {
        problems.push({
            path: ["iko", "chartPath"],
            reason: "no Helm chart there (no Chart.yaml). IKO is not on a public Helm repo",
            fix:
                "download the IKO tarball from InterSystems (WRC or the InterSystems Container Registry), unpack it and set " +
                `'pulumi config set --path ${CONFIG_NAMESPACE}:iko.chartPath <dir>/chart/iris-operator'`,
        });
    }
    if (cfg.karmada?.existingKubeconfigPath && !exists(cfg.karmada.existingKubeconfigPath)) {
        problems.push({
            path: ["karmada", "existingKubeconfigPath"],
            reason: "file does not exist",
            fix: "give the path of the Karmada API's kubeconfig file",
        });
    }
    return problems;
}

/** IrisClusters are unique per namespace, and each override says which members it is for. */
export function checkIrisClusters(cfg: CheckedConfig): Problem[] {
    const problems: Problem[] = [];
    const members = memberNames(cfg);
    const first = new Map<string, number>();
    (cfg.irisClusters ?? []).forEach((ic, i) => {
        const id = `${ic.namespace}/${ic.name}`;
        const earlier = first.get(id);
        if (earlier === undefined) first.set(id, i);
        else
            problems.push({
                path: ["irisClusters", i, "name"],
                reason: `duplicate IrisCluster '${id}' (also irisClusters[${earlier}])`,
                fix: "rename one or put it in another namespace",
            });
        ic.overrides.forEach((o, j) => {
            if (!o.clusterNames && !o.clusterProviders) {
                problems.push({
                    path: ["irisClusters", i, "overrides", j],
                    reason: "the override names no clusters",
                    fix: "set clusterNames or clusterProviders to say which members the override is for",
                });
            }
            (o.clusterNames ?? []).forEach((n, m) => {
                if (!members.has(n)) {
                    problems.push({
                        path: ["irisClusters", i, "overrides", j, "clusterNames", m],
                        reason: "is not a member cluster of this fleet",
                        fix: useMembers(members),
                    });
                }
            });
        });
    });
    return problems;
}

/** Placements of IrisClusters and of the followers' entries (Secrets, ConfigMaps, manifests) name member clusters of this fleet. */
export function checkPlacements(cfg: CheckedConfig): Problem[] {
    const names = new Set(cfg.clusters.map((c) => c.name));
    const members = memberNames(cfg);
    const check = (at: ConfigPath, p: PlacementConfig | undefined): Problem[] =>
        (["clusterNames", "excludeClusters"] as const).flatMap((field) =>
            (p?.[field] ?? []).flatMap((n, j): Problem[] => {
                const path = [...at, field, j];
                if (!names.has(n)) return [{ path, reason: `is not a cluster of this fleet (known: ${[...names].join(", ")})`, fix: useMembers(members) }];
                if (!members.has(n))
                    return [{ path, reason: "hosts Karmada and is not a member; workloads can only be placed on members", fix: useMembers(members) }];
                return [];
            }),
        );
    return [
        ...(cfg.irisClusters ?? []).flatMap((ic, i) => check(["irisClusters", i, "placement"], ic.placement)),
        ...followerPlacements(cfg).flatMap((p) => check(p.path, p.placement)),
    ];
}

/** Any other key in the namespace is a typo or a leftover: neither a known key nor a secret source. */
export function checkUnknownKeys(cfg: CheckedConfig, { input }: CheckContext): Problem[] {
    const sources = new Set(secretSourceKeys(cfg));
    return Object.keys(input)
        .filter((short) => !hasOwn(KEY_SCHEMAS, short) && !sources.has(short))
        .map((short) => {
            const hint = closestKey(short);
            return {
                path: [short],
                reason: `unknown config key${hint ? ` (did you mean ${CONFIG_NAMESPACE}:${hint}?)` : ""}`,
                fix: `remove it with 'pulumi config rm ${CONFIG_NAMESPACE}:${short}'`,
            };
        });
}

/** The checks run once the cluster list parses, in the order their problems are listed. */
export const CROSS_CHECKS: ConfigCheck[] = [
    checkNamesUnique,
    checkHostCount,
    checkKarmadaHost,
    checkKarmadaEtcd,
    checkEtcdZones,
    checkEtcdBackup,
    checkHasMember,
    checkKindNameLength,
    checkGkeClusters,
    checkSyncModes,
    checkFilesExist,
    checkIrisClusters,
    checkPlacements,
    checkFailoverPlacements,
    checkMirrors,
    // Each follower's own checks, in registry order (config/followers), then what spans them.
    ...followerChecks(),
    checkDependencyReferences,
    checkFollowerObjectsInManifests,
    checkUnknownKeys,
];

function closestKey(name: string): string | undefined {
    const lower = name.toLowerCase();
    return Object.keys(KEY_SCHEMAS).find((k) => k.toLowerCase() === lower || levenshtein(k.toLowerCase(), lower) <= 2);
}

function levenshtein(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
}
