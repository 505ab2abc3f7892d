// The zod pieces several keys share: names, labels, CIDRs, placements, a reference to a secret
// config key. Apart from schema.ts so that the modules schema.ts is built from can use them too:
// the followers (config/followers) build their keys and fields from them.
import { z } from "zod";
import { cidrFamily } from "./cidr";
import { withFix } from "./fix";

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;

export const LABEL_VALUE_FIX = "use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
export const SECRET_NAME_MESSAGE = withFix("must be a DNS-1123 subdomain (a Kubernetes Secret name)", "use lower-case letters, digits, '-' and '.'");
export const CONFIG_MAP_NAME_MESSAGE = withFix("must be a DNS-1123 subdomain (a Kubernetes ConfigMap name)", "use lower-case letters, digits, '-' and '.'");

/** A DNS-1123 label of at most `max` characters (`what` names it in the messages). */
export const dnsLabel = (what: string, max = 63) =>
    z
        .string()
        .max(max, withFix(`${what} must be at most ${max} characters`, "shorten it"))
        .regex(
            DNS1123_LABEL,
            withFix(
                `${what} must be a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)`,
                "lower-case it and replace any other character with '-'",
            ),
        );

/**
 * A CIDR (config/cidr.ts): IPv4 only with `family` 4, as kind's subnets and GKE's authorized networks
 * take; IPv4 or IPv6 without. Written without spaces around it.
 */
export const cidr = (family?: 4 | 6) =>
    z
        .string()
        .refine(
            (s) => s === s.trim() && cidrFamily(s) !== undefined && (family === undefined || cidrFamily(s) === family),
            family === 4
                ? withFix("must be an IPv4 CIDR", "write it as address/prefix, e.g. 10.244.0.0/16")
                : withFix("must be a CIDR", "write it as address/prefix, e.g. 10.0.0.0/8 or fd00::/64 (the prefix at most 32 for IPv4, 128 for IPv6)"),
        );

export const labelMap = z.record(
    z
        .string()
        .regex(
            /^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/,
            withFix("the label key is not valid", "use [prefix/]name: letters, digits, '-', '_' and '.', starting and ending with a letter or digit"),
        ),
    z.string().max(63, withFix("is not a valid label value", LABEL_VALUE_FIX)).regex(LABEL_VALUE, withFix("is not a valid label value", LABEL_VALUE_FIX)),
);

/** The name of another `kamino:` key that holds a secret value. */
export const secretConfigRef = z
    .string()
    .regex(CONFIG_KEY, withFix("must name another kamino config key", "give the key without the 'kamino:' prefix, e.g. irisLicense for kamino:irisLicense"));

export const placementSchema = z
    .object({
        clusterNames: z.array(z.string()).min(1).optional(),
        clusterLabels: labelMap.optional(),
        excludeClusters: z.array(z.string()).optional(),
    })
    .strict();

/**
 * An IrisCluster's placement: `all` runs it on every selected member; `failover` on one member at a
 * time, the first Ready one in `clusterNames` order (checks: config/failover.ts).
 */
export const irisPlacementSchema = placementSchema
    .extend({
        mode: z.enum(["all", "failover"]).default("all"),
    })
    .strict();

export type PlacementConfig = z.infer<typeof placementSchema>;
export type IrisPlacementConfig = z.infer<typeof irisPlacementSchema>;
