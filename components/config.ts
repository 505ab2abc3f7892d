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

const dnsLabel = (what: string, max = 63) =>
    z
        .string()
        .max(max, `${what} must be at most ${max} characters`)
        .regex(DNS1123_LABEL, `${what} must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit`);

const labelMap = z.record(
    z.string().regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, "is not a valid label key"),
    z.string().max(63).regex(LABEL_VALUE, "is not a valid label value"),
);

const secretConfigRef = z
    .string()
    .regex(CONFIG_KEY, "must name another kamino config key (without the 'kamino:' prefix)");

const clusterBase = {
    name: dnsLabel("cluster name", MAX_CLUSTER_NAME_LENGTH),
    karmadaHost: z.boolean().default(false),
    labels: labelMap.default({}),
    region: z.string().regex(LABEL_VALUE, "must be a valid label value").optional(),
    zones: z.array(z.string().regex(LABEL_VALUE, "must be a valid label value")).optional(),
};

const kindCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("kind"),
        workers: z.number().int().min(0).max(10).default(DEFAULTS.kindWorkers),
        nodeImage: z.string().min(1).optional(),
        podSubnet: z.string().regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, "must be an IPv4 CIDR").optional(),
        serviceSubnet: z.string().regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, "must be an IPv4 CIDR").optional(),
    })
    .strict();

const gkeCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("gke"),
        project: z.string().min(1, "is required for a gke cluster").optional(),
        /** A single zone makes a zonal cluster; set either this or `region` (a regional cluster). */
        zone: z.string().regex(/^[a-z]+-[a-z]+\d+-[a-z]$/, "must be a GCP zone such as us-central1-a").optional(),
        nodeCount: z.number().int().min(1).max(100).default(DEFAULTS.gkeNodeCount),
        machineType: z.string().min(1).default(DEFAULTS.gkeMachineType),
        network: z.string().min(1).optional(),
        subnetwork: z.string().min(1).optional(),
        releaseChannel: z.enum(["RAPID", "REGULAR", "STABLE", "EXTENDED"]).default(DEFAULTS.gkeReleaseChannel),
        /** CIDRs allowed to reach the control plane; the laptop running Karmada must be among them. */
        authorizedNetworks: z.array(z.string().regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, "must be an IPv4 CIDR")).optional(),
    })
    .strict();

const existingCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("existing"),
        kubeconfigPath: z.string().min(1, "is required for an existing cluster"),
        context: z.string().min(1).optional(),
        apiEndpoint: z.string().url("must be an https:// URL").optional(),
    })
    .strict();

const clusterSchema = z.discriminatedUnion("provider", [kindCluster, gkeCluster, existingCluster], {
    errorMap: (issue, ctx) =>
        issue.code === z.ZodIssueCode.invalid_union_discriminator
            ? { message: "provider must be one of kind, gke, existing" }
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
                        path: z.string().startsWith("/", "must be a JSON pointer starting with '/'"),
                        operator: z.enum(["add", "remove", "replace"]),
                        value: z.unknown().optional(),
                    })
                    .strict(),
            )
            .optional(),
    })
    .strict();

const irisClusterSchema = z
    .object({
        name: dnsLabel("IrisCluster name"),
        namespace: dnsLabel("namespace").default(DEFAULTS.irisNamespace),
        image: z.string({ required_error: "is required: the IRIS image to run" }).min(1, "is required: the IRIS image to run"),
        serviceType: z.enum(["ClusterIP", "NodePort", "LoadBalancer"]).optional(),
        storageClassName: z.string().min(1).optional(),
        placement: placementSchema.default({}),
        policyName: dnsLabel("policyName", 253).optional(),
        licenseKeySecret: z.string().regex(DNS1123_SUBDOMAIN).optional(),
        imagePullSecrets: z.array(z.string().regex(DNS1123_SUBDOMAIN)).optional(),
        tlsSecret: z.string().regex(DNS1123_SUBDOMAIN).optional(),
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
        name: z.string().regex(DNS1123_SUBDOMAIN, "must be a DNS-1123 subdomain"),
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
        version: z.string().regex(SEMVER, "must be a chart version such as 1.18.0").default(DEFAULTS.ciliumVersion),
        repo: z.string().url().default(DEFAULTS.ciliumRepo),
        values: z.record(z.unknown()).default({}),
    })
    .strict()
    .default({});

