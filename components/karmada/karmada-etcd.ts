// KarmadaEtcd: the etcd that Karmada keeps its state in off kind, three members by default
// (etcd-cluster.ts says why it is Kamino's and not the chart's), with its certificates
// (etcd-certificates.ts). The chart is then installed with `etcd.mode: external` and the client
// certificate this component outputs. A member count the running etcd cannot take is refused.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { describeError, kubeRequest } from "../live/kube-read";
import { EtcdCertificates, etcdMemberFiles } from "./etcd-certificates";
import {
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
import { DEFAULTS } from "../config";

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
    /** Members, their volumes' size and StorageClass, each defaulted when not set (3 members of 8Gi on the default class). */
    settings: Partial<EtcdSettings>;
}

/** The etcd members (three by default) on the host cluster, ready for Karmada's apiservers. */
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

        // Before anything is made or changed, the running etcd must be able to take the member count;
        // read in a preview too, so that a pull request's preview shows a refusal.
        const read = args.runningMembers ?? runningEtcdMembers;
        const countKept = args.hostKubeconfig ? pulumi.unsecret(pulumi.output(args.hostKubeconfig).apply((kc) => this.keepsMemberCount(kc, n, read))) : pulumi.output(true);
        const afterCheck = <T>(value: T) => countKept.apply(() => value);

        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: afterCheck(n.namespace) } }, onHost);
        const inNamespace = (objectName: string) => ({ name: objectName, namespace: namespace.metadata.name, labels });
        const certificates = new EtcdCertificates(`${name}-certificates`, { hosts: afterCheck(etcdCertificateHosts(n)) }, { parent: this });
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
            {
                metadata: inNamespace(n.statefulSet),
                spec: certificates.notBefore.apply((revision) => etcdStatefulSetSpec(n, { ...settings, certificateRevision: revision })),
            },
            { ...onHost, dependsOn: [secret, peers, client] },
        );

        this.clientCertificate = pulumi.secret(pulumi.all([certificates.caCrt, certificates.clientCrt, certificates.clientKey]).apply(([caCrt, crt, key]) => ({ caCrt, crt, key })));
        this.registerOutputs({ clientCertificate: this.clientCertificate });
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
