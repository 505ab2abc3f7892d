// The stack configuration: one typed, validated FleetConfig. Pure: no Pulumi resources, no I/O
// except the optional `pathExists` probe passed in by the caller. Every default lives here.
import { z } from "zod";

/** The Pulumi config namespace of this project (`kamino:<key>`). */
export const CONFIG_NAMESPACE = "kamino";

/** Versions and coordinates Kamino installs unless a stack overrides them. */
/**
 * karmada-controller-manager feature gates Kamino turns on (the chart turns PropagateDeps off,
 * and IrisClusters need the Secrets they reference propagated with them). A stack that names a
 * gate itself decides it.
 */
export const KAMINO_FEATURE_GATES: Readonly<Record<string, boolean>> = { PropagateDeps: true };

export const DEFAULTS = {
    /** IRIS pulls a multi-GB image and starts its instance: minutes, more on a cold node. */
    irisRunningTimeoutSeconds: 900,
    ciliumVersion: "1.18.0",
    ciliumRepo: "https://helm.cilium.io",
    karmadaChartVersion: "v1.15.0",
    karmadaChartRepo: "https://raw.githubusercontent.com/karmada-io/karmada/master/charts",
    /** The chart's default (bitnami/kubectl) was withdrawn in 2025; this image has bash and kubectl. */
    karmadaKubectlImage: "bitnamisecure/kubectl",
    karmadaApiServerNodePort: 32443,
    karmadaApiServerHostPort: 5443,
    karmadaInstallTimeoutSeconds: 900,
    ikoChartPath: "./iris-operator",
    ikoNamespace: "iko",
    ikoReleaseName: "iko",
    crdWaitSeconds: 300,
    irisNamespace: "default",
    kindWorkers: 1,
    gkeNodeCount: 3,
    gkeMachineType: "e2-standard-4",
    gkeReleaseChannel: "REGULAR",
} as const;

/** Karmada rejects Cluster names longer than this (pkg/apis/cluster/validation). */
export const MAX_CLUSTER_NAME_LENGTH = 48;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const CONFIG_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
const IPV4_CIDR = /^\d+\.\d+\.\d+\.\d+\/\d+$/;

/**
 * Zod carries one message string per issue; schemas put the fix after this mark so that an error
 * can say both what is wrong and what to do (see `describeIssue`).
 */
const FIX_MARK = "\n";
const withFix = (reason: string, fix: string) => `${reason}${FIX_MARK}${fix}`;

const LABEL_VALUE_FIX = "use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
const CIDR_MESSAGE = withFix("must be an IPv4 CIDR", "write it as address/prefix, e.g. 10.244.0.0/16");
const SECRET_NAME_MESSAGE = withFix("must be a DNS-1123 subdomain (a Kubernetes Secret name)", "use lower-case letters, digits, '-' and '.'");

const dnsLabel = (what: string, max = 63) =>
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

const labelMap = z.record(
    z
        .string()
        .regex(
            /^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/,
            withFix("the label key is not valid", "use [prefix/]name: letters, digits, '-', '_' and '.', starting and ending with a letter or digit"),
        ),
    z
        .string()
        .max(63, withFix("is not a valid label value", LABEL_VALUE_FIX))
        .regex(LABEL_VALUE, withFix("is not a valid label value", LABEL_VALUE_FIX)),
);

const secretConfigRef = z
    .string()
    .regex(CONFIG_KEY, withFix("must name another kamino config key", "give the key without the 'kamino:' prefix, e.g. irisLicense for kamino:irisLicense"));

const clusterBase = {
    name: dnsLabel("cluster name", MAX_CLUSTER_NAME_LENGTH),
    karmadaHost: z.boolean().default(false),
    labels: labelMap.default({}),
    region: z.string().regex(LABEL_VALUE, withFix("must be a valid label value", LABEL_VALUE_FIX)).optional(),
    zones: z.array(z.string().regex(LABEL_VALUE, withFix("must be a valid label value", LABEL_VALUE_FIX))).optional(),
};

const kindCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("kind"),
        workers: z.number().int().min(0).max(10).default(DEFAULTS.kindWorkers),
        nodeImage: z.string().min(1).optional(),
        podSubnet: z.string().regex(IPV4_CIDR, CIDR_MESSAGE).optional(),
        serviceSubnet: z.string().regex(IPV4_CIDR, CIDR_MESSAGE).optional(),
    })
    .strict();

const gkeCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("gke"),
        project: z.string().min(1, withFix("is required for a gke cluster", "set the GCP project ID")).optional(),
        /** A single zone makes a zonal cluster; set either this or `region` (a regional cluster). */
        zone: z
            .string()
            .regex(/^[a-z]+-[a-z]+\d+-[a-z]$/, withFix("must be a GCP zone such as us-central1-a", "use a zone that 'gcloud compute zones list' shows"))
            .optional(),
        nodeCount: z.number().int().min(1).max(100).default(DEFAULTS.gkeNodeCount),
        machineType: z.string().min(1).default(DEFAULTS.gkeMachineType),
        network: z.string().min(1).optional(),
        subnetwork: z.string().min(1).optional(),
        releaseChannel: z.enum(["RAPID", "REGULAR", "STABLE", "EXTENDED"]).default(DEFAULTS.gkeReleaseChannel),
        /** CIDRs allowed to reach the control plane; the laptop running Karmada must be among them. */
        authorizedNetworks: z.array(z.string().regex(IPV4_CIDR, CIDR_MESSAGE)).optional(),
    })
    .strict();

const existingCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("existing"),
        kubeconfigPath: z
            .string({ required_error: withFix("an existing cluster needs its kubeconfig", "set the path of the cluster's kubeconfig file") })
            .min(1, withFix("an existing cluster needs its kubeconfig", "set the path of the cluster's kubeconfig file")),
        context: z.string().min(1).optional(),
        apiEndpoint: z.string().url(withFix("must be an https:// URL", "give the API server's URL, e.g. https://10.0.0.1:6443")).optional(),
    })
    .strict();

const clusterSchema = z.discriminatedUnion("provider", [kindCluster, gkeCluster, existingCluster], {
    errorMap: (issue, ctx) =>
        issue.code === z.ZodIssueCode.invalid_union_discriminator
            ? { message: withFix("provider must be one of kind, gke, existing", "set provider to kind, gke or existing") }
            : { message: ctx.defaultError },
});

const placementSchema = z
    .object({
        clusterNames: z.array(z.string()).min(1).optional(),
        clusterLabels: labelMap.optional(),
        excludeClusters: z.array(z.string()).optional(),
    })
    .strict();

const overrideSchema = z
    .object({
        clusterNames: z.array(z.string()).min(1).optional(),
        clusterProviders: z.array(z.enum(["kind", "gke", "existing"])).min(1).optional(),
        serviceType: z.enum(["ClusterIP", "NodePort", "LoadBalancer"]).optional(),
        storageClassName: z.string().min(1).optional(),
        image: z.string().min(1).optional(),
        /** Raw Karmada plaintext overriders for anything else. */
        plaintext: z
            .array(
                z
                    .object({
                        path: z.string().startsWith("/", withFix("must be a JSON pointer", "start it with '/', e.g. /spec/topology/data/image")),
                        operator: z.enum(["add", "remove", "replace"]),
                        value: z.unknown().optional(),
                    })
                    .strict(),
            )
            .optional(),
    })
    .strict();

const IRIS_IMAGE_MESSAGE = withFix("the IRIS image to run is required", "set it, e.g. containers.intersystems.com/intersystems/iris-community:2025.1");

const irisClusterSchema = z
    .object({
        name: dnsLabel("IrisCluster name"),
        namespace: dnsLabel("namespace").default(DEFAULTS.irisNamespace),
        image: z.string({ required_error: IRIS_IMAGE_MESSAGE }).min(1, IRIS_IMAGE_MESSAGE),
        serviceType: z.enum(["ClusterIP", "NodePort", "LoadBalancer"]).optional(),
        storageClassName: z.string().min(1).optional(),
        placement: placementSchema.default({}),
        policyName: dnsLabel("policyName", 253).optional(),
        licenseKeySecret: z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE).optional(),
        imagePullSecrets: z.array(z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE)).optional(),
        tlsSecret: z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE).optional(),
        overrides: z.array(overrideSchema).default([]),
        /** `pulumi up` returns only when IKO reports this IrisCluster Running on every member it is placed on. */
        waitForRunning: z.boolean().default(true),
        /** How long `up` waits for that; IRIS takes minutes to pull and start. */
        runningTimeoutSeconds: z.number().int().min(10).max(7200).default(DEFAULTS.irisRunningTimeoutSeconds),
        /** Further IrisCluster `spec` fields, merged under the generated ones. */
        spec: z.record(z.unknown()).default({}),
    })
    .strict();

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

const ikoSchema = z
    .object({
        chartPath: z.string().min(1).default(DEFAULTS.ikoChartPath),
        namespace: dnsLabel("namespace").default(DEFAULTS.ikoNamespace),
        releaseName: dnsLabel("releaseName", 53).default(DEFAULTS.ikoReleaseName),
        values: z.record(z.unknown()).default({}),
        imagePullSecretFromConfig: secretConfigRef.optional(),
        crdWaitSeconds: z.number().int().min(10).max(3600).default(DEFAULTS.crdWaitSeconds),
    })
    .strict()
    .default({});

const ciliumSchema = z
    .object({
        version: z
            .string()
            .regex(SEMVER, withFix("must be a chart version such as 1.18.0", "use a Cilium release, e.g. 1.18.0"))
            .default(DEFAULTS.ciliumVersion),
        repo: z.string().url().default(DEFAULTS.ciliumRepo),
        values: z.record(z.unknown()).default({}),
    })
    .strict()
    .default({});

