// KarmadaEtcd: the three-member (or five-member) etcd that Karmada keeps its state in off kind (etcd-cluster.ts says
// why it is Kamino's and not the chart's), with its certificates (etcd-certificates.ts). The chart is
// then installed with `etcd.mode: external` and the client certificate this component outputs.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { EtcdCertificates, etcdMemberFiles } from "./etcd-certificates";
import {
    EtcdClientCertificate,
    etcdCertificateHosts,
    etcdClientServiceSpec,
    etcdClusterNames,
    EtcdClusterNames,
    etcdDisruptionBudgetSpec,
    etcdLabels,
    etcdPeerServiceSpec,
    ETCD_MEMBERS,
    EtcdSettings,
    etcdStatefulSetSpec,
} from "./etcd-cluster";
import { DEFAULTS } from "../config";

/** Arguments of a KarmadaEtcd. */
export interface KarmadaEtcdArgs {
    /** Provider of the host cluster. */
    hostProvider: k8s.Provider;
    /** The namespace of Karmada's chart, which this component creates (the chart's install finds it there). */
    namespace: string;
    /** Members, their volumes' size and StorageClass, each defaulted when not set (3 members of 8Gi on the default class). */
    settings: Partial<EtcdSettings>;
}

/** Three etcd members on the host cluster, ready for Karmada's apiservers. */
export class KarmadaEtcd extends pulumi.ComponentResource {
    /** The objects' and members' names; `names.servers` is what the apiservers dial. */
    public readonly names: EtcdClusterNames;
    /** The apiservers' client certificate and the CA; the key is secret. */
    public readonly clientCertificate: pulumi.Output<EtcdClientCertificate>;
    /** The StatefulSet; Kamino waits until every member is ready (a quorum that answers). */
    public readonly statefulSet: k8s.apps.v1.StatefulSet;

    constructor(name: string, args: KarmadaEtcdArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaEtcd", name, {}, opts);
        const onHost = { parent: this, provider: args.hostProvider };
        const settings = { members: ETCD_MEMBERS, volumeSize: DEFAULTS.karmadaEtcdVolumeSize, ...args.settings };
        const n = (this.names = etcdClusterNames(args.namespace, settings.members));
        const labels = etcdLabels(n);

        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: n.namespace } }, onHost);
        const inNamespace = (objectName: string) => ({ name: objectName, namespace: namespace.metadata.name, labels });
        const certificates = new EtcdCertificates(`${name}-certificates`, { hosts: etcdCertificateHosts(n) }, { parent: this });
        const secret = new k8s.core.v1.Secret(
            `${name}-certs`,
            {
                metadata: inNamespace(n.certSecret),
                type: "kubernetes.io/tls",
                stringData: etcdMemberFiles(certificates),
            },
            onHost,
        );
        const peers = new k8s.core.v1.Service(`${name}-peers`, { metadata: inNamespace(n.statefulSet), spec: etcdPeerServiceSpec(n) }, onHost);
        const client = new k8s.core.v1.Service(`${name}-client`, { metadata: inNamespace(n.clientService), spec: etcdClientServiceSpec(n) }, onHost);
        new k8s.policy.v1.PodDisruptionBudget(`${name}-pdb`, { metadata: inNamespace(n.statefulSet), spec: etcdDisruptionBudgetSpec(n) }, onHost);
        // The provider waits for the StatefulSet's rollout: every member ready, so the quorum answers before the chart installs.
        this.statefulSet = new k8s.apps.v1.StatefulSet(
            `${name}-members`,
            { metadata: inNamespace(n.statefulSet), spec: certificates.notBefore.apply((revision) => etcdStatefulSetSpec(n, { volumeSize: settings.volumeSize, storageClass: settings.storageClass, certificateRevision: revision })) },
            { ...onHost, dependsOn: [secret, peers, client] },
        );

        this.clientCertificate = pulumi.secret(pulumi.all([certificates.caCrt, certificates.clientCrt, certificates.clientKey]).apply(([caCrt, crt, key]) => ({ caCrt, crt, key })));
        this.registerOutputs({ clientCertificate: this.clientCertificate });
    }
}
