// Constants of the stack config: its namespace, the defaults Kamino installs with, and fixed limits.
// No imports: every other config file may depend on this one.

/** The Pulumi config namespace of this project (`kamino:<key>`). */
export const CONFIG_NAMESPACE = "kamino";

/**
 * karmada-controller-manager feature gates Kamino turns on (the chart turns PropagateDeps off,
 * and IrisClusters need the Secrets they reference propagated with them). A stack that names a
 * gate itself decides it.
 */
export const KAMINO_FEATURE_GATES: Readonly<Record<string, boolean>> = { PropagateDeps: true };

/** Versions and coordinates Kamino installs unless a stack overrides them. */
export const DEFAULTS = {
    /** IRIS pulls a multi-GB image and starts its instance: minutes, more on a cold node. */
    irisRunningTimeoutSeconds: 900,
    /**
     * How long a failover member may stay unreachable (after Karmada marks it not Ready, itself ~30-40 s
     * after the outage) or failed before its IrisCluster moves. Karmada's failure threshold already
     * absorbs short blips; docs/disaster-recovery.md has the measured timeline behind this value.
     */
    failoverAfterSeconds: 10,
    /** The IRIS mirror IKO configures for a mirrored IrisCluster (`ConfigMirror:Name=IRISMIRROR1`, notes/iris-dr.md). */
    irisMirrorName: "IRISMIRROR1",
    /** The mirrored database IKO creates beside it (`MirrorDBName`), upper-cased as IRIS names databases. */
    irisMirrorDatabase: "IRISCLUSTER",
    ciliumVersion: "1.18.0",
    ciliumRepo: "https://helm.cilium.io",
    /**
     * Karmada's chart, on every host: the newest version Karmada's chart repository lists (its
     * index.yaml lagged v1.18.2 for months) and the one the tests run as real pods
     * (docs/production.md#which-karmada-version).
     */
    karmadaChartVersion: "v1.18.1",
    /**
     * The kube-apiserver and kube-controller-manager images of Karmada's chart: the Kubernetes
     * version the tests run (the chart's own default is v1.35.2).
     */
    karmadaKubeImageTag: "v1.36.3",
    /** The chart's own etcd (topology `single`): the etcd version the tests run (the chart's default is 3.6.6-0). */
    karmadaEtcdImageTag: "3.6.14-0",
    /** Size of each etcd member's volume under a Karmada that is not on kind. */
    karmadaEtcdVolumeSize: "8Gi",
    /** Daily, at a quiet minute: defragmentation of a small database takes well under a second per member. */
    karmadaEtcdDefragSchedule: "17 3 * * *",
    /** Hourly: what a restore loses is at most an hour of Karmada's own decisions (where it moved things). */
    karmadaEtcdBackupSchedule: "23 * * * *",
    karmadaEtcdBackupRetentionDays: 30,
    /** Google's Cloud SDK image (gcloud, a shell); `slim` leaves out the emulators and extra components. */
    karmadaEtcdBackupUploaderImage: "gcr.io/google.com/cloudsdktool/google-cloud-cli:slim",
    karmadaChartRepo: "https://raw.githubusercontent.com/karmada-io/karmada/master/charts",
    /** The chart's default (bitnami/kubectl) was withdrawn in 2025; this image has bash and kubectl. */
    karmadaKubectlImage: "bitnamisecure/kubectl",
    karmadaApiServerNodePort: 32443,
    karmadaApiServerHostPort: 5443,
    karmadaInstallTimeoutSeconds: 900,
    /**
     * How long a member may be silent before Karmada marks it not Ready. Chosen by measurement on the
     * loopback fleet (docs/disaster-recovery.md): a member whose API server blinks for 5 s keeps
     * IRIS, and failover at the default failoverAfterSeconds takes about 22 s instead of 48 s.
     */
    failureDetectionSeconds: 12,
    /** A Pull member's agent pulls its image, registers and reports Ready: usually well under a minute. */
    agentReadyTimeoutSeconds: 300,
    /** Karmada's own agent image; the tag is the control plane's version. */
    karmadaAgentImage: "docker.io/karmada/karmada-agent",
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
