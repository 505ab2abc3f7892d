// Checks of IRIS mirrors (`kamino:irisClusters[].mirror`): members of this fleet, one role each, a
// mirror's size within IRIS's limit, nothing that would let Karmada move a member's data away, and
// a network the members can reach each other over (ClusterMesh between kind members, internal load
// balancers in one VPC between gke members).
import type { CheckedConfig } from "./context";
import { memberNames, useMembers } from "./placement";
import { ConfigPath, lookup, Problem } from "./problems";
import { ClusterConfig, IrisClusterConfig } from "./schema";
import type { CheckContext } from "./context";

/** IRIS allows 16 mirror members: the failover pair and up to 14 async members. */
export const MAX_ASYNC_MEMBERS = 14;
/** Cilium's `cluster.name` limit; a kind mirror member's kind name is its ClusterMesh name. */
export const MAX_MESH_CLUSTER_NAME = 32;
/**
 * A DR IrisCluster is named `<name>-<member>`; IKO's StatefulSet adds `-data` and Kubernetes a
 * revision hash (`-` and 10 characters) in a 63-character label value.
 */
export const MAX_DR_IRIS_NAME = 47;

/** The DR IrisCluster of a mirror on one member: its own name, so StatefulSets and Services do not collide. */
export const drIrisClusterName = (irisName: string, member: string) => `${irisName}-${member}`;

/** How mirror members reach each other: addresses the stack gives, else by the providers of its members; a problem's reason when they cannot. */
export function mirrorNetwork(members: ClusterConfig[], addresses?: Record<string, string>): "addresses" | "cluster-mesh" | "gke-internal" | string {
    if (addresses) return "addresses";
    const providers = new Set(members.map((m) => m.provider));
    if (providers.size === 1 && providers.has("kind")) return "cluster-mesh";
    if (providers.size === 1 && providers.has("gke")) {
        const gke = members as Extract<ClusterConfig, { provider: "gke" }>[];
        const networks = new Set(gke.map((g) => `${g.project}/${g.network ?? "default"}`));
        return networks.size === 1
            ? "gke-internal"
            : `its gke members are in different VPC networks (${[...networks].join(", ")}), and internal load balancers reach only within one`;
    }
    if (providers.has("existing")) return "Kamino cannot tell how existing clusters reach each other";
    return `its members are ${[...providers].join(" and ")} clusters, which have no network in common`;
}

/** Every mirror's members, roles and network. */
export function checkMirrors(cfg: CheckedConfig, { input }: CheckContext): Problem[] {
    const problems: Problem[] = [];
    const members = memberNames(cfg);
    const byName = new Map(cfg.clusters.map((c) => [c.name, c]));
    const names = new Set((cfg.irisClusters ?? []).map((ic) => `${ic.namespace}/${ic.name}`));
    (cfg.irisClusters ?? []).forEach((ic, i) => {
        if (!ic.mirror) return;
        const at: ConfigPath = ["irisClusters", i, "mirror"];
        const m = ic.mirror;
        const member = (path: ConfigPath, name: string) =>
            members.has(name)
                ? []
                : [
                      {
                          path,
                          reason: byName.has(name) ? "is the Karmada host, which runs no IrisCluster" : "is not a cluster of this fleet",
                          fix: useMembers(members),
                      },
                  ];
        problems.push(...member([...at, "primary"], m.primary));
        m.drAsync.forEach((d, j) => {
            problems.push(...member([...at, "drAsync", j], d));
            if (d === m.primary)
                problems.push({
                    path: [...at, "drAsync", j],
                    reason: `is the primary too; a member runs one role of a mirror`,
                    fix: "list other members under drAsync",
                });
            if (m.drAsync.indexOf(d) < j) problems.push({ path: [...at, "drAsync", j], reason: `names '${d}' twice`, fix: "list each member once" });
            const drName = drIrisClusterName(ic.name, d);
            if (drName.length > MAX_DR_IRIS_NAME)
                problems.push({
                    path: [...at, "drAsync", j],
                    reason: `gives the DR IrisCluster '${drName}', longer than ${MAX_DR_IRIS_NAME} characters (IKO's StatefulSet names must fit a label)`,
                    fix: "shorten the IrisCluster's name or the member's",
                });
            else if (names.has(`${ic.namespace}/${drName}`))
                problems.push({
                    path: [...at, "drAsync", j],
                    reason: `gives the DR IrisCluster '${ic.namespace}/${drName}', which kamino:irisClusters declares already`,
                    fix: "rename that IrisCluster",
                });
        });
        if (m.drAsync.length > MAX_ASYNC_MEMBERS)
            problems.push({
                path: [...at, "drAsync"],
                reason: `names ${m.drAsync.length} members; an IRIS mirror has at most ${MAX_ASYNC_MEMBERS} async members beside its failover pair`,
                fix: `keep ${MAX_ASYNC_MEMBERS} or fewer, or split them over two IrisClusters`,
            });
        problems.push(...placementProblems(ic, i, input));
        problems.push(...roleProblems(m, at));
        const declared = [m.primary, ...m.drAsync].flatMap((n) => (members.has(n) ? [byName.get(n)!] : []));
        const network = mirrorNetwork(declared, m.addresses);
        if (declared.length === m.drAsync.length + 1 && !["addresses", "cluster-mesh", "gke-internal"].includes(network))
            problems.push({
                path: at,
                reason: `has no way for its members to reach each other: ${network}`,
                fix:
                    "mirror kind members with kind members (Kamino meshes them with Cilium ClusterMesh) or gke members with gke members in one VPC network (internal load balancers), " +
                    "or give mirror.addresses: for each member, the address the others reach its IRIS at",
            });
        problems.push(...addressProblems(m, at));
        if (network === "cluster-mesh")
            declared.forEach((c) => {
                const kindName = `${cfg.kindNamePrefix ?? ""}${c.name}`;
                if (kindName.length > MAX_MESH_CLUSTER_NAME)
                    problems.push({
                        path: ["clusters", cfg.clusters.indexOf(c), "name"],
                        reason: `gives the kind cluster '${kindName}', longer than the ${MAX_MESH_CLUSTER_NAME} characters Cilium ClusterMesh allows a cluster's name`,
                        fix: "shorten the cluster's name or kamino:kindNamePrefix",
                    });
            });
    });
    return problems;
}

