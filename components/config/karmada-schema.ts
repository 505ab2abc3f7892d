// The schema of `kamino:karmada`: the chart or an existing control plane, how it is reached and
// published, what its identity may do on members, Pull agents and failure detection.
import { z } from "zod";
import { DEFAULTS, KAMINO_FEATURE_GATES } from "./defaults";
import { withFix } from "./fix";

const MEMBER_ACCESS_MODES = withFix(
    "must be 'narrow' or 'full'",
    "use narrow (the default: only what Kamino's propagation needs) or full (karmadactl join's cluster-admin)",
);
const policyRuleSchema = z
    .object({
        apiGroups: z.array(z.string()).optional(),
        resources: z.array(z.string().min(1)).optional(),
        verbs: z.array(z.string().min(1)).min(1, withFix("must list at least one verb", "e.g. verbs: [get, list, watch, create, update, delete]")),
        resourceNames: z.array(z.string().min(1)).optional(),
        nonResourceURLs: z.array(z.string().min(1)).optional(),
    })
    .strict()
    .refine((r) => (r.nonResourceURLs !== undefined) !== (r.resources !== undefined), {
        message: withFix(
            "a rule names either resources (with apiGroups) or nonResourceURLs",
            "give apiGroups and resources, e.g. {apiGroups: [apps], resources: [deployments], verbs: [...]}",
        ),
    });
// `narrow` | `full` | {mode, extraRules}; normalized to the object.
const memberAccessSchema = z
    .union([
        z.enum(["narrow", "full"], { errorMap: () => ({ message: MEMBER_ACCESS_MODES }) }),
        z
            .object({
                mode: z.enum(["narrow", "full"], { errorMap: () => ({ message: MEMBER_ACCESS_MODES }) }).default("narrow"),
                extraRules: z.array(policyRuleSchema).default([]),
            })
            .strict()
            .refine((a) => a.mode === "narrow" || a.extraRules.length === 0, {
                message: withFix("extraRules add to narrow rules; full already grants everything", "drop extraRules or set mode: narrow"),
            }),
    ])
    .default("narrow")
    .transform((a) => (typeof a === "string" ? { mode: a, extraRules: [] } : a));

const cronSchedule = z
    .string()
    .regex(
        /^\S+( \S+){4}$/,
        withFix("must be a cron schedule of five fields", "write minute hour day-of-month month day-of-week, e.g. '17 3 * * *' for 03:17 every day"),
    );

/** Scheduled snapshots of Kamino's etcd to a GCS bucket Kamino makes (components/karmada/control-plane/etcd-backup.ts). */
const backupSchema = z
    .object({
        /** On by default on a gke host; false makes no bucket and no Job. */
        enabled: z.boolean().default(true),
        schedule: cronSchedule.default(DEFAULTS.karmadaEtcdBackupSchedule),
        /** Snapshots (and their older versions) are deleted this many days after they are written. */
        retentionDays: z
            .number({ invalid_type_error: withFix("must be a number of days", "write a whole number, e.g. 30") })
            .int(withFix("must be a whole number of days", "round it"))
            .min(1, withFix("must be at least 1 day", "keep snapshots for 1 day or more, e.g. 30"))
            .max(3650, withFix("must be at most 3650 days", "use 3650 or less"))
            .default(DEFAULTS.karmadaEtcdBackupRetentionDays),
        /** An image with a shell and gcloud, for the upload. */
        uploaderImage: z.string().min(1).default(DEFAULTS.karmadaEtcdBackupUploaderImage),
        /** The bucket's location; default: the multi-region of the host's region (EU, US, ASIA), so a region's loss keeps the snapshots. */
        location: z
            .string()
            .regex(
                /^[A-Za-z0-9-]+$/,
                withFix("must be a GCS location such as EU or europe-west1", "use a location that 'gcloud storage buckets create --help' lists"),
            )
            .optional(),
    })
    .strict();

