// The etcd that Karmada keeps its state in off kind (pure): three members in a StatefulSet of
// Kamino's own, on persistent volumes, one per node and one per zone, talking TLS to each other
// and to Karmada's apiservers. Not the chart's etcd: at v1.18.2 its StatefulSet is OrderedReady
// with a /readyz readiness probe, which is false until a quorum exists, so etcd-0 never becomes
// Ready and etcd-1 is never created; and its headless Service does not publish not-ready addresses,
// so peers could not resolve each other before Ready anyway (notes/karmada.md §11). (Its missing
// --initial-advertise-peer-urls is not the cause: etcd replaces `localhost` in its default advertised
// peer URL by the pod IP when it listens on 0.0.0.0.) The chart is pointed here with `etcd.mode: external`.
import * as k8s from "@pulumi/kubernetes";
import { quotaBackendBytes } from "./etcd-space";
import { DEFAULTS } from "../../config";

/** Members: a quorum of two survives the loss of any one node or zone. */
export const ETCD_MEMBERS = 3;
/**
 * etcd 3.6.14, the version the loopback and real-pod tests run (toolchain/versions.env ETCD_VERSION):
 * registry.k8s.io publishes etcd as `<version>-0` (3.6.10-0 and 3.6.11-0 are known); distroless,
 * with etcd and etcdctl, no shell.
 */
export const ETCD_IMAGE = `registry.k8s.io/etcd:${DEFAULTS.karmadaEtcdImageTag}`;
/**
 * The Service chart v1.18.2's karmada-apiserver waits for in its `wait` init container
 * (`templates/_helpers.tpl`, `karmada.initContainer.waitEtcd`, included whatever `etcd.mode` is):
 * an endless loop on `curl ${ETCD_CLIENT_SERVICE_HOST}:${ETCD_CLIENT_SERVICE_PORT}`, the service-link
 * variables of a Service of exactly this name in the release namespace (notes/karmada.md §11).
 */
export const CHART_WAIT_SERVICE = "etcd-client";
/** An unprivileged user and group for the members and the maintenance Jobs (distroless's `nonroot`). */
export const ETCD_USER = 65532;
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
    /** The Service the chart's apiserver pods wait for (CHART_WAIT_SERVICE); nothing dials it by name. */
    chartWaitService: string;
    /**
     * The value of the chart's `etcd.external.servers`: every member, as `karmadactl init` gives its
     * apiserver, so that a client moves off a member that is cut off instead of staying on one ClusterIP.
     */
    servers: string;
}

export function etcdClusterNames(namespace: string, members = ETCD_MEMBERS): EtcdClusterNames {
    const statefulSet = "karmada-etcd";
    const clientService = `${statefulSet}-client`;
    const clientHost = `${clientService}.${namespace}.svc.${CLUSTER_DOMAIN}`;
    const memberNames = Array.from({ length: members }, (_, i) => `${statefulSet}-${i}`);
    const memberHost = (member: string) => `${member}.${statefulSet}.${namespace}.svc.${CLUSTER_DOMAIN}`;
    return {
        namespace,
        statefulSet,
        clientService,
        certSecret: `${statefulSet}-certs`,
        members: memberNames,
        memberHost,
        clientHost,
        chartWaitService: CHART_WAIT_SERVICE,
        servers: memberNames.map((m) => `https://${memberHost(m)}:${ETCD_PORTS.client}`).join(","),
    };
}

/**
 * The names the members' certificate is valid for: every member (by wildcard), the client Service
 * in the forms a pod may dial, and localhost for `etcdctl` inside a member's pod. Not the chart's
 * `etcd-client` Service: its `wait` container only opens a plain TCP connection to it (curl over
 * http, where any answer ends the wait), and no client dials it by name for TLS.
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
export function etcdCommand(n: EtcdClusterNames, volumeSize: string = DEFAULTS.karmadaEtcdVolumeSize): string[] {
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
        // The database may take this much of the volume (etcd-space.ts says why); past it etcd only reads and deletes.
        `--quota-backend-bytes=${quotaBackendBytes(volumeSize)}`,
        // kube-apiserver compacts every 5 min itself; this keeps history bounded should a client not.
        "--auto-compaction-mode=periodic",
        "--auto-compaction-retention=1h",
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
    /** StorageClass of the volumes; Kamino's Retain class on a gke host, the host's default elsewhere, when unset. */
    storageClass?: string;
    /**
     * `required`: one member per zone, the pods wait (Pending) rather than share a zone; `preferred`:
     * spread where possible (a host with fewer zones than members, or none labelled).
     */
    zoneSpread: "required" | "preferred";
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

/** What the StatefulSet depends on besides the names: the volumes, the spread, and the certificates' revision. */
export interface EtcdPodInput extends Pick<EtcdSettings, "volumeSize" | "storageClass"> {
    /** Changes when the certificates are renewed, so that the members restart one at a time with them. */
    certificateRevision: string;
    /** Over zones: `required` unless said otherwise. */
    zoneSpread?: EtcdSettings["zoneSpread"];
}

