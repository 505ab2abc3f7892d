// EtcdBackup: on a gke host, snapshots of Karmada's etcd in a GCS bucket Kamino makes: versioned,
// uniform bucket-level access, no public access, each snapshot and each older version deleted after
// the stack's retention. A CronJob in karmada-system takes the snapshot (etcd-jobs.ts) and uploads it
// as a GCP service account that may only create objects there, through Workload Identity (the Job's
// Kubernetes ServiceAccount is mapped to it; no key exists).
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { EtcdClusterNames } from "./etcd-cluster";
import { etcdBackupCronJobSpec } from "./etcd-jobs";

/** What a stack sets of its backups (`kamino:karmada.etcd.backup`), defaulted by the config. */
export interface EtcdBackupSettings {
    /** Cron schedule of the snapshots. */
    schedule: string;
    /** Days a snapshot (and an older version of one) is kept. */
    retentionDays: number;
    /** An image with a shell and gcloud, for the upload. */
    uploaderImage: string;
    /** The bucket's location; by default the multi-region of the host's region. */
    location?: string;
}

/** The bucket's name: the project's and the stack's (bucket names are global, project IDs too), at most 63 characters. */
export function etcdBackupBucketName(project: string, stack: string): string {
    return `${project}-${stack}-karmada-etcd`
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, "-")
        .slice(0, 63)
        .replace(/-+$/, "");
}

/**
 * The multi-region that holds a region (a copy of the snapshots survives the loss of the host's
 * region, which is what they are for), or the region itself where GCS has none.
 */
export function etcdBackupLocation(region: string): string {
    const multi: Record<string, string> = { europe: "EU", us: "US", asia: "ASIA" };
    return multi[region.split("-")[0]] ?? region;
}

/** The GCP service account's ID (6-30 characters): one per host cluster, whose name is unique in its project. */
export function etcdBackupAccountId(hostName: string): string {
    return `etcd-backup-${hostName}`.slice(0, 30).replace(/-+$/, "");
}

/** The Kubernetes ServiceAccount of the backup Job. */
export const BACKUP_SERVICE_ACCOUNT = "karmada-etcd-backup";

/** Arguments of an EtcdBackup. */
export interface EtcdBackupArgs {
    /** The host's GCP provider (its project). */
    gcpProvider: pulumi.ProviderResource;
    /** Provider of the host cluster. */
    hostProvider: k8s.Provider;
    /** GCP project of the host. */
    project: string;
    /** The host's region (a zonal host's zone's region). */
    region: string;
    /** The host cluster's name, for the service account's. */
    hostName: string;
    /** The etcd's names (namespace, members, client Service). */
    names: EtcdClusterNames;
    /** Schedule, retention, uploader image, location. */
    settings: EtcdBackupSettings;
    /** `protect` on the bucket (`kamino:protect`). */
    protect: boolean;
}

/** The bucket, the identity that writes to it and the CronJob that does. */
export class EtcdBackup extends pulumi.ComponentResource {
    /** The bucket's name. */
    public readonly bucket: pulumi.Output<string>;
    /** The CronJob. */
    public readonly cronJob: k8s.batch.v1.CronJob;

    constructor(name: string, args: EtcdBackupArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:EtcdBackup", name, {}, opts);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const gcp = require("@pulumi/gcp") as typeof import("@pulumi/gcp");
        const onGcp = { parent: this, provider: args.gcpProvider };
        const days = args.settings.retentionDays;
        const bucket = new gcp.storage.Bucket(
            `${name}-bucket`,
            {
                name: etcdBackupBucketName(args.project, pulumi.getStack()),
                project: args.project,
                location: args.settings.location ?? etcdBackupLocation(args.region),
                uniformBucketLevelAccess: true,
                publicAccessPrevention: "enforced",
                versioning: { enabled: true },
                lifecycleRules: [
                    { action: { type: "Delete" }, condition: { age: days } },
                    // An overwritten or deleted snapshot stays as an older version for as long, then goes too.
                    { action: { type: "Delete" }, condition: { daysSinceNoncurrentTime: days, withState: "ARCHIVED" } },
                ],
                forceDestroy: false,
            },
            { ...onGcp, protect: args.protect },
        );
        const account = new gcp.serviceaccount.Account(
            `${name}-writer`,
            { project: args.project, accountId: etcdBackupAccountId(args.hostName), displayName: "Kamino: Karmada etcd snapshots" },
            onGcp,
        );
        new gcp.storage.BucketIAMMember(
            `${name}-writer-creates`,
            { bucket: bucket.name, role: "roles/storage.objectCreator", member: pulumi.interpolate`serviceAccount:${account.email}` },
            onGcp,
        );
        const ksa = `${args.project}.svc.id.goog[${args.names.namespace}/${BACKUP_SERVICE_ACCOUNT}]`;
        const identity = new gcp.serviceaccount.IAMMember(
            `${name}-workload-identity`,
            { serviceAccountId: account.name, role: "roles/iam.workloadIdentityUser", member: `serviceAccount:${ksa}` },
            onGcp,
        );

        const onHost = { parent: this, provider: args.hostProvider };
        const sa = new k8s.core.v1.ServiceAccount(
            `${name}-sa`,
            { metadata: { name: BACKUP_SERVICE_ACCOUNT, namespace: args.names.namespace, annotations: { "iam.gke.io/gcp-service-account": account.email } } },
            { ...onHost, dependsOn: [identity] },
        );
        this.bucket = bucket.name;
        this.cronJob = new k8s.batch.v1.CronJob(
            `${name}-job`,
            {
                metadata: { name: "karmada-etcd-backup", namespace: args.names.namespace },
                spec: bucket.name.apply((b) =>
                    etcdBackupCronJobSpec(args.names, {
                        schedule: args.settings.schedule,
                        bucket: b,
                        uploaderImage: args.settings.uploaderImage,
                        serviceAccountName: BACKUP_SERVICE_ACCOUNT,
                    }),
                ),
            },
            { ...onHost, dependsOn: [sa] },
        );
        this.registerOutputs({ bucket: this.bucket });
    }
}
