// Kamino's scheduled Jobs on Karmada's etcd (pure): defragmentation, one member at a time, and a
// snapshot uploaded to a bucket. Both run etcdctl from the members' own image (distroless: no shell),
// as an unprivileged user, with the apiservers' client certificate; the NetworkPolicy lets them in
// by ETCD_JOB_LABELS.
import * as k8s from "@pulumi/kubernetes";
import { ETCD_CONTAINER_SECURITY, ETCD_IMAGE, ETCD_POD_SECURITY, ETCD_PORTS, EtcdClusterNames } from "./etcd-cluster";
import { ETCD_JOB_LABELS } from "./etcd-policies";

/** The Secret with the client certificate the Jobs present (ca.crt, tls.crt, tls.key). */
export const ETCD_JOB_CERT_SECRET = "karmada-etcd-client-cert";
const PKI = "/etc/etcd/client";

/** etcdctl against the given endpoints with the Jobs' client certificate. */
export function etcdctl(endpoints: string[], ...args: string[]): string[] {
    return ["etcdctl", `--endpoints=${endpoints.join(",")}`, `--cacert=${PKI}/ca.crt`, `--cert=${PKI}/tls.crt`, `--key=${PKI}/tls.key`, ...args];
}

const memberUrl = (n: EtcdClusterNames, m: string) => `https://${n.memberHost(m)}:${ETCD_PORTS.client}`;
const certVolume = { name: "client-cert", secret: { secretName: ETCD_JOB_CERT_SECRET, defaultMode: 0o440 } };
const certMount = { name: "client-cert", mountPath: PKI, readOnly: true };
const step = (name: string, command: string[], image = ETCD_IMAGE, extraMounts: k8s.types.input.core.v1.VolumeMount[] = []) => ({
    name,
    image,
    command,
    securityContext: ETCD_CONTAINER_SECURITY,
    resources: { requests: { cpu: "50m", memory: "64Mi" } },
    volumeMounts: [certMount, ...extraMounts],
});

/** A CronJob whose runs never overlap and whose failed run is not retried before the next schedule. */
function cronJob(schedule: string, pod: k8s.types.input.core.v1.PodSpec, deadlineSeconds: number): k8s.types.input.batch.v1.CronJobSpec {
    return {
        schedule,
        concurrencyPolicy: "Forbid",
        startingDeadlineSeconds: 3600,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 3,
        jobTemplate: {
            spec: {
                backoffLimit: 0,
                activeDeadlineSeconds: deadlineSeconds,
                template: { metadata: { labels: ETCD_JOB_LABELS }, spec: { restartPolicy: "Never", securityContext: ETCD_POD_SECURITY, ...pod } },
            },
        },
    };
}

/**
 * Defragmentation gives back the space compaction freed in the database file. A member is blocked
 * while it defragments, so the members go one after another (init containers run in order, each
 * only after the previous one succeeded), and only when every member is healthy first: a member
 * blocked beside one already down would stop the quorum. The last container prints the sizes.
 */
export function etcdDefragCronJobSpec(n: EtcdClusterNames, schedule: string): k8s.types.input.batch.v1.CronJobSpec {
    const all = n.members.map((m) => memberUrl(n, m));
    return cronJob(
        schedule,
        {
            automountServiceAccountToken: false,
            initContainers: [
                step("health", etcdctl(all, "endpoint", "health")),
                ...n.members.map((m) => step(`defrag-${m}`, etcdctl([memberUrl(n, m)], "--command-timeout=5m", "defrag"))),
            ],
            containers: [step("status", etcdctl(all, "endpoint", "status", "--write-out=table"))],
            volumes: [certVolume],
        },
        1800,
    );
}

/** What the backup Job needs besides the names. */
export interface EtcdBackupJobInput {
    /** Cron schedule. */
    schedule: string;
    /** The bucket the snapshot is uploaded to (name only). */
    bucket: string;
    /** An image with a shell and `gcloud` (the upload step). */
    uploaderImage: string;
    /** The Kubernetes ServiceAccount the pod runs as: Workload Identity maps it to the GCP account that may write to the bucket. */
    serviceAccountName: string;
}

/** The object name prefix of the snapshots in the bucket. */
export const BACKUP_PREFIX = "karmada-etcd";

/**
 * A snapshot from one ready member (through the client Service, which has only ready members) into
 * the pod's scratch volume, then uploaded under a UTC time stamp. The upload runs with the pod's
 * Kubernetes identity, which Workload Identity turns into a GCP account that may only create objects.
 */
export function etcdBackupCronJobSpec(n: EtcdClusterNames, b: EtcdBackupJobInput): k8s.types.input.batch.v1.CronJobSpec {
    const scratch = { name: "snapshot", mountPath: "/backup" };
    const upload = 'set -eu; gcloud storage cp /backup/snapshot.db "gs://${BUCKET}/${PREFIX}/$(date -u +%Y-%m-%dT%H%M%SZ).db"';
    return cronJob(
        b.schedule,
        {
            serviceAccountName: b.serviceAccountName,
            initContainers: [
                step(
                    "snapshot",
                    etcdctl([`https://${n.clientHost}:${ETCD_PORTS.client}`], "--command-timeout=5m", "snapshot", "save", "/backup/snapshot.db"),
                    ETCD_IMAGE,
                    [scratch],
                ),
            ],
            containers: [
                {
                    // Not the client certificate: this step talks to GCS only.
                    ...step("upload", ["/bin/sh", "-c", upload], b.uploaderImage),
                    volumeMounts: [scratch, { name: "tmp", mountPath: "/tmp" }],
                    env: [
                        { name: "BUCKET", value: b.bucket },
                        { name: "PREFIX", value: BACKUP_PREFIX },
                        // gcloud writes its configuration and logs; the root file system is read-only.
                        { name: "CLOUDSDK_CONFIG", value: "/tmp/gcloud" },
                        { name: "HOME", value: "/tmp" },
                        // A composite upload needs rights to delete its parts; this account may only create.
                        { name: "CLOUDSDK_STORAGE_PARALLEL_COMPOSITE_UPLOAD_ENABLED", value: "False" },
                    ],
                },
            ],
            volumes: [certVolume, { name: "snapshot", emptyDir: {} }, { name: "tmp", emptyDir: {} }],
        },
        3600,
    );
}
