// The follower `manifests`: the objects of `kamino:manifests` YAML files (a Service, a NetworkPolicy,
// a CRD, ...), read by config/manifests.ts, created in Karmada and placed by a placement of an
// IrisCluster's shape (federation/manifests.ts), one policy per file. They follow a placement rather
// than an IrisCluster: Karmada's interpreter does not look for them.
import { z } from "zod";
import { withFix } from "../fix";
import { checkManifests } from "../manifests";
import { irisPlacementSchema } from "../schema-parts";
import type { Follower } from "./follower";

/**
 * A YAML file of Kubernetes objects (a Service, a NetworkPolicy, ...) created in the Karmada API and
 * propagated by a placement of an IrisCluster's shape (checks and parsing: config/manifests.ts).
 */
const manifestSchema = z
    .object({
        /** Path of the file, relative to the project directory; it may hold several documents. */
        path: z.string().min(1, withFix("must be a file path", "give the YAML file's path relative to the project directory")),
        placement: irisPlacementSchema.default({}),
    })
    .strict();

/** A `kamino:manifests` entry as written; the loader adds the objects its file holds (ManifestConfig). */
export type ManifestEntryConfig = z.infer<typeof manifestSchema>;

const KEYS = {
    manifests: z.array(manifestSchema).default([]),
};

export const manifestsFollower: Follower<typeof KEYS> = {
    id: "manifests",
    keys: KEYS,
    checks: [checkManifests],
    placements: (cfg) => (cfg.manifests ?? []).map((m, i) => ({ path: ["manifests", i, "placement"], placement: m.placement })),
    namespaces: (cfg) => cfg.manifests.flatMap((m) => m.objects.flatMap((o) => (o.namespace ? [o.namespace] : []))),
    objects: { component: "FederatedManifests" },
    rights: (plan) =>
        plan.config.manifests.flatMap((m) => m.objects.map((o) => ({ group: o.group, resource: o.resource, namespace: o.namespace, name: o.name }))),
    drMembers: "placed",
};
