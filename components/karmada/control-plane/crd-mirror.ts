// CrdMirror: copies a CRD that exists live on a source cluster (IKO creates its CRD at start-up,
// its chart ships none) into the Karmada API, so Karmada accepts resource templates of that kind.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { crdPath, KubeObject, kubeReader, waitForObject } from "../../live/kube-read";
import { formatAge, ProgressSink } from "../../live/progress";

/** Reads a live CRD, waiting for it to appear; `onProgress` gets a line each time the answer changes. */
export type CrdReader = (kubeconfig: string, crdName: string, timeoutSeconds: number, onProgress?: ProgressSink) => Promise<KubeObject>;

/** The real reader: polls the source cluster's API. */
export const readLiveCrd: CrdReader = (kubeconfig, crdName, timeoutSeconds, onProgress) =>
    waitForObject(kubeReader(kubeconfig, crdPath(crdName)), `CRD ${crdName}`, { timeoutSeconds, onProgress });

/** What the program expects of the CRD; known before the live CRD can be read. */
export interface CrdIdentity {
    /** The kind, e.g. `IrisCluster`. */
    kind: string;
    /** The plural resource name, e.g. `irisclusters`. */
    plural: string;
    /** `Namespaced` or `Cluster`. */
    scope: "Namespaced" | "Cluster";
}

/** Arguments of a CrdMirror. */
export interface CrdMirrorArgs {
    /** The CRD, e.g. `irisclusters.intersystems.com`. */
    crdName: string;
    /**
     * Its kind, plural and scope. The Kubernetes provider checks these on every preview, also
     * while the live CRD cannot be read yet; on `up` the live CRD must agree.
     */
    identity: CrdIdentity;
    /** Kubeconfig of the source cluster; secret. */
    sourceKubeconfig: pulumi.Input<string>;
    /** Name of the source cluster, for error messages. */
    sourceName: string;
    /** The resource that starts the CRD's creator (IKO's release); reading starts once it exists. */
    sourceReady: pulumi.Input<unknown>;
    /** Seconds to wait for the CRD on the source. */
    timeoutSeconds: number;
    /** Provider of the target API (Karmada). */
    targetProvider: k8s.Provider;
    /** How to read the live CRD; the default polls the source's API server. */
    reader?: CrdReader;
    /** Resource whose deletion deletes the target API; the copy is then not deleted on its own. */
    targetLifecycle?: pulumi.Resource;
}

/**
 * The spec to create in the target: the source spec, minus a conversion webhook (its Service
 * exists only on the source cluster), and with a status subresource on every version, so that
 * Karmada can write the status it aggregates from the members onto the template (IKO's own CRD
 * has none by default, and Karmada's status update then fails with "not found").
 */
export function mirrorableCrdSpec(crd: KubeObject): Record<string, unknown> {
    if (!crd.spec) throw new Error(`CRD ${String(crd.metadata?.name)} has no spec`);
    const { conversion, versions, ...spec } = crd.spec as Record<string, unknown> & {
        conversion?: { strategy?: string };
        versions?: Array<Record<string, unknown>>;
    };
    const withStatus = (versions ?? []).map((v) => ({ ...v, subresources: { ...(v.subresources as object | undefined), status: {} } }));
    return { ...spec, versions: withStatus, ...(conversion && conversion.strategy !== "Webhook" ? { conversion } : {}) };
}

/** Fails when the live CRD is not the one the program expects. */
export function checkIdentity(crd: KubeObject, crdName: string, id: CrdIdentity): KubeObject {
    const spec = (crd.spec ?? {}) as { names?: { kind?: string; plural?: string }; scope?: string };
    const found = { kind: spec.names?.kind, plural: spec.names?.plural, scope: spec.scope };
    if (found.kind !== id.kind || found.plural !== id.plural || found.scope !== id.scope) {
        throw new Error(`CRD ${crdName} is ${JSON.stringify(found)}, expected ${JSON.stringify(id)}`);
    }
    return crd;
}

/** Where the wait for the live CRD reports: a line each time the answer changes, and one when it is found. */
export interface WaitReport {
    progress: ProgressSink;
    done: ProgressSink;
}

/**
 * Reads the live CRD from the source and returns the spec to create in the target; any failure
 * says which CRD, on which cluster, and what to check.
 */