const karmadaSchema = z
    .object({
        chartVersion: z
            .string()
            .regex(/^v\d+\.\d+\.\d+$/, withFix("must be a full chart version with a leading 'v'", "write it as vX.Y.Z, e.g. v1.15.0"))
            .default(DEFAULTS.karmadaChartVersion),
        chartRepo: z.string().url().default(DEFAULTS.karmadaChartRepo),
        kubectlImage: z.string().min(1).default(DEFAULTS.karmadaKubectlImage),
        apiServerNodePort: z.number().int().min(30000).max(32767).default(DEFAULTS.karmadaApiServerNodePort),
        apiServerHostPort: z.number().int().min(1).max(65535).default(DEFAULTS.karmadaApiServerHostPort),
        installTimeoutSeconds: z.number().int().min(60).max(3600).default(DEFAULTS.karmadaInstallTimeoutSeconds),
        // Helm would replace the chart's gates map only key by key, but a stack's map replaces
        // Kamino's default whole: merge here so that setting one gate keeps PropagateDeps on.
        featureGates: z
            .record(z.boolean())
            .default({})
            .transform((gates) => ({ ...KAMINO_FEATURE_GATES, ...gates })),
        values: z.record(z.unknown()).default({}),
        /** Use a Karmada control plane that already runs; no chart is installed. */
        existingKubeconfigPath: z.string().min(1).optional(),
    })
    .strict()
    .default({});

const testingSchema = z
    .object({
        /** Annotate workloads with pulumi.com/skipAwait: for API servers without nodes (tests only). */
        skipAwait: z.boolean().default(false),
    })
    .strict()
    .default({});

/** Every key Kamino reads, with its schema. Any other `kamino:` key is an error. */
const KEY_SCHEMAS = {
    clusters: z.array(clusterSchema).min(1, withFix("must list at least one cluster", "list the Karmada host and at least one member (see the README)")),
    kindNamePrefix: z
        .string()
        .regex(/^([a-z0-9][-a-z0-9]*)?$/, withFix("must be lower-case letters, digits and '-'", "lower-case it and replace any other character with '-'"))
        .max(16)
        .default(""),
    iko: ikoSchema,
    cilium: ciliumSchema,
    karmada: karmadaSchema,
    irisClusters: z.array(irisClusterSchema).default([]),
    secrets: z.array(secretSchema).default([]),
    testing: testingSchema,
} as const;

export type KindClusterConfig = z.infer<typeof kindCluster>;
export type GkeClusterConfig = z.infer<typeof gkeCluster>;
export type ExistingClusterConfig = z.infer<typeof existingCluster>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type PlacementConfig = z.infer<typeof placementSchema>;
export type OverrideConfig = z.infer<typeof overrideSchema>;
export type IrisClusterConfig = z.infer<typeof irisClusterSchema>;
export type SecretConfig = z.infer<typeof secretSchema>;
export type IkoConfig = z.infer<typeof ikoSchema>;
export type CiliumConfig = z.infer<typeof ciliumSchema>;
export type KarmadaConfig = z.infer<typeof karmadaSchema>;

/** The validated fleet: what `Fleet` is built from. */
export interface FleetConfig {
    clusters: ClusterConfig[];
    kindNamePrefix: string;
    iko: IkoConfig;
    cilium: CiliumConfig;
    karmada: KarmadaConfig;
    irisClusters: IrisClusterConfig[];
    secrets: SecretConfig[];
    testing: { skipAwait: boolean };
}

/** Raised when the stack config is invalid; `problems` has one line per problem, each naming its key. */
export class ConfigError extends Error {
    constructor(public readonly problems: string[]) {
        super(
            `Invalid Kamino stack config (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` +
                problems.map((p) => `  - ${p}`).join("\n"),
        );
        this.name = "ConfigError";
    }
}

/** What `loadFleetConfig` needs to know about the environment, injected so the function stays pure. */
export interface ConfigEnvironment {
    /** True when a path (relative to the project directory) exists; used for the IKO chart check. */
    pathExists?: (path: string) => boolean;
    /** True when `kamino:<key>` is a Pulumi secret. */
    isSecret?: (key: string) => boolean;
}

/** A key path below `kamino:`, as zod reports it: `["clusters", 2, "name"]` is `kamino:clusters[2].name`. */
export type ConfigPath = (string | number)[];

/** One thing wrong with the stack config. The offending value is looked up by `path` when rendered. */
export interface Problem {
    path: ConfigPath;
    /** What is wrong, without the value (rendering adds it, or hides it when secret). */
    reason: string;
    /** What the user should do. */
    fix: string;
}

/**
 * Parses and validates the `kamino:*` stack config.
 *
 * @param raw every config value of the stack, keyed `kamino:<key>` (as `pulumi.runtime.allConfig()`
 *            returns them: JSON text for objects and lists).
 * @throws ConfigError listing every problem found, before any resource exists.
 */
