// CrdMirror: copies a CRD that exists live on a source cluster (IKO creates its CRD at start-up,
// its chart ships none) into the Karmada API, so Karmada accepts resource templates of that kind.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { kubeGetter, KubeObject, waitForObject } from "./kube-read";

/** Reads a live CRD, waiting for it to appear. */
export type CrdReader = (kubeconfig: string, crdName: string, timeoutSeconds: number) => Promise<KubeObject>;

/** The real reader: polls the source cluster's API. */
export const readLiveCrd: CrdReader = (kubeconfig, crdName, timeoutSeconds) =>
    waitForObject(kubeGetter(kubeconfig), `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`, `CRD ${crdName}`, {
        timeoutSeconds,
    });

/** Arguments of a CrdMirror. */
export interface CrdMirrorArgs {
    /** The CRD, e.g. `irisclusters.intersystems.com`. */
    crdName: string;
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
 * exists only on the source cluster).
 */
export function mirrorableCrdSpec(crd: KubeObject): Record<string, unknown> {
    if (!crd.spec) throw new Error(`CRD ${String(crd.metadata?.name)} has no spec`);
    const { conversion, ...spec } = crd.spec as Record<string, unknown> & { conversion?: { strategy?: string } };
    return conversion && conversion.strategy !== "Webhook" ? { ...spec, conversion } : spec;
}

/** A copy of a live CRD in another API server. */
export class CrdMirror extends pulumi.ComponentResource {
    /** The CRD created in the target API. */
    public readonly crd: k8s.apiextensions.v1.CustomResourceDefinition;

    constructor(name: string, args: CrdMirrorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:CrdMirror", name, {}, opts);
        const reader = args.reader ?? readLiveCrd;
        // The spec is read with a secret kubeconfig but is not secret itself: keep it readable in diffs.
        const spec = pulumi.unsecret(pulumi.all([args.sourceKubeconfig, args.sourceReady]).apply(async ([kubeconfig]) => {
            try {
                return mirrorableCrdSpec(await reader(kubeconfig, args.crdName, args.timeoutSeconds));
            } catch (e) {
                throw new Error(
                    `CRD ${args.crdName} could not be read from cluster '${args.sourceName}': ${(e as Error).message}. ` +
                        `IKO creates it when the operator starts: check the operator pod and its log on '${args.sourceName}', then run 'pulumi up' again.`,
                );
            }
        }));
        this.crd = new k8s.apiextensions.v1.CustomResourceDefinition(
            `${name}-crd`,
            { metadata: { name: args.crdName }, spec: spec as unknown as pulumi.Output<k8s.types.input.apiextensions.v1.CustomResourceDefinitionSpec> },
            { parent: this, provider: args.targetProvider, deletedWith: args.targetLifecycle },
        );
        this.registerOutputs({ crdName: args.crdName });
    }
}