export async function readMirrorSpec(
    reader: CrdReader,
    kubeconfig: string,
    args: Pick<CrdMirrorArgs, "crdName" | "identity" | "sourceName" | "timeoutSeconds">,
    report?: WaitReport,
): Promise<Record<string, unknown>> {
    try {
        const started = Date.now();
        const crd = await reader(kubeconfig, args.crdName, args.timeoutSeconds, report && ((line) => report.progress(`on ${args.sourceName}: ${line}`)));
        report?.done(`CRD ${args.crdName} found on ${args.sourceName} (waited ${formatAge((Date.now() - started) / 1000)})`);
        return mirrorableCrdSpec(checkIdentity(crd, args.crdName, args.identity));
    } catch (e) {
        throw new Error(
            `CRD ${args.crdName} could not be read from cluster '${args.sourceName}': ${(e as Error).message}. ` +
                `IKO creates it when the operator starts: check the operator pod and its log on '${args.sourceName}', then run 'pulumi up' again.`,
        );
    }
}

/** The API group of a CRD from its name (`<plural>.<group>`). */
export function crdGroup(crdName: string): string {
    const dot = crdName.indexOf(".");
    if (dot <= 0 || dot === crdName.length - 1) throw new Error(`'${crdName}' is not a CRD name of the form <plural>.<group>`);
    return crdName.slice(dot + 1);
}

/** The copy's fields that come from the live CRD: unknown, and ignored for an existing copy, in a preview. */
export const LIVE_FIELDS = [
    "spec.names.singular",
    "spec.names.listKind",
    "spec.names.shortNames",
    "spec.names.categories",
    "spec.versions",
    "spec.conversion",
    "spec.preserveUnknownFields",
];

/** A copy of a live CRD in another API server. */
export class CrdMirror extends pulumi.ComponentResource {
    /** The CRD created in the target API. */
    public readonly crd: k8s.apiextensions.v1.CustomResourceDefinition;

    /** The wait for the live CRD, on this component in Pulumi's display: progress as its status (ephemeral), then one line. */
    private readonly waitReport: WaitReport = {
        progress: (line) => pulumi.log.info(line, this, undefined, true),
        done: (line) => pulumi.log.info(line, this),
    };

    constructor(name: string, args: CrdMirrorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:CrdMirror", name, {}, opts);
        const reader = args.reader ?? readLiveCrd;
        const id = args.identity;
        // The live CRD is read on `up` only. A preview must not depend on reaching the source
        // cluster (a CI runner usually cannot), nor wait for it: the fields that come from the live
        // CRD are unknown in a preview and, for a copy that exists already, ignored, so the copy
        // shows as unchanged whether or not the source is reachable. A PR cannot change the live
        // CRD (IKO writes it); an IKO chart change shows as an update of IKO's release instead.
        const preview = pulumi.runtime.isDryRun();
        // Read with a secret kubeconfig, the spec is still not secret: keep it readable in diffs.
        const live = preview
            ? undefined
            : pulumi.unsecret(
                  pulumi.all([args.sourceKubeconfig, args.sourceReady]).apply(([kubeconfig]) => readMirrorSpec(reader, kubeconfig, args, this.waitReport)),
              );
        const field = <T>(key: string): pulumi.Input<T> => (live ? live.apply((s) => s[key] as T) : (pulumi.unknown as unknown as pulumi.Input<T>));
        const liveNames = <T>(key: "singular" | "listKind" | "shortNames" | "categories"): pulumi.Input<T> =>
            live ? live.apply((s) => (s.names as Record<string, T>)[key]) : (pulumi.unknown as unknown as pulumi.Input<T>);
        // Known parts stay known in preview; the rest follows the live CRD.
        const spec: k8s.types.input.apiextensions.v1.CustomResourceDefinitionSpec = {
            group: crdGroup(args.crdName),
            names: {
                kind: id.kind,
                plural: id.plural,
                singular: liveNames<string>("singular"),
                listKind: liveNames<string>("listKind"),
                shortNames: liveNames<string[]>("shortNames"),
                categories: liveNames<string[]>("categories"),
            },
            scope: id.scope,
            versions: field<k8s.types.input.apiextensions.v1.CustomResourceDefinitionVersion[]>("versions"),
            conversion: field<k8s.types.input.apiextensions.v1.CustomResourceConversion>("conversion"),
            preserveUnknownFields: field<boolean>("preserveUnknownFields"),
        };
        this.crd = new k8s.apiextensions.v1.CustomResourceDefinition(
            `${name}-crd`,
            { metadata: { name: args.crdName }, spec },
            { parent: this, provider: args.targetProvider, deletedWith: args.targetLifecycle, ignoreChanges: preview ? LIVE_FIELDS : undefined },
        );
        this.registerOutputs({ crdName: args.crdName });
    }
}