export function loadFleetConfig(raw: Record<string, string>, env: ConfigEnvironment = {}): FleetConfig {
    const input = configInput(raw);
    const problems: Problem[] = [];
    const parsed: Record<string, unknown> = {};
    for (const [short, schema] of Object.entries(KEY_SCHEMAS)) {
        const result = (schema as z.ZodTypeAny).safeParse(input[short]);
        if (result.success) {
            parsed[short] = result.data;
        } else {
            problems.push(...result.error.issues.flatMap((issue) => problemsOfIssue(short, issue)));
        }
    }
    // Cross-key checks need the cluster list; without it, report what the schemas found.
    if (parsed.clusters !== undefined) {
        const cfg = parsed as CheckedConfig;
        problems.push(...CROSS_CHECKS.flatMap((check) => check(cfg, { input, env })));
    }
    if (problems.length > 0) {
        throw new ConfigError(renderProblems(problems, { input, parsed, secretKeys: secretKeysOf(input, env) }));
    }
    return parsed as unknown as FleetConfig;
}

/** Every `kamino:` key of the stack (prefix dropped), its value parsed from JSON where it is JSON. */
function configInput(raw: Record<string, string>): Record<string, unknown> {
    const prefix = `${CONFIG_NAMESPACE}:`;
    // No prototype: keys are user input, and `constructor` or `__proto__` must not look set.
    const input: Record<string, unknown> = Object.create(null);
    for (const [key, text] of Object.entries(raw)) {
        if (!key.startsWith(prefix)) continue;
        try {
            input[key.slice(prefix.length)] = JSON.parse(text);
        } catch {
            input[key.slice(prefix.length)] = text; // plain strings such as kindNamePrefix
        }
    }
    return input;
}

// ---------------------------------------------------------------------------------------------
// Schema issues -> problems

/** One problem per zod issue; an unknown-fields issue becomes one problem per field, at that field. */
function problemsOfIssue(short: string, issue: z.ZodIssue): Problem[] {
    const path = [short, ...issue.path];
    if (issue.code === z.ZodIssueCode.unrecognized_keys) {
        return issue.keys.map((field) => ({
            path: [...path, field],
            reason: "unknown field",
            fix: `remove it or correct its spelling; the README lists the fields of ${CONFIG_NAMESPACE}:${short}`,
        }));
    }
    return [{ path, ...describeIssue(issue) }];
}

/**
 * Reason and fix of a zod issue. A schema's own message (reason and fix joined by FIX_MARK) wins;
 * otherwise both are built from the issue code, never from zod's default text, which can quote the value.
 */
