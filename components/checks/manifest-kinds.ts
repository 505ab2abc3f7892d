// Whether the Karmada API serves the kind of every `kamino:manifests` object, asked on `up` before
// any resource exists: a kind it does not serve would otherwise fail mid-`up` with the provider's
// "no matches for kind", naming no file. Karmada's API is the one asked; a member that lacks a kind
// Karmada has is reported by Karmada itself, in the object's ResourceBinding and Work (the apply
// fails there), which docs/configuration.md tells the user to read.
import { CONFIG_NAMESPACE, FleetPlan, manifestObjectId, ManifestConfig, ManifestObject } from "../config";
import { ApiResource, apiResources } from "../live/kube-read";

/** The kinds the Karmada API serves in one group version (undefined: not served at all); injected so tests can answer. */
export type DiscoveryLookup = (apiVersion: string) => Promise<ApiResource[] | undefined>;

/** Thrown when manifests hold objects the Karmada API cannot take; one line per object. */
export class ManifestKindError extends Error {
    constructor(public readonly problems: string[]) {
        super(
            `Some ${CONFIG_NAMESPACE}:manifests objects are of kinds the Karmada API does not serve as Kamino expects; nothing was created:\n` +
                problems.map((p) => `  - ${p}`).join("\n") +
                "\nSee docs/configuration.md, kamino:manifests.",
        );
        this.name = "ManifestKindError";
    }
}

const isCrd = (o: ManifestObject) => o.group === "apiextensions.k8s.io" && o.kind === "CustomResourceDefinition";

/** `group/Kind` of each kind the CRDs among the manifests define: created in the same run, so not asked for. */
function kindsDefinedByManifests(manifests: ManifestConfig[]): Set<string> {
    const out = new Set<string>();
    for (const o of manifests.flatMap((m) => m.objects).filter(isCrd)) {
        const spec = o.body.spec as { group?: string; names?: { kind?: string } } | undefined;
        if (spec?.group && spec.names?.kind) out.add(`${spec.group}/${spec.names.kind}`);
    }
    return out;
}

/**
 * One line per object whose kind the Karmada API does not serve, or serves with another scope or
 * resource name than Kamino took it to have (for RBAC and the policy), naming the entry, the file,
 * the document, the kind and the fix. Each group version is asked once.
 */
export async function manifestKindProblems(manifests: ManifestConfig[], discover: DiscoveryLookup): Promise<string[]> {
    const served = new Map<string, Promise<ApiResource[] | undefined>>();
    const lookup = (apiVersion: string) => {
        if (!served.has(apiVersion)) served.set(apiVersion, discover(apiVersion));
        return served.get(apiVersion)!;
    };
    const defined = kindsDefinedByManifests(manifests);
    const problems: string[] = [];
    for (const [i, m] of manifests.entries()) {
        for (const o of m.objects) {
            if (defined.has(`${o.group}/${o.kind}`)) continue;
            const where = `${CONFIG_NAMESPACE}:manifests[${i}].path (${m.path}) document ${o.document}, ${manifestObjectId(o)}`;
            const resources = await lookup(o.apiVersion);
            const found = resources?.find((r) => r.kind === o.kind);
            if (!found) {
                problems.push(
                    `${where}: the Karmada API does not serve kind ${o.kind} in ${o.apiVersion}${resources === undefined ? ` (no ${o.apiVersion} at all)` : ""}. ` +
                        `Fix: install its CustomResourceDefinition in Karmada and on the members (a CRD in a ${CONFIG_NAMESPACE}:manifests file does both), or correct apiVersion and kind`,
                );
                continue;
            }
            const namespaced = o.namespace !== undefined;
            if (found.namespaced !== namespaced || found.name !== o.resource) {
                problems.push(
                    `${where}: Kamino took ${o.kind} for a ${namespaced ? "namespaced" : "cluster-scoped"} kind with resource '${o.resource}', ` +
                        `but the Karmada API serves it ${found.namespaced ? "namespaced" : "cluster-scoped"} as '${found.name}'. ` +
                        `Fix: put its CustomResourceDefinition in a ${CONFIG_NAMESPACE}:manifests file too, so Kamino reads its scope and resource from it`,
                );
            }
        }
    }
    return problems;
}

/** The live lookup: discovery on the Karmada API through its kubeconfig. */
export const liveDiscovery =
    (karmadaKubeconfig: string): DiscoveryLookup =>
    (apiVersion) =>
        apiResources(karmadaKubeconfig, apiVersion);

/**
 * True when the check can run before any resource: there are manifests, and the Karmada API already
 * runs (an existing control plane). A Karmada Kamino installs serves only Kubernetes' own kinds,
 * Karmada's and IrisCluster until a manifest's CRD adds more; there the provider reports a missing
 * kind when it creates the object.
 */
export const needsManifestKindCheck = (plan: FleetPlan) => plan.manifests.length > 0 && plan.karmada.source === "existing";
