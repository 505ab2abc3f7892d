// The follower `secrets`: Secrets from `kamino:secrets`, their values read from secret config keys,
// created once in Karmada (federation/secret-sync.ts). A Secret an IrisCluster names by a field IKO
// reads (licenseKeySecret, imagePullSecrets, tlsSecret, or in its spec) follows it; one with a
// placement also goes where the placement says.
import { z } from "zod";
import { DEFAULTS } from "../defaults";
import { dependencyKey, hasOwnPlacement, namedBy } from "../dependencies";
import { checkSecretSource } from "../secrets";
import { dnsLabel, DNS1123_SUBDOMAIN, placementSchema, SECRET_NAME_MESSAGE, secretConfigRef } from "../schema-parts";
import type { CheckContext, CheckedConfig } from "../context";
import type { Problem } from "../problems";
import type { Follower } from "./follower";
import { IKO_REFERENCES } from "./iko-references";

const secretSchema = z
    .object({
        name: z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE),
        namespace: dnsLabel("namespace").default(DEFAULTS.irisNamespace),
        type: z.enum(["opaque", "dockerconfigjson", "tls"]).default("opaque"),
        fromConfig: secretConfigRef,
        placement: placementSchema.optional(),
        /** Adopt a Secret of the same name that already exists on a member. */
        overwriteExisting: z.boolean().default(false),
    })
    .strict();

export type SecretConfig = z.infer<typeof secretSchema>;

const KEYS = {
    secrets: z.array(secretSchema).default([]),
};

/** Synced Secrets are unique, and each names a secret config key holding the fields its type needs (so does IKO's pull secret). */
export function checkSecrets(cfg: CheckedConfig, { input, env }: CheckContext): Problem[] {
    const problems: Problem[] = [];
    const first = new Map<string, number>();
    (cfg.secrets ?? []).forEach((s, i) => {
        const id = `${s.namespace}/${s.name}`;
        const earlier = first.get(id);
        if (earlier === undefined) first.set(id, i);
        else problems.push({ path: ["secrets", i, "name"], reason: `duplicate Secret '${id}' (also secrets[${earlier}])`, fix: "remove one, or rename it" });
        problems.push(...checkSecretSource(["secrets", i, "fromConfig"], s.fromConfig, s.type, input, env));
    });
    if (cfg.iko?.imagePullSecretFromConfig) {
        problems.push(...checkSecretSource(["iko", "imagePullSecretFromConfig"], cfg.iko.imagePullSecretFromConfig, "dockerconfigjson", input, env));
    }
    return problems;
}

/**
 * A Secret that only follows IrisClusters takes its conflict resolution from their policies
 * (Karmada copies it from the IrisCluster's binding), so `overwriteExisting` would do nothing there.
 */
export function checkFollowingSecrets(cfg: CheckedConfig): Problem[] {
    const named = namedBy(cfg.irisClusters ?? []);
    return (cfg.secrets ?? []).flatMap((s, i): Problem[] =>
        s.overwriteExisting && !hasOwnPlacement(s, named.has(dependencyKey("Secret", s.namespace, s.name)))
            ? [
                  {
                      path: ["secrets", i, "overwriteExisting"],
                      reason: `Secret '${s.namespace}/${s.name}' has no placement and follows the IrisClusters that name it, whose policies decide conflicts`,
                      fix: "give it a placement of its own to adopt existing copies ('placement: {}' for every member), or remove overwriteExisting",
                  },
              ]
            : [],
    );
}

export const secretsFollower: Follower<typeof KEYS> = {
    id: "secrets",
    keys: KEYS,
    checks: [checkSecrets, checkFollowingSecrets],
    placements: (cfg) => (cfg.secrets ?? []).map((s, i) => ({ path: ["secrets", i, "placement"], placement: s.placement })),
    namespaces: (cfg) => cfg.secrets.map((s) => s.namespace),
    objects: { component: "SecretSync" },
    lookup: IKO_REFERENCES,
    rights: (plan) => plan.config.secrets.map((s) => ({ group: "", resource: "secrets", namespace: s.namespace })),
    drMembers: "copied",
};