export function describeIssue(issue: z.ZodIssue): { reason: string; fix: string } {
    const [reason, fix] = issue.message.split(FIX_MARK);
    if (fix !== undefined) return { reason, fix };
    const see = "see the README's Stack config section";
    switch (issue.code) {
        case z.ZodIssueCode.invalid_type:
            if (issue.received === "undefined") return { reason: "this field is required", fix: `set it; ${see}` };
            if (issue.expected === "integer") return { reason: "must be a whole number", fix: "drop the fraction" };
            return {
                reason: `must be ${article(issue.expected)}, not ${article(issue.received)}`,
                fix:
                    (issue.expected === "number" || issue.expected === "boolean") && issue.received === "string"
                        ? `write it without quotes`
                        : `write it as ${article(issue.expected)}`,
            };
        case z.ZodIssueCode.invalid_enum_value:
            return { reason: "is not one of the allowed values", fix: `use one of ${issue.options.join(", ")}` };
        case z.ZodIssueCode.too_small:
            if (issue.type === "string" && Number(issue.minimum) === 1) return { reason: "is empty", fix: "give a value or remove the field" };
            if (issue.type === "array") return { reason: `has fewer than ${issue.minimum} entries`, fix: `list at least ${issue.minimum}` };
            if (issue.type === "string") return { reason: `is shorter than ${issue.minimum} characters`, fix: "lengthen it" };
            return { reason: `is less than ${issue.minimum}`, fix: `use a number of at least ${issue.minimum}` };
        case z.ZodIssueCode.too_big:
            if (issue.type === "array") return { reason: `has more than ${issue.maximum} entries`, fix: `list at most ${issue.maximum}` };
            if (issue.type === "string") return { reason: `is longer than ${issue.maximum} characters`, fix: `shorten it to at most ${issue.maximum}` };
            return { reason: `is more than ${issue.maximum}`, fix: `use a number of at most ${issue.maximum}` };
        case z.ZodIssueCode.invalid_string:
            if (issue.validation === "url") return { reason: "is not a URL", fix: "give a full URL, e.g. https://helm.cilium.io" };
            return { reason: "is not in the expected format", fix: see };
        default:
            return { reason: "is not valid", fix: see };
    }
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

// ---------------------------------------------------------------------------------------------
// Cross-key checks: each a pure function of the parsed config, composed in CROSS_CHECKS.

/**
 * The config the cross-key checks see: the cluster list parsed, other keys possibly not (their
 * schema problems are reported already), hence optional.
 */
export type CheckedConfig = Pick<FleetConfig, "clusters"> & Partial<Omit<FleetConfig, "clusters">>;

/** What a check may look at besides the parsed config. */
export interface CheckContext {
    /** Every `kamino:` key of the stack, as `configInput` parsed it. */
    input: Record<string, unknown>;
    env: ConfigEnvironment;
}

export type ConfigCheck = (cfg: CheckedConfig, ctx: CheckContext) => Problem[];

/** Cluster names must be unique: they name kind clusters, Karmada `Cluster`s and placements. */
export function checkNamesUnique(cfg: CheckedConfig): Problem[] {
    const first = new Map<string, number>();
    const problems: Problem[] = [];
    cfg.clusters.forEach((c, i) => {
        const earlier = first.get(c.name);
        if (earlier === undefined) first.set(c.name, i);
        else problems.push({ path: ["clusters", i, "name"], reason: `duplicate cluster name (also clusters[${earlier}])`, fix: "rename one of them; names must be unique" });
    });
    return problems;
}

/** Exactly one cluster hosts the Karmada control plane. */
export function checkHostCount(cfg: CheckedConfig): Problem[] {
    const hosts = cfg.clusters.filter((c) => c.karmadaHost);
    if (hosts.length === 0) {
        return [{ path: ["clusters"], reason: "no cluster has 'karmadaHost: true'", fix: "mark exactly one kind (or existing) cluster as the Karmada host" }];
    }
    if (hosts.length > 1) {
        return [
            {
                path: ["clusters"],
                reason: `${hosts.length} clusters have 'karmadaHost: true' (${hosts.map((c) => c.name).join(", ")})`,
                fix: "keep it on exactly one cluster; the others join as members",
            },
        ];
    }
    return [];
}

/** The Karmada host must be reachable from this machine and reach the kind members: not GKE. */
export function checkHostProvider(cfg: CheckedConfig): Problem[] {
    return cfg.clusters.flatMap((c, i) =>
        c.karmadaHost && c.provider === "gke"
            ? [
                  {
                      path: ["clusters", i, "karmadaHost"],
                      reason:
                          "a gke cluster cannot host Karmada in this lab: the Karmada API must be reachable from the machine running " +
                          "'pulumi up' and the kind members are only reachable on the local Docker network",
                      fix: `host Karmada on a kind cluster and join '${c.name}' as a member`,
                  },
              ]
            : [],
    );
}

/** Federation needs somewhere to propagate to. */
export function checkHasMember(cfg: CheckedConfig): Problem[] {
    return cfg.clusters.length < 2
        ? [{ path: ["clusters"], reason: "a fleet needs the Karmada host and at least one member cluster", fix: "add a member cluster" }]
        : [];
}

/** kind prefixes names with kindNamePrefix; the result is the Karmada `Cluster` name's source too. */
export function checkKindNameLength(cfg: CheckedConfig): Problem[] {
    return cfg.clusters.flatMap((c, i) => {
        const full = `${cfg.kindNamePrefix ?? ""}${c.name}`;
        return c.provider === "kind" && full.length > MAX_CLUSTER_NAME_LENGTH
            ? [
                  {
                      path: ["clusters", i, "name"],
                      reason: `with kindNamePrefix the kind cluster name '${full}' is longer than ${MAX_CLUSTER_NAME_LENGTH} characters`,
                      fix: "shorten the name or kindNamePrefix",
                  },
              ]
            : [];
    });
}

/** GKE's own rules for names and locations, which the shared cluster schema cannot express. */
export function checkGkeClusters(cfg: CheckedConfig): Problem[] {
    const problems: Problem[] = [];
    cfg.clusters.forEach((c, i) => {
        if (c.provider !== "gke") return;
        const at = (field: string): ConfigPath => ["clusters", i, field];
        if (c.name.length > 40 || !/^[a-z]/.test(c.name)) {
            problems.push({ path: at("name"), reason: "GKE cluster names start with a letter and have at most 40 characters", fix: "rename it" });
        }
        if (!c.project) {
            problems.push({
                path: at("project"),
                reason: `a gke cluster needs the GCP project to create '${c.name}' in`,
                fix: `pulumi config set --path '${CONFIG_NAMESPACE}:clusters[${i}].project' <project-id>`,
            });
        }
        if (c.region === undefined && c.zone === undefined) {
            problems.push({ path: at("region"), reason: "a gke cluster needs a location", fix: "set 'region' (us-central1, regional) or 'zone' (us-central1-a, zonal)" });
        } else if (c.region !== undefined && c.zone !== undefined) {
            problems.push({ path: at("zone"), reason: "'region' is set too", fix: "set either 'region' (a regional cluster) or 'zone' (a zonal cluster), not both" });
        } else if (c.region !== undefined && !/^[a-z]+-[a-z]+\d+$/.test(c.region)) {
            problems.push({ path: at("region"), reason: "is not a GCP region such as us-central1", fix: "use a region that 'gcloud compute regions list' shows" });
        }
        if (c.zones !== undefined) {
            problems.push({ path: at("zones"), reason: "not used for gke clusters; the Karmada zone comes from 'zone'", fix: "remove 'zones'" });
        }
    });
    return problems;
}

/** Files the program reads must exist: a missing one would otherwise fail mid-`up`. */
export function checkFilesExist(cfg: CheckedConfig, { env }: CheckContext): Problem[] {
    const exists = env.pathExists;
    if (!exists) return [];
    const problems: Problem[] = [];
    cfg.clusters.forEach((c, i) => {
        if (c.provider === "existing" && !exists(c.kubeconfigPath)) {
            problems.push({ path: ["clusters", i, "kubeconfigPath"], reason: "file does not exist", fix: "give the path of the cluster's kubeconfig file" });
        }
    });
    if (cfg.iko && !exists(`${cfg.iko.chartPath}/Chart.yaml`)) {
        problems.push({
            path: ["iko", "chartPath"],
            reason: "no Helm chart there (no Chart.yaml). IKO is not on a public Helm repo",
            fix:
                "download the IKO tarball from InterSystems (WRC or the InterSystems Container Registry), unpack it and set " +
                `'pulumi config set --path ${CONFIG_NAMESPACE}:iko.chartPath <dir>/chart/iris-operator'`,
        });
    }
    if (cfg.karmada?.existingKubeconfigPath && !exists(cfg.karmada.existingKubeconfigPath)) {
        problems.push({ path: ["karmada", "existingKubeconfigPath"], reason: "file does not exist", fix: "give the path of the Karmada API's kubeconfig file" });
    }
    return problems;
}

/** IrisClusters are unique per namespace, and each override says which members it is for. */
export function checkIrisClusters(cfg: CheckedConfig): Problem[] {
    const problems: Problem[] = [];
    const members = memberNames(cfg);
    const first = new Map<string, number>();
    (cfg.irisClusters ?? []).forEach((ic, i) => {
        const id = `${ic.namespace}/${ic.name}`;
        const earlier = first.get(id);
        if (earlier === undefined) first.set(id, i);
        else problems.push({ path: ["irisClusters", i, "name"], reason: `duplicate IrisCluster '${id}' (also irisClusters[${earlier}])`, fix: "rename one or put it in another namespace" });
        ic.overrides.forEach((o, j) => {
            if (!o.clusterNames && !o.clusterProviders) {
                problems.push({ path: ["irisClusters", i, "overrides", j], reason: "the override names no clusters", fix: "set clusterNames or clusterProviders to say which members the override is for" });
            }
            (o.clusterNames ?? []).forEach((n, m) => {
                if (!members.has(n)) {
                    problems.push({ path: ["irisClusters", i, "overrides", j, "clusterNames", m], reason: "is not a member cluster of this fleet", fix: useMembers(members) });
                }
            });
        });
    });
    return problems;
}

/** Placements of IrisClusters and Secrets name member clusters of this fleet. */
export function checkPlacements(cfg: CheckedConfig): Problem[] {
    const names = new Set(cfg.clusters.map((c) => c.name));
    const members = memberNames(cfg);
    const check = (at: ConfigPath, p: PlacementConfig | undefined): Problem[] =>
        (["clusterNames", "excludeClusters"] as const).flatMap((field) =>
            (p?.[field] ?? []).flatMap((n, j): Problem[] => {
                const path = [...at, field, j];
                if (!names.has(n)) return [{ path, reason: `is not a cluster of this fleet (known: ${[...names].join(", ")})`, fix: useMembers(members) }];
                if (!members.has(n)) return [{ path, reason: "hosts Karmada and is not a member; workloads can only be placed on members", fix: useMembers(members) }];
                return [];
            }),
        );
    return [
        ...(cfg.irisClusters ?? []).flatMap((ic, i) => check(["irisClusters", i, "placement"], ic.placement)),
        ...(cfg.secrets ?? []).flatMap((s, i) => check(["secrets", i, "placement"], s.placement)),
    ];
}

/** Synced Secrets are unique, and each names a secret config key holding the fields its type needs. */
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

function checkSecretSource(at: ConfigPath, key: string, type: SecretConfig["type"], input: Record<string, unknown>, env: ConfigEnvironment): Problem[] {
    const full = `${CONFIG_NAMESPACE}:${key}`;
    if (!hasOwn(input, key)) {
        return [{ path: at, reason: `config key '${full}' is not set`, fix: `set it with 'pulumi config set --secret ${full} ...'` }];
    }
    const problems: Problem[] = [];
    if (env.isSecret && !env.isSecret(full)) {
        problems.push({ path: at, reason: `config key '${full}' is not a secret`, fix: `set it again with 'pulumi config set --secret ${full} ...'` });
    }
    const value = input[key];
    const required = SECRET_KEYS[type];
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
        const fields = required.length > 0 ? ` with ${required.map((r) => `'${r}'`).join(", ")}` : " of fields";
        problems.push({ path: at, reason: `'${full}' must be an object${fields}`, fix: `use 'pulumi config set --secret --path ${full}.<field> ...'` });
        return problems;
    }
    const missing = required.filter((r) => typeof (value as Record<string, unknown>)[r] !== "string");
    if (missing.length > 0) {
        problems.push({
            path: at,
            reason: `'${full}' lacks ${missing.map((m) => `'${m}'`).join(", ")} for a ${type} Secret`,
            fix: `set ${missing.length > 1 ? "them" : "it"} with 'pulumi config set --secret --path ${full}.${missing[0]} ...'`,
        });
    }
    return problems;
}

