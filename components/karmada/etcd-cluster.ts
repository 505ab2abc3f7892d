// The etcd that Karmada keeps its state in off kind (pure): three members in a StatefulSet of
// Kamino's own, on persistent volumes, one per node and spread over zones, talking TLS to each other
// and to Karmada's apiservers. Not the chart's etcd: chart v1.18.2 starts its members without
// --initial-advertise-peer-urls, so each advertises http://localhost:2380 and more than one member
// never bootstraps (notes/karmada.md §8). The chart is pointed here with `etcd.mode: external`.
import * as k8s from "@pulumi/kubernetes";

/** Members: a quorum of two survives the loss of any one node or zone. */
export const ETCD_MEMBERS = 3;
/** The image of the chart's own etcd at v1.18.2: the same etcd 3.6 that the loopback test runs. */
export const ETCD_IMAGE = "registry.k8s.io/etcd:3.6.6-0";
/** The cluster DNS domain of GKE and of most clusters; the chart assumes it too (`clusterDomain`). */
export const CLUSTER_DOMAIN = "cluster.local";
/** The common name peers must present (`--peer-cert-allowed-cn`): Karmada's client certificate is not a peer. */
export const ETCD_PEER_CN = "karmada-etcd-peer";
/** The common name of the client certificate Karmada's apiservers present. */
export const ETCD_CLIENT_CN = "karmada-etcd-client";
/** Where the member's certificate Secret is mounted. */
export const ETCD_CERT_DIR = "/etc/etcd/pki";
/** Where the member's volume is mounted. */
export const ETCD_DATA_DIR = "/var/lib/etcd";
/** Key prefix of Karmada's objects: kube-apiserver's default, which the chart's own etcd also uses, so a snapshot of either restores into the other. */
export const ETCD_REGISTRY_PREFIX = "/registry";

export const ETCD_PORTS = { client: 2379, peer: 2380, metrics: 2381 } as const;

/** The names of the etcd cluster's objects and members in one namespace. */
export interface EtcdClusterNames {
    namespace: string;
    /** StatefulSet, and the headless Service that gives each member its DNS name. */
    statefulSet: string;
    /** The Service Karmada's apiservers dial. */
    clientService: string;
    /** The Secret with the members' certificate. */
    certSecret: string;
    /** Member (pod) names, in order. */
    members: string[];
    /** `<member>.<statefulSet>.<namespace>.svc.<domain>`: stable across restarts, unlike a pod IP. */
    memberHost: (member: string) => string;
    /** The client Service's full DNS name. */
    clientHost: string;
    /** The value of the chart's `etcd.external.servers`. */
    servers: string;
}

export function etcdClusterNames(namespace: string, members = ETCD_MEMBERS): EtcdClusterNames {
    const statefulSet = "karmada-etcd";
    const clientService = `${statefulSet}-client`;
    const clientHost = `${clientService}.${namespace}.svc.${CLUSTER_DOMAIN}`;
    return {
        namespace,
        statefulSet,
        clientService,
        certSecret: `${statefulSet}-certs`,
        members: Array.from({ length: members }, (_, i) => `${statefulSet}-${i}`),
        memberHost: (member) => `${member}.${statefulSet}.${namespace}.svc.${CLUSTER_DOMAIN}`,
        clientHost,
        servers: `https://${clientHost}:${ETCD_PORTS.client}`,
    };
}

/**
 * The names the members' certificate is valid for: every member (by wildcard), the client Service
 * in the forms a pod may dial, and localhost for `etcdctl` inside a member's pod.
 */
export function etcdCertificateHosts(n: EtcdClusterNames): string[] {
    const svc = `${n.clientService}.${n.namespace}`;
    return [`*.${n.statefulSet}.${n.namespace}.svc.${CLUSTER_DOMAIN}`, n.clientHost, `${svc}.svc`, svc, n.clientService, "localhost", "127.0.0.1"];
}

/**
 * A member's command line. `$(POD_NAME)` and `$(POD_IP)` are the pod's, from the downward API
 * (Kubernetes expands them). Members find each other by their stable DNS names; a pod that comes
 * back on a new IP keeps its name and its volume, so it rejoins as itself.
 * - `--initial-advertise-peer-urls` is what the chart leaves out.
 * - Peers are trusted by the CA and the peer common name; `--peer-skip-client-san-verification`
 *   drops etcd's extra check of a peer's source address against its certificate's names, which
 *   would make every peer connection depend on reverse lookups in the cluster's DNS.
 */
export function etcdCommand(n: EtcdClusterNames): string[] {
    const self = n.memberHost("$(POD_NAME)");
    const pki = (f: string) => `${ETCD_CERT_DIR}/${f}`;
    return [
        "etcd",
        "--name=$(POD_NAME)",
        `--data-dir=${ETCD_DATA_DIR}`,
        // 127.0.0.1 too: for etcdctl in the pod and `kubectl port-forward` (a backup; docs/production.md).
        `--listen-client-urls=https://$(POD_IP):${ETCD_PORTS.client},https://127.0.0.1:${ETCD_PORTS.client}`,
        `--advertise-client-urls=https://${self}:${ETCD_PORTS.client}`,
        `--listen-peer-urls=https://$(POD_IP):${ETCD_PORTS.peer}`,
        `--initial-advertise-peer-urls=https://${self}:${ETCD_PORTS.peer}`,
        `--initial-cluster=${n.members.map((m) => `${m}=https://${n.memberHost(m)}:${ETCD_PORTS.peer}`).join(",")}`,
        "--initial-cluster-state=new",
        `--initial-cluster-token=${n.statefulSet}`,
        `--listen-metrics-urls=http://$(POD_IP):${ETCD_PORTS.metrics}`,
        `--cert-file=${pki("tls.crt")}`,
        `--key-file=${pki("tls.key")}`,
        `--trusted-ca-file=${pki("ca.crt")}`,
        "--client-cert-auth=true",
        `--peer-cert-file=${pki("tls.crt")}`,
        `--peer-key-file=${pki("tls.key")}`,
        `--peer-trusted-ca-file=${pki("ca.crt")}`,
        "--peer-client-cert-auth=true",
        `--peer-cert-allowed-cn=${ETCD_PEER_CN}`,
        "--peer-skip-client-san-verification=true",
    ];
}

