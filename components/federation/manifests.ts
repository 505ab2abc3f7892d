// FederatedManifests: the objects of `kamino:manifests` files (a Service, a NetworkPolicy, ...) created
// in the Karmada API, one propagation policy per file placing them with an IrisCluster's placement
// shape. Removing an entry deletes its objects from Karmada, and Karmada then removes them from
// every member.
import * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";
import * as path from "path";
import { DEFAULTS, ManifestConfig, manifestObjectId, ManifestObject } from "../config";
import { ClusterPropagationPolicy, PropagationPolicy, PropagationSpec, ResourceSelector } from "../crds";
import { failoverPlacement } from "../karmada/failover/failover";
import { everySelectedMember } from "./federated-iris";
import { inheritedDependsOn } from "../common/options";
import { KarmadaContext } from "../common/karmada-context";

/**
 * The Pulumi type of an object: the token its typed class in @pulumi/kubernetes has
 * (`kubernetes:core/v1:Service`, `kubernetes:networking.k8s.io/v1:NetworkPolicy`). The provider
 * takes the group from it, so the core group must be spelled `core`, which
 * k8s.apiextensions.CustomResource (`kubernetes:v1:Service`) does not do.
 */
export const manifestTypeToken = (apiVersion: string, kind: string) => `kubernetes:${apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`}:${kind}`;

/** One object of a manifest, of whatever kind, as the provider applies it. */
export class ManifestObjectResource extends pulumi.CustomResource {
    constructor(name: string, body: { apiVersion: string; kind: string; [field: string]: pulumi.Input<unknown> }, opts?: pulumi.CustomResourceOptions) {
        super(manifestTypeToken(body.apiVersion, body.kind), name, body, opts);
    }
}

/** Label on every object Kamino creates in Karmada from a manifest. */
export const KAMINO_MANIFEST_LABEL = { "kamino.io/manifest": "true" };

/**
 * The Karmada API holds templates: nothing there runs pods or fills endpoints, so the provider's
 * readiness wait (a Service's endpoints, a Deployment's replicas) would hang until it times out.
 * Readiness is on the members; Karmada copies the annotation there, where nothing reads it.
 */
export const SKIP_AWAIT = { "pulumi.com/skipAwait": "true" };

/**
 * The Karmada name of an entry's policy: the file's base name, made a DNS label, and a hash of its
 * whole path, so that two files of the same base name in different folders get different policies.
 */
export function manifestPolicyName(filePath: string): string {
    const base = path
        .basename(filePath)
        .replace(/\.ya?ml$/i, "")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40);
    const hash = createHash("sha256").update(filePath).digest("hex").slice(0, 8);
    return `${base ? `${base}-` : ""}${hash}-manifest`;
}

/**
 * The policy of one entry: its objects by name, placed on every member the placement selects, or,
 * with `mode: failover`, on one member at a time down `clusterNames` as an IrisCluster in failover
 * mode is (cluster failover: Karmada's taint moves them; they have no health of IRIS's to watch).
 */
export function manifestPropagationSpec(m: ManifestConfig, opts: { tolerateFailoverTaint?: boolean } = {}): PropagationSpec {
    const resourceSelectors: ResourceSelector[] = m.objects.map((o) => ({
        apiVersion: o.apiVersion,
        kind: o.kind,
        ...(o.namespace ? { namespace: o.namespace } : {}),
        name: o.name,
    }));
    if (m.placement.mode === "failover") {
        return {
            resourceSelectors,
            placement: failoverPlacement(m.placement.clusterNames ?? [], DEFAULTS.failoverAfterSeconds),
            failover: { cluster: { purgeMode: "Gracefully" } },
        };
    }
    const placement = everySelectedMember(m.placement, opts.tolerateFailoverTaint);
    return { resourceSelectors, ...(placement ? { placement } : {}) };
}

/**
 * The namespace of a PropagationPolicy that can select every object of an entry (they all live in
 * it), or undefined when the entry needs a ClusterPropagationPolicy: a cluster-scoped object, or
 * objects in more than one namespace.
 */
export function policyNamespace(objects: ManifestObject[]): string | undefined {
    const namespaces = new Set(objects.map((o) => o.namespace));
    const [only] = [...namespaces];
    return namespaces.size === 1 && only !== undefined ? only : undefined;
}

/** The Pulumi name of an object: its kind, group, namespace and name, stable when other entries change. */
const objectResourceName = (prefix: string, o: ManifestObject) =>
    [prefix, o.kind.toLowerCase(), ...(o.group ? [o.group] : []), ...(o.namespace ? [o.namespace] : []), o.name].join("-");

/** One manifest file to propagate. */
export interface FederatedManifest {
    /** The validated `kamino:manifests` entry, with the objects of its file. */
    config: ManifestConfig;
    /** Names of the member clusters its placement selects (for outputs); in failover mode, the list in its order. */
    targetClusters: string[];
}

/** Arguments of a FederatedManifests. */
export interface FederatedManifestsArgs {
    /** The manifest files. */
    manifests: FederatedManifest[];
    /** The Karmada API its objects are made in. */
    karmada: KarmadaContext;
    /** Keep placed objects on their members through a failover taint (see FederatedIrisClusterArgs). */
    tolerateFailoverTaint?: boolean;
}

/** The objects of manifest files in the Karmada API, with one propagation policy per file. */
export class FederatedManifests extends pulumi.ComponentResource {
    /** The objects in the Karmada API, keyed by `manifestObjectId` (`Kind[.group] namespace/name`). */
    public readonly objects: Record<string, ManifestObjectResource> = {};
    /** The policy of each file, keyed by its path. */
    public readonly policies: Record<string, PropagationPolicy | ClusterPropagationPolicy> = {};
    /** Where each object goes, keyed by `manifestObjectId`. */
    public readonly targets: Record<string, string[]> = {};

    constructor(name: string, args: FederatedManifestsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:FederatedManifests", name, {}, opts);
        const after = inheritedDependsOn(opts);
        const child = { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: after };
        // A CRD a manifest brings exists before any object of its kind (in whichever file).
        const crds: ManifestObjectResource[] = [];
        const ordered = args.manifests.flatMap((m) => m.config.objects.map((o) => ({ m, o }))).sort((a, b) => Number(isCrd(b.o)) - Number(isCrd(a.o)));
        const policyOf = new Map<FederatedManifest, PropagationPolicy | ClusterPropagationPolicy>();
        for (const m of args.manifests) {
            const c = m.config;
            const spec = manifestPropagationSpec(c, { tolerateFailoverTaint: args.tolerateFailoverTaint });
            const namespace = policyNamespace(c.objects);
            const policyName = manifestPolicyName(c.path);
            const policy = namespace
                ? new PropagationPolicy(`${name}-${policyName}`, { metadata: { name: policyName, namespace }, spec }, child)
                : new ClusterPropagationPolicy(`${name}-${policyName}`, { metadata: { name: policyName }, spec }, child);
            this.policies[c.path] = policy;
            policyOf.set(m, policy);
        }
        for (const { m, o } of ordered) {
            const id = manifestObjectId(o);
            const body = o.body as { apiVersion: string; kind: string; metadata: Record<string, unknown> };
            const labels = { ...((body.metadata.labels as Record<string, string> | undefined) ?? {}), ...KAMINO_MANIFEST_LABEL };
            const annotations = { ...((body.metadata.annotations as Record<string, string> | undefined) ?? {}), ...SKIP_AWAIT };
            // After its policy, as an IrisCluster template is: the first schedule already places it,
            // and on removal the object goes first, which is what takes it off the members.
            const object = new ManifestObjectResource(
                objectResourceName(name, o),
                { ...body, metadata: { ...body.metadata, labels, annotations } },
                { ...child, dependsOn: [...after, policyOf.get(m)!, ...(isCrd(o) ? [] : crds)] },
            );
            if (isCrd(o)) crds.push(object);
            this.objects[id] = object;
            this.targets[id] = m.targetClusters;
        }
        this.registerOutputs({ targets: this.targets });
    }
}

const isCrd = (o: ManifestObject) => o.group === "apiextensions.k8s.io" && o.kind === "CustomResourceDefinition";
