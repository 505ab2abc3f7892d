// Checks of failover placement (`placement.mode: failover`): an ordered list of at least two members,
// nothing that would make the order ambiguous, and the failover knob only where it has an effect.
// What an IrisCluster names follows it down the list (propagateDeps): checkDependencyReferences (dependencies.ts).
import type { CheckContext, CheckedConfig } from "./context";
import { ConfigPath, lookup, Problem } from "./problems";
import { IrisClusterConfig, IrisPlacementConfig } from "./schema";

/** The IrisClusters placed in failover mode. */
export const failoverIrisClusters = (cfg: Pick<CheckedConfig, "irisClusters">): IrisClusterConfig[] =>
    (cfg.irisClusters ?? []).filter((ic) => ic.placement.mode === "failover");

/**
 * The members that some failover placement names (an IrisCluster's, or a manifest's), in
 * first-seen order: the members Karmada taints and fails over from.
 */
export const failoverMembers = (cfg: Pick<CheckedConfig, "irisClusters" | "manifests">): string[] => [
    ...new Set([
        ...failoverIrisClusters(cfg).flatMap((ic) => ic.placement.clusterNames ?? []),
        ...(cfg.manifests ?? []).filter((m) => m.placement.mode === "failover").flatMap((m) => m.placement.clusterNames ?? []),
    ]),
];

/** Failover moves down `clusterNames`, so that list must exist, be ordered and name two members or more. */
export function checkFailoverPlacements(cfg: CheckedConfig, { input }: CheckContext): Problem[] {
    const problems: Problem[] = [];
    (cfg.irisClusters ?? []).forEach((ic, i) => {
        if (ic.placement.mode !== "failover") {
            if (lookup(input, ["irisClusters", i, "failoverAfterSeconds"]).found) {
                problems.push({
                    path: ["irisClusters", i, "failoverAfterSeconds"],
                    reason: "has an effect only with placement.mode failover",
                    fix: "remove it, or set placement.mode to failover",
                });
            }
            return;
        }
        problems.push(...failoverPlacementProblems(["irisClusters", i, "placement"], ic.placement));
    });
    (cfg.manifests ?? []).forEach((m, i) => {
        if (m.placement.mode === "failover") problems.push(...failoverPlacementProblems(["manifests", i, "placement"], m.placement));
    });
    return problems;
}

/** The problems of one failover placement at `at`: an ordered list of two members or more, nothing else. */
function failoverPlacementProblems(at: ConfigPath, placement: IrisPlacementConfig): Problem[] {
    const problems: Problem[] = [];
    const names = placement.clusterNames ?? [];
    if (placement.clusterLabels) {
        problems.push({
            path: [...at, "clusterLabels"],
            reason: "failover moves down an ordered list of members and labels have no order",
            fix: "list the members in placement.clusterNames instead, first choice first",
        });
    }
    if (placement.excludeClusters) {
        problems.push({
            path: [...at, "excludeClusters"],
            reason: "failover places only on the members clusterNames lists",
            fix: "remove it and leave the member out of clusterNames",
        });
    }
    if (names.length < 2) {
        problems.push({
            path: names.length === 0 ? [...at, "mode"] : [...at, "clusterNames"],
            reason: `failover needs at least two members to move between (clusterNames lists ${names.length})`,
            fix: "list the first choice and at least one backup in placement.clusterNames, or use placement.mode all",
        });
    }
    names.forEach((n, j) => {
        if (names.indexOf(n) !== j)
            problems.push({ path: [...at, "clusterNames", j], reason: `'${n}' is listed twice`, fix: "list each member once, in the order to fail over" });
    });
    return problems;
}