/** The pods run as an unprivileged user on a read-only root, with no Kubernetes credential: etcd needs none. */
export const ETCD_POD_SECURITY: k8s.types.input.core.v1.PodSecurityContext = {
    runAsNonRoot: true,
    runAsUser: ETCD_USER,
    runAsGroup: ETCD_USER,
    // The volume and the certificate files become the group's, so the unprivileged user can use them.
    fsGroup: ETCD_USER,
    seccompProfile: { type: "RuntimeDefault" },
};
export const ETCD_CONTAINER_SECURITY: k8s.types.input.core.v1.SecurityContext = {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
};

/**
 * Requests for a small cluster (Karmada's objects for a fleet of tens of members: megabytes). etcd's
 * hardware guide (etcd.io/docs/v3.6/op-guide/hardware) plans 2 cores and 8 GB for a small dedicated
 * machine; a pod beside Karmada's components needs a fraction of it reserved. No limits: a CPU limit
 * throttles heartbeats into leader elections, and a memory limit turns a spike into a lost member.
 */
export const ETCD_RESOURCES = { requests: { cpu: "500m", memory: "1Gi" } };

/**
 * Probes on the metrics port. Bootstrap (a member waits for its peers) is the startup probe's: up
 * to 5 min. After it, a member cut off from the quorum leaves the Services within 15 s, and one
 * whose server hangs is restarted after 30 s (/livez needs no quorum).
 */
export const ETCD_PROBES = {
    startupProbe: { httpGet: { path: "/readyz", port: ETCD_PORTS.metrics }, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 60 },
    readinessProbe: { httpGet: { path: "/readyz", port: ETCD_PORTS.metrics }, periodSeconds: 5, timeoutSeconds: 4, failureThreshold: 3 },
    livenessProbe: { httpGet: { path: "/livez", port: ETCD_PORTS.metrics }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
};

/**
 * Where the members go: never two on a node; one per zone. `required` makes a member wait for a
 * zone of its own rather than share one: zonal volumes bind where a pod first runs, so a member
 * placed beside another would stay there, and one zone's outage would take the quorum. `minDomains`
 * keeps the scheduler from counting only the zones it sees nodes in.
 */
export function etcdPlacement(
    labels: Record<string, string>,
    members: number,
    zoneSpread: EtcdSettings["zoneSpread"] = "required",
): Pick<k8s.types.input.core.v1.PodSpec, "affinity" | "topologySpreadConstraints"> {
    const zone = zoneSpread === "required" ? { whenUnsatisfiable: "DoNotSchedule", minDomains: members } : { whenUnsatisfiable: "ScheduleAnyway" };
    return {
        affinity: {
            podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: "kubernetes.io/hostname" }],
            },
        },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", ...zone, labelSelector: { matchLabels: labels } }],
    };
}

/**
 * The StatefulSet: pods start in parallel (a member waits for its peers to bootstrap, so one at a
 * time would never finish), at most one per node and one per zone.
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
                // Admitted off kube-system on GKE by the quota of etcd-policies.ts.
                priorityClassName: "system-node-critical",
                automountServiceAccountToken: false,
                enableServiceLinks: false,
                securityContext: ETCD_POD_SECURITY,
                ...etcdPlacement(labels, n.members.length, p.zoneSpread),
                containers: [
                    {
                        name: "etcd",
                        image: ETCD_IMAGE,
                        command: etcdCommand(n, p.volumeSize),
                        env: [
                            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
                        ],
                        ports: [
                            { name: "client", containerPort: ETCD_PORTS.client },
                            { name: "peer", containerPort: ETCD_PORTS.peer },
                            { name: "metrics", containerPort: ETCD_PORTS.metrics },
                        ],
                        ...ETCD_PROBES,
                        resources: ETCD_RESOURCES,
                        securityContext: ETCD_CONTAINER_SECURITY,
                        volumeMounts: [
                            { name: "data", mountPath: ETCD_DATA_DIR },
                            { name: "certs", mountPath: ETCD_CERT_DIR, readOnly: true },
                        ],
                    },
                ],
                // Readable by the owner and the fsGroup: the unprivileged user reads them through its group.
                volumes: [{ name: "certs", secret: { secretName: n.certSecret, defaultMode: 0o440 } }],
            },
        },
        volumeClaimTemplates: [
            {
                metadata: { name: "data" },
                spec: {
                    accessModes: ["ReadWriteOnce"],
                    ...(p.storageClass ? { storageClassName: p.storageClass } : {}),
                    resources: { requests: { storage: p.volumeSize } },
                },
            },
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

/** The client Service: ready members only. The backup Job dials it; Karmada's apiservers dial the members. */
export function etcdClientServiceSpec(n: EtcdClusterNames): k8s.types.input.core.v1.ServiceSpec {
    return { selector: etcdLabels(n), ports: [{ name: "client", port: ETCD_PORTS.client }] };
}

/**
 * The Service the chart's karmada-apiserver pods wait for (CHART_WAIT_SERVICE): the client Service's
 * selector and port, so that their `wait` container sees ready members. Made before the chart, since
 * service-link variables are fixed when a pod starts.
 */
export function etcdChartWaitServiceSpec(n: EtcdClusterNames): k8s.types.input.core.v1.ServiceSpec {
    return etcdClientServiceSpec(n);
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