/** Kamino's etcd for a Karmada it installs off kind (components/karmada/control-plane/etcd-cluster.ts). */
const etcdSchema = z
    .object({
        // Unset fields take KarmadaEtcd's defaults (3 members of 8Gi).
        members: z
            .union([z.literal(3), z.literal(5)], {
                errorMap: () => ({
                    message: withFix("must be 3 or 5", "use 3 (survives one member lost) or 5 (survives two); an even number adds no tolerance"),
                }),
            })
            .optional(),
        volumeSize: z
            .string()
            .regex(/^[1-9][0-9]*(Mi|Gi|Ti)$/, withFix("must be a size such as 8Gi", "write a whole number with Mi, Gi or Ti, e.g. 8Gi"))
            .optional(),
        /** StorageClass of the members' volumes; Kamino's Retain class on a gke host, the host's default elsewhere, when unset. */
        storageClass: z.string().min(1).optional(),
        /** One member per zone (`required`, the default), or only where the host has zones enough (`preferred`). */
        zoneSpread: z
            .enum(["required", "preferred"], {
                errorMap: () => ({
                    message: withFix(
                        "must be required or preferred",
                        "use required (one member per zone; the default) or preferred (a host with fewer zones than members)",
                    ),
                }),
            })
            .optional(),
        /** When the defragmentation Job runs (cron, the host's time zone). */
        defragSchedule: cronSchedule.default(DEFAULTS.karmadaEtcdDefragSchedule),
        /** Snapshots to a bucket Kamino makes, on a gke host. */
        backup: backupSchema.optional(),
    })
    .strict();

export const karmadaSchema = z
    .object({
        chartVersion: z
            .string()
            .regex(/^v\d+\.\d+\.\d+$/, withFix("must be a full chart version with a leading 'v'", "write it as vX.Y.Z, e.g. v1.18.1"))
            .default(DEFAULTS.karmadaChartVersion),
        chartRepo: z.string().url().default(DEFAULTS.karmadaChartRepo),
        /**
         * How Karmada runs on its host (karmada-host.ts): `single` (one of each component, the chart's
         * own etcd, the API on a NodePort) or `highlyAvailable` (two of each, Kamino's etcd, a load
         * balancer). Default: single on kind, highlyAvailable elsewhere.
         */
        topology: z
            .enum(["single", "highlyAvailable"], {
                errorMap: () => ({
                    message: withFix(
                        "must be single or highlyAvailable",
                        "use single (one of each component, the API on a NodePort) or highlyAvailable (two of each, behind a load balancer)",
                    ),
                }),
            })
            .optional(),
        kubectlImage: z.string().min(1).default(DEFAULTS.karmadaKubectlImage),
        apiServerNodePort: z.number().int().min(30000).max(32767).default(DEFAULTS.karmadaApiServerNodePort),
        apiServerHostPort: z.number().int().min(1).max(65535).default(DEFAULTS.karmadaApiServerHostPort),
        installTimeoutSeconds: z.number().int().min(60).max(3600).default(DEFAULTS.karmadaInstallTimeoutSeconds),
        // A stack's gates map would replace Kamino's whole: merged, so that one gate keeps PropagateDeps on.
        featureGates: z
            .record(z.boolean())
            .default({})
            .transform((gates) => ({ ...KAMINO_FEATURE_GATES, ...gates })),
        values: z.record(z.unknown()).default({}),
        /** Use a Karmada control plane that already runs; no chart is installed. */
        existingKubeconfigPath: z.string().min(1).optional(),
        /** Where members and people reach the Karmada API: an IP or a DNS name, optional `:port` (karmada-host.ts). */
        endpoint: z.string().min(1).optional(),
        /** CIDRs that may reach the Karmada API's load balancer (its `loadBalancerSourceRanges`). */
        authorizedNetworks: z.array(z.string()).optional(),
        /** Lets `authorizedNetworks` hold 0.0.0.0/0 or ::/0: the Karmada API open to the whole Internet. */
        allowAnyNetwork: z.boolean().default(false),
        /** What Karmada's identity may do on each member (components/karmada/members/member-access.ts, docs/security.md). */
        memberAccess: memberAccessSchema,
        /** Kamino's etcd under a Karmada it installs on a gke or existing host. */
        etcd: etcdSchema.optional(),
        /** Pull members' karmada-agent image; default: Karmada's own at the control plane's version. */
        agentImage: z.string().min(1).optional(),
        /** How long `up` waits for a Pull member's agent to register its Cluster and report it Ready. */
        agentReadyTimeoutSeconds: z.number().int().min(30).max(3600).default(DEFAULTS.agentReadyTimeoutSeconds),
        /** How long a member may be silent before Karmada marks it not Ready (karmada/failover/detection.ts). */
        failureDetectionSeconds: z
            .number({ invalid_type_error: withFix("must be a number of seconds", "write it as a whole number, e.g. 12") })
            .int(withFix("must be a whole number of seconds", "round it"))
            .min(8, withFix("must be at least 8 s", "use 8 or more: below that a member whose API server blinks for a few seconds is marked not Ready"))
            .max(300, withFix("must be at most 300 s", "use 300 or less; Karmada's own default detects in about 40 s"))
            .default(DEFAULTS.failureDetectionSeconds),
    })
    .strict()
    .default({});