/** Secrets an IrisCluster refers to must be synced to every member the IrisCluster goes to. */
export function checkSecretReferences(cfg: CheckedConfig): Problem[] {
    const secrets = cfg.secrets ?? [];
    const index = new Map(secrets.map((s, i) => [`${s.namespace}/${s.name}`, i]));
    return (cfg.irisClusters ?? []).flatMap((ic, i) => {
        const refs: Array<[ConfigPath, string]> = [];
        if (ic.licenseKeySecret) refs.push([["licenseKeySecret"], ic.licenseKeySecret]);
        (ic.imagePullSecrets ?? []).forEach((n, j) => refs.push([["imagePullSecrets", j], n]));
        if (ic.tlsSecret) refs.push([["tlsSecret"], ic.tlsSecret]);
        return refs.flatMap(([field, secretName]): Problem[] => {
            const path = ["irisClusters", i, ...field];
            const idx = index.get(`${ic.namespace}/${secretName}`);
            if (idx === undefined) {
                return [{ path, reason: `Secret '${ic.namespace}/${secretName}' is not in ${CONFIG_NAMESPACE}:secrets`, fix: "add it there so Karmada syncs it to the members" }];
            }
            const secretTargets = new Set(resolvePlacement(cfg.clusters, secrets[idx].placement));
            const missing = resolvePlacement(cfg.clusters, ic.placement).filter((t) => !secretTargets.has(t));
            return missing.length > 0
                ? [
                      {
                          path,
                          reason: `IrisCluster '${ic.name}' goes to ${missing.join(", ")} but ${CONFIG_NAMESPACE}:secrets[${idx}] ('${secretName}') is not synced there`,
                          fix: "widen the Secret's placement",
                      },
                  ]
                : [];
        });
    });
}

