// The zod schema of every `kamino:` key (KEY_SCHEMAS) and the config types inferred from it.
// Schema messages carry their fix after FIX_MARK (see `describeIssue` in problems.ts).
import { z } from "zod";
import { DEFAULTS, MAX_CLUSTER_NAME_LENGTH } from "./defaults";
import { withFix } from "./fix";
import { FOLLOWER_IRIS_CLUSTER_FIELDS, FOLLOWER_KEYS } from "./followers";
import { karmadaSchema } from "./karmada-schema";
import {
    cidr,
    CONFIG_MAP_NAME_MESSAGE,
    dnsLabel,
    DNS1123_SUBDOMAIN,
    irisPlacementSchema,
    labelMap,
    LABEL_VALUE,
    LABEL_VALUE_FIX,
    secretConfigRef,
    SECRET_NAME_MESSAGE,
} from "./schema-parts";
import type { ConfigMapConfig } from "./followers/config-maps";
import type { ManifestEntryConfig } from "./followers/manifests";
import type { SecretConfig } from "./followers/secrets";

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const GCP_ZONE = /^[a-z]+-[a-z]+\d+-[a-z]$/;

export { FIX_MARK, withFix } from "./fix";

const GCP_ZONE_MESSAGE = withFix("must be a GCP zone such as us-central1-a", "use a zone that 'gcloud compute zones list' shows");

const clusterBase = {
    name: dnsLabel("cluster name", MAX_CLUSTER_NAME_LENGTH),
    karmadaHost: z.boolean().default(false),
    /** How a member joins: Push (Karmada calls it, as `karmadactl join`) or Pull (Karmada's agent on it calls Karmada). */
    syncMode: z
        .enum(["Push", "Pull"], {
            errorMap: () => ({
                message: withFix("must be Push or Pull", "write Push (Karmada calls the member) or Pull (an agent on the member calls Karmada)"),
            }),
        })
        .default("Push"),
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
        podSubnet: cidr(4).optional(),
        serviceSubnet: cidr(4).optional(),
    })
    .strict();