/** The pods' labels; the Services and the PodDisruptionBudget select by them. */
export const etcdLabels = (n: EtcdClusterNames) => ({ app: n.statefulSet, "karmada.io/system": "true" });

/** What a stack may choose of its etcd (`kamino:karmada.etcd`). */
export interface EtcdSettings {
    /** 3 or 5: a quorum survives one or two members lost. */
    members: number;
    /** Size of each member's volume. */
    volumeSize: string;
    /** StorageClass of the volumes; the host's default when unset. */
    storageClass?: string;
}

/**
 * Why a running etcd cannot take another member count from the stack (pure; undefined when it can).
 * Members bootstrap once, as a cluster of the count they started with; more or fewer later is a
 * membership change etcd makes one member at a time, which the StatefulSet cannot do.
 */
export function etcdMembersChange(configured: number, running: number | undefined): string | undefined {
    if (running === undefined || running === configured) return undefined;
    return (
        `kamino:karmada.etcd.members = ${configured}: Karmada's etcd runs with ${running} members, and a running etcd cannot change its count this way; ` +
        `fix: set it back to ${running}, or move to ${configured} by a snapshot restored into ${configured} members (docs/production.md, Backing up and restoring Karmada's etcd)`
    );
}

/** What the StatefulSet depends on besides the names: the volumes, and the certificates' revision. */
export interface EtcdPodInput extends Pick<EtcdSettings, "volumeSize" | "storageClass"> {
    /** Changes when the certificates are renewed, so that the members restart one at a time with them. */
    certificateRevision: string;
}

/**
 * The StatefulSet: pods start in parallel (a member waits for its peers to bootstrap, so one at a
 * time would never finish), at most one per node, spread over zones where there are several.
 */
export function etcdStatefulSetSpec(n: EtcdClusterNames, p: EtcdPodInput): k8s.types.input.apps.v1.StatefulSetSpec {
    const labels = etcdLabels(n);
    return {
        replicas: n.members.length,
        serviceName: n.statefulSet,
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate" },
        selector: { matchLabels: labels },
        template: {
            metadata: { labels, annotations: { "kamino.io/certificate-revision": p.certificateRevision } },
            spec: {
                priorityClassName: "system-node-critical",
                affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: "kubernetes.io/hostname" }] } },
                topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: labels } }],
                containers: [
                    {
                        name: "etcd",
                        image: ETCD_IMAGE,
                        command: etcdCommand(n),
                        env: [
                            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
                        ],
                        ports: [
                            { name: "client", containerPort: ETCD_PORTS.client },
                            { name: "peer", containerPort: ETCD_PORTS.peer },
                            { name: "metrics", containerPort: ETCD_PORTS.metrics },
                        ],
                        // The chart's own probes: /readyz is false without a quorum.
                        readinessProbe: { httpGet: { path: "/readyz", port: ETCD_PORTS.metrics }, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 30 },
                        livenessProbe: { httpGet: { path: "/livez", port: ETCD_PORTS.metrics }, initialDelaySeconds: 60, periodSeconds: 10, timeoutSeconds: 5 },
                        resources: { requests: { cpu: "100m", memory: "256Mi" } },
                        volumeMounts: [
                            { name: "data", mountPath: ETCD_DATA_DIR },
                            { name: "certs", mountPath: ETCD_CERT_DIR, readOnly: true },
                        ],
                    },
                ],
                volumes: [{ name: "certs", secret: { secretName: n.certSecret, defaultMode: 0o400 } }],
            },
        },
        volumeClaimTemplates: [
            { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], ...(p.storageClass ? { storageClassName: p.storageClass } : {}), resources: { requests: { storage: p.volumeSize } } } },
        ],
    };
}

/** The headless Service that names each member; names exist before a pod is ready, so peers find each other while bootstrapping. */
export function etcdPeerServiceSpec(n: EtcdClusterNames): k8s.types.input.core.v1.ServiceSpec {
    return {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: etcdLabels(n),
        ports: [
            { name: "client", port: ETCD_PORTS.client },
            { name: "peer", port: ETCD_PORTS.peer },
        ],
    };
}

/** The Service Karmada's apiservers dial: ready members only. */
export function etcdClientServiceSpec(n: EtcdClusterNames): k8s.types.input.core.v1.ServiceSpec {
    return { selector: etcdLabels(n), ports: [{ name: "client", port: ETCD_PORTS.client }] };
}

/** A voluntary disruption (a node drain, an upgrade) takes at most one member: the quorum stays. */
export function etcdDisruptionBudgetSpec(n: EtcdClusterNames): k8s.types.input.policy.v1.PodDisruptionBudgetSpec {
    return { minAvailable: Math.floor(n.members.length / 2) + 1, selector: { matchLabels: etcdLabels(n) } };
}

/** The PEMs Karmada's apiservers connect with, under the names of the chart's `etcd.external.certs`. */
export interface EtcdClientCertificate {
    caCrt: string;
    crt: string;
    key: string;
}
