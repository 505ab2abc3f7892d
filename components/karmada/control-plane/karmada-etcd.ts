// KarmadaEtcd: the etcd that Karmada keeps its state in off kind, three members by default
// (etcd-cluster.ts says why it is Kamino's and not the chart's), with its certificates
// (etcd-certificates.ts), and what the namespace needs before the chart (etcd-policies.ts): the
// quota for critical-priority pods, the Service the chart's apiservers wait for, the NetworkPolicy.
// Then its upkeep: defragmentation, and on a gke host a Retain StorageClass and backups
// (etcd-jobs.ts, etcd-backup.ts). The chart is installed with `etcd.mode: external` and the client
// certificate this component outputs. A member count the running etcd cannot take is refused.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { describeError, kubeRequest } from "../../live/kube-read";
import { EtcdCertificates, etcdMemberFiles } from "./etcd-certificates";
import { EtcdBackup, EtcdBackupSettings } from "./etcd-backup";
import { ETCD_JOB_CERT_SECRET, etcdDefragCronJobSpec } from "./etcd-jobs";
import { CRITICAL_PODS_QUOTA, criticalPodsQuotaSpec, etcdNetworkPolicySpec, ETCD_STORAGE_CLASS, etcdStorageClass } from "./etcd-policies";
import {
    etcdChartWaitServiceSpec,
    EtcdClientCertificate,
    etcdCertificateHosts,
    etcdClientServiceSpec,
    etcdClusterNames,
    EtcdClusterNames,
    etcdDisruptionBudgetSpec,
    etcdLabels,
    etcdMembersChange,
    etcdPeerServiceSpec,
    ETCD_MEMBERS,
    EtcdSettings,
    etcdStatefulSetSpec,
} from "./etcd-cluster";
import { DEFAULTS } from "../../config";

/** The member count of the etcd that runs (its StatefulSet's replicas), or undefined when none runs yet. */
export type RunningEtcdMembers = (hostKubeconfig: string, n: EtcdClusterNames) => Promise<number | undefined>;

/** Reads the StatefulSet from the host's API. */
export const runningEtcdMembers: RunningEtcdMembers = async (hostKubeconfig, n) => {
    const got = await kubeRequest(hostKubeconfig, "GET", `/apis/apps/v1/namespaces/${n.namespace}/statefulsets/${n.statefulSet}`);
    if (got.status === 404) return undefined;
    if (got.status !== 200) throw new Error(describeError({ code: got.status, body: got.body }));
    return (JSON.parse(got.body) as { spec?: { replicas?: number } }).spec?.replicas;
};

/** A member count the running etcd cannot take; the StatefulSet is not changed. */
export class EtcdMembersChangeError extends pulumi.RunError {
    constructor(message: string) {
        super(message);
        this.name = "EtcdMembersChangeError";
    }
}

/** Arguments of a KarmadaEtcd. */
export interface KarmadaEtcdArgs {
    /** Provider of the host cluster. */
    hostProvider: k8s.Provider;
    /** Kubeconfig of the host cluster (secret): the running etcd is read before it is changed; not read when absent. */
    hostKubeconfig?: pulumi.Input<string>;
    /** How the running etcd's member count is read (tests answer for the API). */
    runningMembers?: RunningEtcdMembers;
    /** The namespace of Karmada's chart, which this component creates (the chart's install finds it there). */
    namespace: string;
    /** Members, their volumes' size and StorageClass, the spread and the Jobs, each defaulted when not set (3 members of 8Gi, one per zone). */
    settings: Partial<EtcdSettings> & {
        /** Cron schedule of the defragmentation Job. */
        defragSchedule?: string;
        /** Snapshots to a bucket, on a gke host (`gke` given). */
        backup?: EtcdBackupSettings & { enabled: boolean };
    };
    /** `protect` on the namespace, the certificates and the StatefulSet (`kamino:protect`). */
    protect?: boolean;
    /** A gke host: Kamino's Retain StorageClass for the volumes, and the backup bucket in its project. */
    gke?: {
        /** The host's GCP provider. */
        gcpProvider: pulumi.ProviderResource;
        /** Its project. */
        project: string;
        /** Its region. */
        region: string;
        /** The host cluster's name. */
        hostName: string;
    };
}

