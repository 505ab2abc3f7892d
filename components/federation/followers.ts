// The followers' objects declared in Karmada, read from the registry (config/followers): each follower
// whose objects a component of its own declares gets that component (their Pulumi types and names are
// in deployed stacks' URNs), each follower that describes its objects a FollowerObjects, and a
// mirror's objects come with the mirror (iris-mirror.ts). The Fleet calls this once, after the
// namespaces and the members' rights, before the IrisClusters.
import * as pulumi from "@pulumi/pulumi";
import { describedObjects, FleetPlan, OwnComponent, registry } from "../config";
import { FederatedConfigMaps } from "./config-maps";
import { FollowerObjects } from "./follower-objects";
import { FederatedManifests } from "./manifests";
import { SecretSync } from "./secret-sync";
import { KarmadaContext } from "../common/karmada-context";

/** What declaring the followers needs from the Fleet. */
export interface FollowerContext {
    /** The fleet plan. */
    plan: FleetPlan;
    /** The Karmada API. */
    karmada: KarmadaContext;
    /** Values of the secret config keys, keyed by the key without `kamino:` (secret outputs). */
    secretValues: Record<string, pulumi.Output<Record<string, string>>>;
    /** What every follower's objects wait for: their namespaces and Karmada's rights on every member. */
    after: pulumi.Resource[];
    /** The failover taint policy, when the fleet has one: placed manifests wait for it too. */
    failover?: pulumi.Resource;
    /** The parent of the components (the Fleet). */
    parent: pulumi.Resource;
}

/** How each follower with a component of its own declares it; none when the plan has nothing of it. */
const COMPONENTS: Record<OwnComponent, (ctx: FollowerContext) => pulumi.ComponentResource | undefined> = {
    SecretSync: ({ plan, karmada, secretValues, after, parent }) =>
        plan.secrets.length === 0
            ? undefined
            : new SecretSync(
                  "secrets",
                  {
                      // A Secret an IrisCluster names and no placement places follows that IrisCluster only.
                      secrets: plan.secrets.map((s) => ({ ...s, values: secretValues[s.config.fromConfig] })),
                      karmada,
                      tolerateFailoverTaint: plan.failover,
                  },
                  // After every member's join (a Secret in `default` has no namespace to wait for), removed before it.
                  { parent, dependsOn: after },
              ),
    FederatedConfigMaps: ({ plan, karmada, after, parent }) =>
        plan.configMaps.length === 0
            ? undefined
            : new FederatedConfigMaps(
                  "config-maps",
                  { configMaps: plan.configMaps, karmada, tolerateFailoverTaint: plan.failover },
                  { parent, dependsOn: after },
              ),
    // After their namespaces and Karmada's rights on every member (narrow access widens to their kinds), which they outlive.
    FederatedManifests: ({ plan, karmada, after, failover, parent }) =>
        plan.manifests.length === 0
            ? undefined
            : new FederatedManifests(
                  "manifests",
                  { manifests: plan.manifests, karmada, tolerateFailoverTaint: plan.failover },
                  { parent, dependsOn: [...after, ...(failover ? [failover] : [])] },
              ),
};

/** Each follower's component, keyed by follower id, typed where the Fleet's outputs read it. */
export interface FollowerComponents {
    secrets?: SecretSync;
    "config-maps"?: FederatedConfigMaps;
    manifests?: FederatedManifests;
    [follower: string]: pulumi.ComponentResource | undefined;
}

/** The followers' components, and those the IrisClusters must wait for. */
export interface DeclaredFollowers {
    /** Each follower's component, when the plan has objects of it. */
    components: FollowerComponents;
    /** The components of followers Karmada's interpreter finds: they exist before the IrisClusters, so the first schedule sends them along. */
    prerequisites: pulumi.ComponentResource[];
}

/** Declares every follower's objects in Karmada, in registry order. */
export function declareFollowers(ctx: FollowerContext): DeclaredFollowers {
    const described = describedObjects(ctx.plan);
    const components: FollowerComponents = {};
    const prerequisites: pulumi.ComponentResource[] = [];
    for (const f of registry()) {
        const component =
            "component" in f.objects
                ? COMPONENTS[f.objects.component](ctx)
                : described[f.id]
                  ? new FollowerObjects(f.id, { follower: f.id, objects: described[f.id], karmada: ctx.karmada }, { parent: ctx.parent, dependsOn: ctx.after })
                  : undefined;
        if (!component) continue;
        components[f.id] = component;
        if (f.lookup) prerequisites.push(component);
    }
    return { components, prerequisites };
}
