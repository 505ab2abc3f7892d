// The registry of followers: every kind of object that follows an IrisCluster, one line each, in
// the order their keys, checks, namespaces and rights are read (the way Karmada's controller manager
// lists its controllers). A follower is one module (follower.ts says what it holds); what the layers
// read from the registry is in derived.ts. To add one: docs/architecture.md "How to add".
import { configMapsFollower } from "./config-maps";
import { manifestsFollower } from "./manifests";
import { mirrorObjectsFollower } from "./mirror-objects";
import { networkPoliciesFollower } from "./network-policies";
import { secretsFollower } from "./secrets";

export const FOLLOWERS = [secretsFollower, configMapsFollower, manifestsFollower, mirrorObjectsFollower, networkPoliciesFollower] as const;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Registered = (typeof FOLLOWERS)[number];

/** Every follower's `kamino:` keys as one zod shape (KEY_SCHEMAS spreads it), typed. */
export const FOLLOWER_KEYS = Object.assign({}, ...FOLLOWERS.map((f) => f.keys ?? {})) as UnionToIntersection<NonNullable<Registered["keys"]>>;

/** Every follower's fields of a `kamino:irisClusters[]` entry as one zod shape (the entry's schema spreads it), typed. */
export const FOLLOWER_IRIS_CLUSTER_FIELDS = Object.assign({}, ...FOLLOWERS.map((f) => f.irisClusterFields ?? {})) as UnionToIntersection<
    NonNullable<Registered["irisClusterFields"]>
>;

export type { DependencyLookup, Follower, FollowerObjects, KarmadaObject, OwnComponent, PropagatedObject } from "./follower";