/** A mirror decides where its IrisClusters run: no placement, and never Karmada's failover, which would move a member without its data. */
function placementProblems(ic: IrisClusterConfig, i: number, input: Record<string, unknown>): Problem[] {
    if (ic.placement.mode === "failover")
        return [
            {
                path: ["irisClusters", i, "placement", "mode"],
                reason: "is failover, and the IrisCluster has a mirror: Karmada would start the pair empty on another member, beside the DR copy",
                fix: "remove placement (the mirror pins each member), and promote a DR member with `npm run promote` when the primary's site is lost",
            },
        ];
    if (lookup(input, ["irisClusters", i, "placement"]).found)
        return [
            {
                path: ["irisClusters", i, "placement"],
                reason: "is set, and the IrisCluster has a mirror, which places it (the pair on mirror.primary, a DR copy on each mirror.drAsync)",
                fix: "remove placement",
            },
        ];
    return [];
}

/** Given addresses name each member of the mirror, and only those. */
function addressProblems(m: NonNullable<IrisClusterConfig["mirror"]>, at: ConfigPath): Problem[] {
    if (!m.addresses) return [];
    const mirrorMembers = [m.primary, ...m.drAsync];
    return [
        ...Object.keys(m.addresses)
            .filter((k) => !mirrorMembers.includes(k))
            .map((k) => ({
                path: [...at, "addresses", k],
                reason: "is not a member of this mirror",
                fix: `give addresses for ${mirrorMembers.join(", ")} only`,
            })),
        ...mirrorMembers
            .filter((n) => m.addresses![n] === undefined)
            .map((n) => ({
                path: [...at, "addresses"],
                reason: `gives no address for '${n}'`,
                fix: `add ${n}: <the address the other members reach its IRIS at>`,
            })),
    ];
}

/** `promoted` names one of the DR members; `rejoin` follows a promotion. */
function roleProblems(m: NonNullable<IrisClusterConfig["mirror"]>, at: ConfigPath): Problem[] {
    const problems: Problem[] = [];
    if (m.promoted !== undefined && !m.drAsync.includes(m.promoted))
        problems.push({
            path: [...at, "promoted"],
            reason: "is not one of mirror.drAsync; only a DR async member is promoted",
            fix: `set it to one of ${m.drAsync.join(", ")}, or remove it (npm run promote sets it)`,
        });
    if (m.rejoin && m.promoted === undefined)
        problems.push({
            path: [...at, "rejoin"],
            reason: "is true without mirror.promoted: the pair rejoins a promoted DR member, and none is",
            fix: "remove it (npm run failback sets it)",
        });
    return problems;
}