/** Any other key in the namespace is a typo or a leftover: neither a known key nor a secret source. */
export function checkUnknownKeys(cfg: CheckedConfig, { input }: CheckContext): Problem[] {
    const sources = new Set(secretSourceKeys(cfg));
    return Object.keys(input)
        .filter((short) => !hasOwn(KEY_SCHEMAS, short) && !sources.has(short))
        .map((short) => {
            const hint = closestKey(short);
            return {
                path: [short],
                reason: `unknown config key${hint ? ` (did you mean ${CONFIG_NAMESPACE}:${hint}?)` : ""}`,
                fix: `remove it with 'pulumi config rm ${CONFIG_NAMESPACE}:${short}'`,
            };
        });
}

/** The checks run once the cluster list parses, in the order their problems are listed. */
const CROSS_CHECKS: ConfigCheck[] = [
    checkNamesUnique,
    checkHostCount,
    checkHostProvider,
    checkHasMember,
    checkKindNameLength,
    checkGkeClusters,
    checkFilesExist,
    checkIrisClusters,
    checkPlacements,
    checkSecrets,
    checkSecretReferences,
    checkUnknownKeys,
];

const hasOwn = (o: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(o, key);
const memberNames = (cfg: CheckedConfig) => new Set(cfg.clusters.filter((c) => !c.karmadaHost).map((c) => c.name));
const useMembers = (members: Set<string>) => (members.size > 0 ? `use a member cluster: ${[...members].join(", ")}` : "add a member cluster first");

/**
 * Config keys that hold secret values for Secrets and the IKO pull secret. Reads loosely typed
 * input too, so that secret values stay hidden even when `kamino:secrets` itself fails to parse.
 */
function secretSourceKeys(cfg: { secrets?: unknown; iko?: unknown }): string[] {
    const keys: string[] = [];
    if (Array.isArray(cfg.secrets)) {
        for (const s of cfg.secrets) if (typeof s?.fromConfig === "string") keys.push(s.fromConfig);
    }
    const iko = cfg.iko as { imagePullSecretFromConfig?: unknown } | undefined;
    if (typeof iko?.imagePullSecretFromConfig === "string") keys.push(iko.imagePullSecretFromConfig);
    return keys;
}

// ---------------------------------------------------------------------------------------------
// Rendering: `kamino:<path> = <value>: <reason>; fix: <fix>`, or `... is missing: ...`

/** Stands in for every value read from a secret config key. */
export const SECRET_PLACEHOLDER = "[secret]";
/** Longest rendered value; longer ones are cut, since the point is to recognise the value, not to dump it. */
export const MAX_SHOWN_VALUE = 60;
/** Secret strings shorter than this are not scrubbed from reasons: too likely to match ordinary words. */
const MIN_SCRUBBED_SECRET = 6;

/** Where rendering finds the offending values, and which keys must not show theirs. */
interface RenderContext {
    input: Record<string, unknown>;
    /** Keys that parsed, defaults filled in: shows a defaulted value the input lacks. */
    parsed: Record<string, unknown>;
    secretKeys: Set<string>;
}

/** Keys (without prefix) whose values are secret: Pulumi says so, or a Secret reads its values from it. */
function secretKeysOf(input: Record<string, unknown>, env: ConfigEnvironment): Set<string> {
    const marked = Object.keys(input).filter((short) => env.isSecret?.(`${CONFIG_NAMESPACE}:${short}`) === true);
    return new Set([...marked, ...secretSourceKeys(input)]);
}

function renderProblems(problems: Problem[], ctx: RenderContext): string[] {
    const secrets = secretStrings(ctx);
    return problems.map((p) => scrub(renderProblem(p, ctx), secrets));
}

function renderProblem(p: Problem, ctx: RenderContext): string {
    return `${configKey(p.path)} ${showAt(p.path, ctx)}: ${p.reason}; fix: ${p.fix}`;
}

/** `["clusters", 2, "name"]` -> `kamino:clusters[2].name`. */
export function configKey(path: ConfigPath): string {
    const [short, ...rest] = path;
    return `${CONFIG_NAMESPACE}:${short}${rest.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("")}`;
}

/** `= <value>`, `= <value> (default)`, `= [secret]` or `is missing`. */
function showAt(path: ConfigPath, ctx: RenderContext): string {
    const given = lookup(ctx.input, path);
    const found = given.found ? given : lookup(ctx.parsed, path);
    if (!found.found) return "is missing";
    const shown = ctx.secretKeys.has(String(path[0])) ? SECRET_PLACEHOLDER : showValue(found.value);
    return given.found ? `= ${shown}` : `= ${shown} (default)`;
}

/** A value as short JSON, cut to MAX_SHOWN_VALUE characters; JSON escapes quotes and newlines. */
export function showValue(value: unknown): string {
    const json = JSON.stringify(value) ?? String(value);
    return json.length > MAX_SHOWN_VALUE ? `${json.slice(0, MAX_SHOWN_VALUE - 1)}…` : json;
}

/** The value at a path, distinguishing "absent" from a present `undefined`-free JSON value. */
export function lookup(root: unknown, path: ConfigPath): { found: boolean; value?: unknown } {
    let here: unknown = root;
    for (const step of path) {
        if (typeof here !== "object" || here === null || !hasOwn(here, step)) return { found: false };
        here = (here as Record<string | number, unknown>)[step];
    }
    return here === undefined ? { found: false } : { found: true, value: here };
}

/**
 * Strings of secret keys that reasons may quote. Reasons quote only parsed config (cluster, Secret and
 * IrisCluster names), so this guards the odd stack that marks a whole structural key such as
 * `kamino:clusters` secret; values of other secret keys only ever appear through `showAt`, masked.
 */
function secretStrings(ctx: RenderContext): string[] {
    const out: string[] = [];
    const walk = (v: unknown): void => {
        if (typeof v === "string") out.push(v);
        else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
        else if (Array.isArray(v)) v.forEach(walk);
        else if (typeof v === "object" && v !== null) Object.values(v).forEach(walk);
    };
    for (const key of ctx.secretKeys) if (hasOwn(KEY_SCHEMAS, key)) walk(ctx.input[key]);
    // Longest first, so a secret containing another is cut whole.
    return [...new Set(out)].filter((s) => s.length >= MIN_SCRUBBED_SECRET).sort((a, b) => b.length - a.length);
}

function scrub(line: string, secrets: string[]): string {
    return secrets.reduce((l, s) => l.split(s).join(SECRET_PLACEHOLDER), line);
}

/** The fields each Secret type needs in its secret config value. */
export const SECRET_KEYS: Record<SecretConfig["type"], string[]> = {
    opaque: [],
    dockerconfigjson: ["server", "username", "password"],
    tls: ["tls.crt", "tls.key"],
};

/**
 * The member clusters a placement selects, in fleet order. No placement (or an empty one) means
 * every member; label selection matches the `labels` given to clusters in config.
 */
export function resolvePlacement(clusters: ClusterConfig[], placement: PlacementConfig | undefined): string[] {
    const exclude = new Set(placement?.excludeClusters ?? []);
    return clusters
        .filter((c) => !c.karmadaHost)
        .filter((c) => !placement?.clusterNames || placement.clusterNames.includes(c.name))
        .filter((c) =>
            Object.entries(placement?.clusterLabels ?? {}).every(([key, value]) => c.labels[key] === value),
        )
        .filter((c) => !exclude.has(c.name))
        .map((c) => c.name);
}

function closestKey(name: string): string | undefined {
    const lower = name.toLowerCase();
    return Object.keys(KEY_SCHEMAS).find((k) => k.toLowerCase() === lower || levenshtein(k.toLowerCase(), lower) <= 2);
}

function levenshtein(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++)
            d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
}