const karmadaSchema = z
    .object({
        chartVersion: z
            .string()
            .regex(/^v\d+\.\d+\.\d+$/, "must be a full chart version with a leading 'v', such as v1.15.0")
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
    clusters: z.array(clusterSchema).min(1, "must list at least one cluster"),
    kindNamePrefix: z
        .string()
        .regex(/^([a-z0-9][-a-z0-9]*)?$/, "must be lower-case letters, digits and '-'")
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

/**
 * Parses and validates the `kamino:*` stack config.
 *
 * @param raw every config value of the stack, keyed `kamino:<key>` (as `pulumi.runtime.allConfig()`
 *            returns them: JSON text for objects and lists).
 * @throws ConfigError listing every problem found, before any resource exists.
 */
export function loadFleetConfig(raw: Record<string, string>, env: ConfigEnvironment = {}): FleetConfig {
    const problems: string[] = [];
    const values: Record<string, unknown> = {};
    const prefix = `${CONFIG_NAMESPACE}:`;
    const referencedSecrets = new Set<string>();

    // Keys referenced as secret sources are allowed besides the known ones; collect them first.
    const referenceable = new Set(
        Object.keys(raw)
            .filter((k) => k.startsWith(prefix))
            .map((k) => k.slice(prefix.length)),
    );

    for (const key of Object.keys(raw)) {
        if (!key.startsWith(prefix)) continue;
        const short = key.slice(prefix.length);
        if (!(short in KEY_SCHEMAS)) continue;
        try {
            values[short] = JSON.parse(raw[key]);
        } catch {
            values[short] = raw[key]; // plain strings such as kindNamePrefix
        }
    }

    const parsed: Record<string, unknown> = {};
    for (const [short, schema] of Object.entries(KEY_SCHEMAS)) {
        const result = (schema as z.ZodTypeAny).safeParse(values[short]);
        if (result.success) {
            parsed[short] = result.data;
        } else {
            for (const issue of result.error.issues) {
                problems.push(`${prefix}${short}${formatPath(issue.path)}: ${describeIssue(issue, short)}`);
            }
        }
    }
    if (problems.length > 0 && parsed.clusters === undefined) {
        // Cross-key checks need the cluster list; report what we have.
        throw new ConfigError(problems);
    }

    const cfg = parsed as unknown as FleetConfig;
    problems.push(...crossCheck(cfg, raw, env, referenceable, referencedSecrets));

    // Unknown keys: anything in the namespace that is neither a known key nor a referenced secret source.
    for (const short of referenceable) {
        if (!(short in KEY_SCHEMAS) && !referencedSecrets.has(short)) {
            const hint = closestKey(short);
            problems.push(
                `${prefix}${short}: unknown config key${hint ? ` (did you mean ${prefix}${hint}?)` : ""}; ` +
                    `remove it with 'pulumi config rm ${prefix}${short}'`,
            );
        }
    }

    if (problems.length > 0) throw new ConfigError(problems);
    return cfg;
}

function crossCheck(
    cfg: FleetConfig,
    raw: Record<string, string>,
    env: ConfigEnvironment,
    present: Set<string>,
    referencedSecrets: Set<string>,
): string[] {
    const problems: string[] = [];
    const k = (s: string) => `${CONFIG_NAMESPACE}:${s}`;
    const clusters = cfg.clusters ?? [];
    const names = new Map<string, number>();
    clusters.forEach((c, i) => {
        if (names.has(c.name)) {
            problems.push(`${k(`clusters[${i}].name`)}: duplicate cluster name '${c.name}' (also clusters[${names.get(c.name)}]); names must be unique`);
        } else {
            names.set(c.name, i);
        }
    });

    const hosts = clusters.map((c, i) => ({ c, i })).filter(({ c }) => c.karmadaHost);
    if (hosts.length === 0) {
        problems.push(`${k("clusters")}: no cluster has 'karmadaHost: true'; mark exactly one kind (or existing) cluster as the Karmada host`);
    } else if (hosts.length > 1) {
        problems.push(
            `${k("clusters")}: ${hosts.length} clusters have 'karmadaHost: true' (${hosts.map(({ c }) => c.name).join(", ")}); exactly one may host Karmada`,
        );
    }
    for (const { c, i } of hosts) {
        if (c.provider === "gke") {
            problems.push(
                `${k(`clusters[${i}].karmadaHost`)}: a gke cluster cannot host Karmada in this lab: the Karmada API must be reachable ` +
                    `from the machine running 'pulumi up' and the kind members are only reachable on the local Docker network. ` +
                    `Host Karmada on a kind cluster and join '${c.name}' as a member`,
            );
        }
    }
    if (clusters.length < 2) {
        problems.push(`${k("clusters")}: a fleet needs the Karmada host and at least one member cluster`);
    }

    const kindNameMax = MAX_CLUSTER_NAME_LENGTH;
    clusters.forEach((c, i) => {
        const at = `clusters[${i}]`;
        if (c.provider === "kind") {
            const full = `${cfg.kindNamePrefix ?? ""}${c.name}`;
            if (full.length > kindNameMax) {
                problems.push(`${k(`${at}.name`)}: kind cluster name '${full}' (with kindNamePrefix) is longer than ${kindNameMax} characters`);
            }
        }
        if (c.provider === "gke") {
            if (c.name.length > 40 || !/^[a-z]/.test(c.name)) {
                problems.push(`${k(`${at}.name`)}: GKE cluster names start with a letter and have at most 40 characters ('${c.name}')`);
            }
            if (!c.project) problems.push(`${k(`${at}.project`)}: is required for a gke cluster: the GCP project ID to create '${c.name}' in`);
            if (c.region === undefined && c.zone === undefined) {
                problems.push(`${k(`${at}.region`)}: a gke cluster needs a location: set 'region' (us-central1, regional) or 'zone' (us-central1-a, zonal)`);
            } else if (c.region !== undefined && c.zone !== undefined) {
                problems.push(`${k(`${at}.zone`)}: set either 'region' (a regional cluster) or 'zone' (a zonal cluster), not both`);
            } else if (c.region !== undefined && !/^[a-z]+-[a-z]+\d+$/.test(c.region)) {
                problems.push(`${k(`${at}.region`)}: '${c.region}' is not a GCP region such as us-central1`);
            }
            if (c.zones !== undefined) {
                problems.push(`${k(`${at}.zones`)}: not used for gke clusters; the Karmada zone comes from 'zone'`);
            }
        }
        if (c.provider === "existing" && env.pathExists && !env.pathExists(c.kubeconfigPath)) {
            problems.push(`${k(`${at}.kubeconfigPath`)}: file '${c.kubeconfigPath}' does not exist`);
        }
    });

    if (cfg.iko && env.pathExists && !env.pathExists(`${cfg.iko.chartPath}/Chart.yaml`)) {
        problems.push(
            `${k("iko.chartPath")}: no Helm chart at '${cfg.iko.chartPath}' (no Chart.yaml). IKO is not on a public Helm repo: ` +
                `download the IKO tarball from InterSystems (WRC or the InterSystems Container Registry), unpack it and set ` +
                `'pulumi config set --path ${k("iko.chartPath")} <dir>/chart/iris-operator'`,
        );
    }

    if (cfg.karmada?.existingKubeconfigPath && env.pathExists && !env.pathExists(cfg.karmada.existingKubeconfigPath)) {
        problems.push(`${k("karmada.existingKubeconfigPath")}: file '${cfg.karmada.existingKubeconfigPath}' does not exist`);
    }

    const memberNames = new Set(clusters.filter((c) => !c.karmadaHost).map((c) => c.name));
    const checkPlacement = (at: string, p: PlacementConfig | undefined) => {
        for (const [field, list] of [
            ["clusterNames", p?.clusterNames],
            ["excludeClusters", p?.excludeClusters],
        ] as const) {
            (list ?? []).forEach((n, j) => {
                if (!names.has(n)) {
                    problems.push(`${k(`${at}.${field}[${j}]`)}: '${n}' is not a cluster of this fleet (known: ${[...names.keys()].join(", ")})`);
                } else if (!memberNames.has(n)) {
                    problems.push(`${k(`${at}.${field}[${j}]`)}: '${n}' hosts Karmada and is not a member; workloads can only be placed on members`);
                }
            });
        }
    };

    const irisNames = new Set<string>();
    (cfg.irisClusters ?? []).forEach((ic, i) => {
        const at = `irisClusters[${i}]`;
        const id = `${ic.namespace}/${ic.name}`;
        if (irisNames.has(id)) problems.push(`${k(`${at}.name`)}: duplicate IrisCluster '${id}'`);
        irisNames.add(id);
        checkPlacement(`${at}.placement`, ic.placement);
        ic.overrides.forEach((o, j) => {
            if (!o.clusterNames && !o.clusterProviders) {
                problems.push(`${k(`${at}.overrides[${j}]`)}: set clusterNames or clusterProviders to say which members the override is for`);
            }
            (o.clusterNames ?? []).forEach((n, m) => {
                if (!memberNames.has(n)) problems.push(`${k(`${at}.overrides[${j}].clusterNames[${m}]`)}: '${n}' is not a member cluster of this fleet`);
            });
        });
    });

    // Secrets: each names a secret config key holding its values.
    const secretIds = new Map<string, number>();
    (cfg.secrets ?? []).forEach((s, i) => {
        const at = `secrets[${i}]`;
        const id = `${s.namespace}/${s.name}`;
        if (secretIds.has(id)) problems.push(`${k(`${at}.name`)}: duplicate Secret '${id}' (also secrets[${secretIds.get(id)}])`);
        secretIds.set(id, i);
        referencedSecrets.add(s.fromConfig);
        checkSecretSource(`${at}.fromConfig`, s.fromConfig, s.type);
        if (s.placement) checkPlacement(`${at}.placement`, s.placement);
    });
    if (cfg.iko?.imagePullSecretFromConfig) {
        referencedSecrets.add(cfg.iko.imagePullSecretFromConfig);
        checkSecretSource("iko.imagePullSecretFromConfig", cfg.iko.imagePullSecretFromConfig, "dockerconfigjson");
    }

    function checkSecretSource(at: string, key: string, type: SecretConfig["type"]) {
        const full = k(key);
        if (!present.has(key)) {
            problems.push(`${k(at)}: config key '${full}' is not set; set it with 'pulumi config set --secret ${full} ...'`);
            return;
        }
        if (env.isSecret && !env.isSecret(full)) {
            problems.push(`${k(at)}: config key '${full}' is not a secret; set it again with 'pulumi config set --secret ${full} ...'`);
        }
        let value: unknown;
        try {
            value = JSON.parse(raw[full]);
        } catch {
            value = undefined;
        }
        const required = SECRET_KEYS[type];
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
            problems.push(`${k(at)}: '${full}' must be an object with ${required.map((r) => `'${r}'`).join(", ")} (use 'pulumi config set --secret --path ${full}.<field> ...')`);
            return;
        }
        const missing = required.filter((r) => typeof (value as Record<string, unknown>)[r] !== "string");
        if (missing.length > 0) problems.push(`${k(at)}: '${full}' lacks ${missing.map((m) => `'${m}'`).join(", ")} for a ${type} Secret`);
    }

    // References from IrisClusters to synced Secrets must reach every cluster the IrisCluster goes to.
    (cfg.irisClusters ?? []).forEach((ic, i) => {
        const refs: Array<[string, string]> = [];
        if (ic.licenseKeySecret) refs.push(["licenseKeySecret", ic.licenseKeySecret]);
        (ic.imagePullSecrets ?? []).forEach((n, j) => refs.push([`imagePullSecrets[${j}]`, n]));
        if (ic.tlsSecret) refs.push(["tlsSecret", ic.tlsSecret]);
        for (const [field, secretName] of refs) {
            const idx = secretIds.get(`${ic.namespace}/${secretName}`);
            const at = k(`irisClusters[${i}].${field}`);
            if (idx === undefined) {
                problems.push(`${at}: Secret '${ic.namespace}/${secretName}' is not in kamino:secrets; add it there so Karmada syncs it to the members`);
                continue;
            }
            const irisTargets = resolvePlacement(clusters, ic.placement);
            const secretTargets = new Set(resolvePlacement(clusters, cfg.secrets[idx].placement));
            const missing = irisTargets.filter((t) => !secretTargets.has(t));
            if (missing.length > 0) {
                problems.push(
                    `${at}: IrisCluster '${ic.name}' goes to ${missing.join(", ")} but kamino:secrets[${idx}] ('${secretName}') is not synced there; widen the Secret's placement`,
                );
            }
        }
    });
    return problems;
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

function formatPath(path: (string | number)[]): string {
    return path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("");
}

function describeIssue(issue: z.ZodIssue, key: string): string {
    if (issue.code === z.ZodIssueCode.unrecognized_keys) {
        return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((x) => `'${x}'`).join(", ")}; see the README for the fields of ${CONFIG_NAMESPACE}:${key}`;
    }
    if (issue.code === z.ZodIssueCode.invalid_type && issue.received === "undefined") {
        return issue.message === "Required" ? "is required" : issue.message;
    }
    return issue.message;
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