const gkeCluster = z
    .object({
        ...clusterBase,
        provider: z.literal("gke"),
        project: z.string().min(1, withFix("is required for a gke cluster", "set the GCP project ID")).optional(),
        /** A single zone makes a zonal cluster; set either this or `region` (a regional cluster). */
        zone: z.string().regex(GCP_ZONE, GCP_ZONE_MESSAGE).optional(),
        nodeCount: z.number().int().min(1).max(100).default(DEFAULTS.gkeNodeCount),
        machineType: z.string().min(1).default(DEFAULTS.gkeMachineType),
        network: z.string().min(1).optional(),
        subnetwork: z.string().min(1).optional(),
        releaseChannel: z.enum(["RAPID", "REGULAR", "STABLE", "EXTENDED"]).default(DEFAULTS.gkeReleaseChannel),
        /** CIDRs allowed to reach the control plane: this machine, and Karmada when it calls this cluster (Push); required. */
        authorizedNetworks: z.array(cidr(4)).optional(),
        /** Zones of the nodes: for a regional cluster, GKE's three by default; for a zonal one, zones added to its own. */
        nodeLocations: z.array(z.string().regex(GCP_ZONE, GCP_ZONE_MESSAGE)).min(1).optional(),
        /**
         * Nodes without public addresses, their egress through Cloud NAT on reserved addresses (added to
         * `kamino:karmada.authorizedNetworks` for a Pull member). Default: on for members of a Karmada off kind.
         */
        privateNodes: z.boolean().optional(),
        /** Reserved egress addresses of that Cloud NAT; one serves about a thousand nodes. */
        natAddresses: z.number().int().min(1).max(16).default(1),
        /** GKE's deletion protection; default `kamino:protect`. */
        deletionProtection: z.boolean().optional(),
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

const overrideSchema = z
    .object({
        clusterNames: z.array(z.string()).min(1).optional(),
        clusterProviders: z
            .array(z.enum(["kind", "gke", "existing"]))
            .min(1)
            .optional(),
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

/**
 * An IRIS mirror across members (config/mirror.ts checks it): the failover pair on `primary`, a DR
 * async IrisCluster of its own on each `drAsync` member, each pinned where it is declared.
 */
const mirrorSchema = z
    .object({
        /** The member running the failover pair (and the arbiter, when `spec.topology.arbiter` is given). */
        primary: z.string().min(1),
        /** The members each running a DR async member of the mirror. */
        drAsync: z.array(z.string().min(1)).min(1, withFix("names no member", "name the members that run a DR async copy, e.g. [ikodr]")),
        /** The IRIS mirror's name, as the pair's IKO configures it. */
        name: z
            .string()
            .regex(/^[A-Z0-9_]{1,15}$/, withFix("is not an IRIS mirror name", "use up to 15 upper-case letters, digits or '_', e.g. IRISMIRROR1"))
            .default(DEFAULTS.irisMirrorName),
        /** The mirrored databases the DR members create and join (`CreateDatabase ... MirrorSetName`). */
        databases: z
            .array(
                z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, withFix("is not an IRIS database name", "use upper-case letters, digits or '_', e.g. IRISCLUSTER")),
            )
            .default([DEFAULTS.irisMirrorDatabase]),
        /**
         * The address the other members dial for each member's IRIS (an IP or a DNS name on a network they
         * share), when Kamino cannot make one: existing clusters, or any network of the user's own.
         */
        addresses: z.record(z.string().min(1)).optional(),
        /** Set by `npm run promote`: the DR member acting as primary; the pair is then withdrawn (fenced). */
        promoted: z.string().min(1).optional(),
        /** Set by `npm run failback`: the fenced pair comes back on `primary` as a DR async (ValidatedMember=0). */
        rejoin: z.boolean().default(false),
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
        placement: irisPlacementSchema.default({}),
        /** With `placement.mode: failover`: seconds a member may be unreachable or failed before the IrisCluster moves on. */
        failoverAfterSeconds: z.number().int().min(0).max(3600).default(DEFAULTS.failoverAfterSeconds),
        policyName: dnsLabel("policyName", 253).optional(),
        licenseKeySecret: z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE).optional(),
        imagePullSecrets: z.array(z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE)).optional(),
        tlsSecret: z.string().regex(DNS1123_SUBDOMAIN, SECRET_NAME_MESSAGE).optional(),
        /** `spec.configSource.name`: a ConfigMap of CPF merge files from `kamino:configMaps`. */
        configSource: z.string().regex(DNS1123_SUBDOMAIN, CONFIG_MAP_NAME_MESSAGE).optional(),
        overrides: z.array(overrideSchema).default([]),
        /** `pulumi up` returns only when IKO reports this IrisCluster Running on every member it is placed on. */
        waitForRunning: z.boolean().default(true),
        /** How long `up` waits for that; IRIS takes minutes to pull and start. */
        runningTimeoutSeconds: z.number().int().min(10).max(7200).default(DEFAULTS.irisRunningTimeoutSeconds),
        /** Further IrisCluster `spec` fields, merged under the generated ones. */
        spec: z.record(z.unknown()).default({}),
        /** An IRIS mirror across members: it decides where this IrisCluster runs (no placement). */
        mirror: mirrorSchema.optional(),
        // The followers' fields of an entry (config/followers).
        ...FOLLOWER_IRIS_CLUSTER_FIELDS,
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

const testingSchema = z
    .object({
        /** Annotate workloads with pulumi.com/skipAwait: for API servers without nodes (tests only). */
        skipAwait: z.boolean().default(false),
    })
    .strict()
    .default({});

/** Every key Kamino reads, with its schema. Any other `kamino:` key is an error. */
export const KEY_SCHEMAS = {
    clusters: z
        .array(clusterSchema)
        .min(1, withFix("must list at least one cluster", "list the Karmada host and at least one member (see docs/configuration.md)")),
    kindNamePrefix: z
        .string()
        .regex(/^([a-z0-9][-a-z0-9]*)?$/, withFix("must be lower-case letters, digits and '-'", "lower-case it and replace any other character with '-'"))
        .max(16)
        .default(""),
    iko: ikoSchema,
    cilium: ciliumSchema,
    karmada: karmadaSchema,
    irisClusters: z.array(irisClusterSchema).default([]),
    // The followers' keys (config/followers): secrets, configMaps, manifests.
    ...FOLLOWER_KEYS,
    testing: testingSchema,
    /**
     * `protect` on what holds Karmada's state (etcd, its namespace and certificates, the backup bucket)
     * and GKE's deletion protection; default: on when Karmada is hosted off kind (resolved in loadFleetConfig).
     */
    protect: z.boolean().optional(),
} as const;

export type KindClusterConfig = z.infer<typeof kindCluster>;
export type GkeClusterConfig = z.infer<typeof gkeCluster>;
export type ExistingClusterConfig = z.infer<typeof existingCluster>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type { IrisPlacementConfig, PlacementConfig } from "./schema-parts";
export type OverrideConfig = z.infer<typeof overrideSchema>;
export type IrisClusterConfig = z.infer<typeof irisClusterSchema>;
export type { ConfigMapConfig, ManifestEntryConfig, SecretConfig };
export type IkoConfig = z.infer<typeof ikoSchema>;
export type CiliumConfig = z.infer<typeof ciliumSchema>;
export type MirrorConfig = z.infer<typeof mirrorSchema>;
export type KarmadaConfig = z.infer<typeof karmadaSchema>;

/** The followers' keys as they parse (config/followers): `secrets`, `configMaps`, ... */
type FollowerKeyValues = { [K in keyof typeof FOLLOWER_KEYS]: z.infer<(typeof FOLLOWER_KEYS)[K]> };

/** The validated fleet: what `Fleet` is built from. The followers' keys come from the registry. */
export interface FleetConfig extends Omit<FollowerKeyValues, "manifests"> {
    clusters: ClusterConfig[];
    kindNamePrefix: string;
    iko: IkoConfig;
    cilium: CiliumConfig;
    karmada: KarmadaConfig;
    irisClusters: IrisClusterConfig[];
    secrets: SecretConfig[];
    configMaps: ConfigMapConfig[];
    /** `kamino:manifests`, each with the objects of its file, parsed and defaulted (config/manifests.ts). */
    manifests: ManifestConfig[];
    testing: { skipAwait: boolean };
    /** Protection of the control plane's state and of the GKE clusters (see KEY_SCHEMAS.protect). */
    protect: boolean;
}

/** One object of a manifest file, as Kamino creates it in the Karmada API. */
export interface ManifestObject {
    /** Index of its YAML document in the file. */
    document: number;
    apiVersion: string;
    kind: string;
    /** API group, "" for the core group. */
    group: string;
    name: string;
    /** Its namespace (defaulted to `default`); undefined for a cluster-scoped kind. */
    namespace?: string;
    /** The API resource (plural) RBAC and discovery name it by. */
    resource: string;
    /** The object as created: the document with `metadata.namespace` defaulted. */
    body: Record<string, unknown>;
}

/** A `kamino:manifests` entry with its file's objects. */
export interface ManifestConfig extends ManifestEntryConfig {
    objects: ManifestObject[];
}
