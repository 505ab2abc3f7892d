// The labels IKO puts on the pods of an IrisCluster (notes/iko.md §1: IKO 3.6 pods, and IKO's
// mirror labeler): whatever selects IRIS's pods (a mirror's Services, a NetworkPolicy, the mirror
// roles `npm run status` reads) names them from here. Imports nothing, so that config reads it
// without loading Pulumi.

/** IKO's pod label keys. */
export const IKO_POD_LABELS = {
    /** The IrisCluster a pod belongs to: on every pod of it (data, compute, arbiter, web gateway). */
    name: "intersystems.com/name",
    /** What the pod runs: `data`, `compute`, `arbiter`, `webgateway`. */
    component: "intersystems.com/component",
    /** A mirrored data pod's role, set by IKO's mirror labeler: `primary` or `backup`. */
    mirrorRole: "intersystems.com/mirrorRole",
} as const;
