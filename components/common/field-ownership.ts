// Kamino owns the fields it declares on its Kubernetes objects. Server-side apply refuses to take
// a field over from another field manager ("field conflict") unless forced, and two everyday cases
// hit that: an object a killed run had just created (it belongs to that run's field manager, a
// random name per create), and a hand edit (`kubectl edit` owns what it changed). Forcing is what
// `PULUMI_K8S_ENABLE_PATCH_FORCE=true` does for a whole run; the annotation does it per object, so
// `pulumi up` and `pulumi up --refresh` converge without an environment variable.
import * as pulumi from "@pulumi/pulumi";

/** The provider's per-object switch for forcing server-side apply conflicts. */
export const PATCH_FORCE_ANNOTATION = "pulumi.com/patchForce";

/** Resource types in the kubernetes package that are not objects applied by server-side apply. */
const NOT_APPLIED = /^kubernetes:(helm\.sh\/v\d+:(Release|Chart)|yaml(\/v2)?:|kustomize(\/v2)?:)/;

/** True for the Kubernetes objects the provider server-side applies: the ones the annotation concerns. */
export function isAppliedKubernetesObject(type: string, custom: boolean): boolean {
    return custom && type.startsWith("kubernetes:") && !NOT_APPLIED.test(type);
}

/** `metadata` with the patch-force annotation added; other annotations are kept, Outputs included. */
export function withPatchForce(metadata: unknown): unknown {
    const add = (annotations: unknown) => ({ ...((annotations as Record<string, string> | undefined) ?? {}), [PATCH_FORCE_ANNOTATION]: "true" });
    if (pulumi.Output.isInstance(metadata)) return metadata.apply((m) => withPatchForce(m));
    const m = (metadata ?? {}) as Record<string, unknown>;
    const annotations = m.annotations;
    return { ...m, annotations: pulumi.Output.isInstance(annotations) ? annotations.apply(add) : add(annotations) };
}

/**
 * A transform on the Fleet, so on every resource under it: each Kubernetes object Kamino declares
 * carries the patch-force annotation. (Not a stack transform: with one registered, SDK 3.276 turns
 * a failed `up` into an extra "unhandled exception" trace.)
 */
export const forceFieldOwnership: pulumi.ResourceTransform = (args) => {
    if (!isAppliedKubernetesObject(args.type, args.custom)) return undefined;
    return { props: { ...args.props, metadata: withPatchForce(args.props.metadata) }, opts: args.opts };
};