/** The etcd members (three by default) on the host cluster, ready for Karmada's apiservers. */
export class KarmadaEtcd extends pulumi.ComponentResource {
    /** The objects' and members' names; `names.servers` is what the apiservers dial. */
    public readonly names: EtcdClusterNames;
    /** The apiservers' client certificate and the CA; the key is secret. */
    public readonly clientCertificate: pulumi.Output<EtcdClientCertificate>;
    /** The StatefulSet; Kamino waits until every member is ready (a quorum that answers). */
    public readonly statefulSet: k8s.apps.v1.StatefulSet;
    /** The quota that admits critical-priority pods (etcd's and the chart's) in the namespace. */
    public readonly criticalPodsQuota: k8s.core.v1.ResourceQuota;
    /** The Service named as the chart's apiservers wait for it. */
    public readonly chartWaitService: k8s.core.v1.Service;
    /** Snapshots to GCS, on a gke host with backups on. */
    public readonly backup?: EtcdBackup;

    constructor(name: string, args: KarmadaEtcdArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaEtcd", name, {}, opts);
        const onHost = { parent: this, provider: args.hostProvider };
        const settings = { members: ETCD_MEMBERS, volumeSize: DEFAULTS.karmadaEtcdVolumeSize, ...args.settings };
        const n = (this.names = etcdClusterNames(args.namespace, settings.members));
        const labels = etcdLabels(n);

        // Before anything is made or changed, the running etcd must be able to take the member count;
        // read in a preview too, so that a pull request's preview shows a refusal.
        const read = args.runningMembers ?? runningEtcdMembers;
        const countKept = args.hostKubeconfig
            ? pulumi.unsecret(pulumi.output(args.hostKubeconfig).apply((kc) => this.keepsMemberCount(kc, n, read)))
            : pulumi.output(true);
        const afterCheck = <T>(value: T) => countKept.apply(() => value);

        // What holds the state: deleting it by mistake (a replace, a destroy) loses Karmada (docs/production.md, Deletion).
        const kept = { protect: args.protect ?? false };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: afterCheck(n.namespace) } }, { ...onHost, ...kept });
        const inNamespace = (objectName: string) => ({ name: objectName, namespace: namespace.metadata.name, labels });
        const certificates = new EtcdCertificates(`${name}-certificates`, { hosts: afterCheck(etcdCertificateHosts(n)) }, { parent: this, ...kept });
        const secret = new k8s.core.v1.Secret(
            `${name}-certs`,
            { metadata: inNamespace(n.certSecret), type: "kubernetes.io/tls", stringData: etcdMemberFiles(certificates) },
            onHost,
        );
        // GKE admits critical-priority pods here only under this quota: etcd's now, the chart's next.
        this.criticalPodsQuota = new k8s.core.v1.ResourceQuota(
            `${name}-critical-pods`,
            { metadata: inNamespace(CRITICAL_PODS_QUOTA), spec: criticalPodsQuotaSpec() },
            onHost,
        );
        const peers = new k8s.core.v1.Service(`${name}-peers`, { metadata: inNamespace(n.statefulSet), spec: etcdPeerServiceSpec(n) }, onHost);
        const client = new k8s.core.v1.Service(`${name}-client`, { metadata: inNamespace(n.clientService), spec: etcdClientServiceSpec(n) }, onHost);
        this.chartWaitService = new k8s.core.v1.Service(
            `${name}-chart-wait`,
            { metadata: inNamespace(n.chartWaitService), spec: etcdChartWaitServiceSpec(n) },
            onHost,
        );
        const policy = new k8s.networking.v1.NetworkPolicy(`${name}-ingress`, { metadata: inNamespace(n.statefulSet), spec: etcdNetworkPolicySpec(n) }, onHost);
        new k8s.policy.v1.PodDisruptionBudget(`${name}-pdb`, { metadata: inNamespace(n.statefulSet), spec: etcdDisruptionBudgetSpec(n) }, onHost);
        const storageClass =
            args.gke && !settings.storageClass
                ? new k8s.storage.v1.StorageClass(`${name}-storage`, { metadata: { name: ETCD_STORAGE_CLASS }, ...etcdStorageClass() }, onHost)
                : undefined;
        // The provider waits for the StatefulSet's rollout: every member ready, so the quorum answers before the chart installs.
        this.statefulSet = new k8s.apps.v1.StatefulSet(
            `${name}-members`,
            {
                metadata: inNamespace(n.statefulSet),
                spec: certificates.notBefore.apply((revision) =>
                    etcdStatefulSetSpec(n, {
                        ...settings,
                        storageClass: settings.storageClass ?? (storageClass ? ETCD_STORAGE_CLASS : undefined),
                        certificateRevision: revision,
                    }),
                ),
            },
            { ...onHost, ...kept, dependsOn: [secret, peers, client, this.criticalPodsQuota, policy, ...(storageClass ? [storageClass] : [])] },
        );
        this.backup = this.maintenance(name, args, n, certificates, onHost);
        this.clientCertificate = pulumi.secret(
            pulumi.all([certificates.caCrt, certificates.clientCrt, certificates.clientKey]).apply(([caCrt, crt, key]) => ({ caCrt, crt, key })),
        );
        this.registerOutputs({ clientCertificate: this.clientCertificate });
    }

    /** The Jobs' client certificate, the defragmentation CronJob, and on a gke host the backups. */
    private maintenance(
        name: string,
        args: KarmadaEtcdArgs,
        n: EtcdClusterNames,
        certificates: EtcdCertificates,
        onHost: pulumi.CustomResourceOptions,
    ): EtcdBackup | undefined {
        const jobCert = new k8s.core.v1.Secret(
            `${name}-job-cert`,
            {
                metadata: { name: ETCD_JOB_CERT_SECRET, namespace: n.namespace },
                type: "kubernetes.io/tls",
                stringData: { "ca.crt": certificates.caCrt, "tls.crt": certificates.clientCrt, "tls.key": certificates.clientKey },
            },
            { ...onHost, dependsOn: [this.statefulSet] },
        );
        const schedule = args.settings.defragSchedule ?? DEFAULTS.karmadaEtcdDefragSchedule;
        new k8s.batch.v1.CronJob(
            `${name}-defrag`,
            { metadata: { name: "karmada-etcd-defrag", namespace: n.namespace }, spec: etcdDefragCronJobSpec(n, schedule) },
            { ...onHost, dependsOn: [jobCert] },
        );
        const backup = args.settings.backup;
        if (!args.gke || !backup?.enabled) return undefined;
        return new EtcdBackup(
            `${name}-backup`,
            { ...args.gke, hostProvider: args.hostProvider, names: n, settings: backup, protect: args.protect ?? false },
            { parent: this, dependsOn: [jobCert] },
        );
    }

    /** True once the running etcd (if any) has the configured member count; a host that cannot be read is a warning. */
    private async keepsMemberCount(hostKubeconfig: string, n: EtcdClusterNames, read: RunningEtcdMembers): Promise<boolean> {
        let running: number | undefined;
        try {
            running = await read(hostKubeconfig, n);
        } catch (e) {
            pulumi.log.warn(`could not read Karmada's etcd on the host to check its member count: ${(e as Error).message}`, this);
            return true;
        }
        const problem = etcdMembersChange(n.members.length, running);
        if (problem) throw new EtcdMembersChangeError(problem);
        return true;
    }
}
