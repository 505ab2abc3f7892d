// The follower `config-maps`: ConfigMaps from `kamino:configMaps` (CPF merge files and the like), each
// key's content read from a file or given inline, created once in Karmada (federation/config-maps.ts).
// One an IrisCluster names (`configSource`, or in its spec) follows it; one with a placement also goes
// where the placement says. A mirror's DR member gets the files of its entry's configSource inside
// the merge ConfigMap of its own (federation/iris-mirror.ts).
import { z } from "zod";
import { DEFAULTS } from "../defaults";
import { dependencyKey, namedBy } from "../dependencies";
import { withFix } from "../fix";
import { CONFIG_MAP_NAME_MESSAGE, dnsLabel, DNS1123_SUBDOMAIN, placementSchema } from "../schema-parts";
import type { CheckContext, CheckedConfig } from "../context";
import type { Problem } from "../problems";
import type { Follower } from "./follower";
import { IKO_REFERENCES } from "./iko-references";

const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * One ConfigMap data key: the content of a file (read on every `up`, so editing the file updates the
 * ConfigMap in place) or an inline string.
 */
const configMapValueSchema = z
    .object({
        /** Path of the file, relative to the project directory. */
        file: z.string().min(1, withFix("must be a file path", "give the file's path relative to the project directory")).optional(),
        value: z.string().optional(),
    })
    .strict()
    .refine((v) => (v.file === undefined) !== (v.value === undefined), {
        message: withFix("needs exactly one of 'file' and 'value'", "write {file: path} to read a file, or {value: text} for inline text"),
    });

/**
 * A ConfigMap created in Karmada. Without `placement` it goes only where the IrisClusters that name
 * it (`configSource`) go; with one, also to every member the placement selects.
 */
const configMapSchema = z
    .object({
        name: z.string().regex(DNS1123_SUBDOMAIN, CONFIG_MAP_NAME_MESSAGE),
        namespace: dnsLabel("namespace").default(DEFAULTS.irisNamespace),
        data: z.record(
            z.string().max(253).regex(CONFIG_MAP_KEY, withFix("is not a valid ConfigMap key", "use letters, digits, '-', '_' and '.', e.g. merge.cpf")),
            configMapValueSchema,
        ),
        placement: placementSchema.optional(),
    })
    .strict();

export type ConfigMapConfig = z.infer<typeof configMapSchema>;

const KEYS = {
    configMaps: z.array(configMapSchema).default([]),
};

/**
 * ConfigMaps are unique, each `file` exists, and each one reaches some member: an IrisCluster names
 * it, or it has a placement. One nobody names and without placement is most likely a typo in a
 * `configSource`, so it is an error rather than a ConfigMap sent everywhere.
 */
export function checkConfigMaps(cfg: CheckedConfig, { env }: CheckContext): Problem[] {
    const problems: Problem[] = [];
    const first = new Map<string, number>();
    const named = namedBy(cfg.irisClusters ?? []);
    (cfg.configMaps ?? []).forEach((cm: ConfigMapConfig, i) => {
        const id = `${cm.namespace}/${cm.name}`;
        const earlier = first.get(id);
        if (earlier === undefined) first.set(id, i);
        else
            problems.push({
                path: ["configMaps", i, "name"],
                reason: `duplicate ConfigMap '${id}' (also configMaps[${earlier}])`,
                fix: "remove one, or rename it",
            });
        for (const [key, v] of Object.entries(cm.data)) {
            if (v.file !== undefined && env.pathExists && !env.pathExists(v.file)) {
                problems.push({
                    path: ["configMaps", i, "data", key, "file"],
                    reason: `file does not exist (ConfigMap '${id}', key '${key}')`,
                    fix: "create it, or give its path relative to the project directory",
                });
            }
        }
        if (cm.placement === undefined && !named.has(dependencyKey("ConfigMap", cm.namespace, cm.name))) {
            problems.push({
                path: ["configMaps", i],
                reason: `no IrisCluster in '${cm.namespace}' names ConfigMap '${cm.name}' (configSource) and it has no placement, so it would reach no member`,
                fix: `set configSource: ${cm.name} on the IrisCluster that reads it, or give it a placement ('placement: {}' for every member)`,
            });
        }
    });
    return problems;
}

export const configMapsFollower: Follower<typeof KEYS> = {
    id: "config-maps",
    keys: KEYS,
    checks: [checkConfigMaps],
    placements: (cfg) => (cfg.configMaps ?? []).map((c, i) => ({ path: ["configMaps", i, "placement"], placement: c.placement })),
    declares: (cfg) =>
        (cfg.configMaps ?? []).map((c, i) => ({ object: { group: "", kind: "ConfigMap", namespace: c.namespace, name: c.name }, at: ["configMaps", i] })),
    namespaces: (cfg) => cfg.configMaps.map((c) => c.namespace),
    objects: { component: "FederatedConfigMaps" },
    lookup: IKO_REFERENCES,
    rights: (plan) => plan.config.configMaps.map((c) => ({ group: "", resource: "configmaps", namespace: c.namespace })),
    drMembers: "copied",
};
