// The Karmada chart's values as Kamino sets them (pure): a single Karmada (one replica of each
// component, the chart's own etcd) published through a NodePort, on kind or an existing host; or a
// highly available one whose certificates name the address its load balancer has and whose state is
// in Kamino's three-member etcd (etcd-cluster.ts). The Kubernetes and etcd images are pinned to the
// versions the tests run as real pods (DEFAULTS). Every key set here is one the chart reads
// (CHART_KEYS, from charts/karmada at v1.18.1; test/unit/karmada-host.test.ts keeps them to it,
// test/engine/karmada-chart.test.ts renders the real chart with them).
import type * as pulumi from "@pulumi/pulumi";
import { EtcdClientCertificate, ETCD_REGISTRY_PREFIX } from "./etcd-cluster";
import { FAILOVER_CONTROLLER_ARGS, FAILOVER_FEATURE_GATES } from "../failover/failover";
import { mergeValues, Values } from "../../common/values";
import { DEFAULTS } from "../../config";

/** The certificate SANs of the chart's defaults; Helm replaces lists, so they are repeated. */
export const KARMADA_DEFAULT_CERT_HOSTS = [
    "kubernetes.default.svc",
    "*.etcd.{{ .Release.Namespace }}.svc.{{ .Values.clusterDomain }}",
    "*.{{ .Release.Namespace }}.svc.{{ .Values.clusterDomain }}",
    "*.{{ .Release.Namespace }}.svc",
    "localhost",
    "127.0.0.1",
];

/** The components Kamino runs twice on a non-kind host (leader election is on in each by default). */
export const HA_COMPONENTS = ["apiServer", "aggregatedApiServer", "controllerManager", "scheduler", "webhook", "kubeControllerManager"] as const;

/** What the values depend on. */
export interface KarmadaChartInput {
    /** Repository of an image with bash and kubectl for the chart's Jobs. */
    kubectlImage: string;
    /** karmada-controller-manager feature gates. */
    featureGates: Record<string, boolean>;
    /** Turn on what failover placement needs in karmada-controller-manager; a gate the stack sets still wins. */
    failover?: boolean;
    /** karmada-controller-manager's failure-detection flags; appended after the chart's own, so they win. */
    detectionArgs?: Record<string, string>;
    /** Extra chart values, merged over Kamino's. */
    values?: Values;
    /**
     * A single Karmada: the API's NodePort, and the names it is reached by besides the chart's
     * defaults (a kind node container's name, an existing host's endpoint), for the certificate.
     */
    nodePort?: { apiServerNodePort: number; certHosts: string[] };
    /**
     * Off kind: the address the load balancer has (IP or DNS name), for the certificate; the external
     * etcd's client URL and the apiservers' certificate for it. The address and the certificate may
     * be Outputs: they stay leaves of the values, so the certificate's key is a secret there while
     * the rest of the values stays readable in a preview's diff.
     */
    published?: { host: pulumi.Input<string>; etcdServers: string; etcdClientCertificate?: pulumi.Input<EtcdClientCertificate> };
}

/** The chart's values for Karmada on its host. */
export function karmadaChartValues(i: KarmadaChartInput): Values {
    const extraHosts = i.nodePort ? i.nodePort.certHosts.filter((h) => !KARMADA_DEFAULT_CERT_HOSTS.includes(h)) : i.published ? [i.published.host] : [];
    const kubeImage = { image: { tag: DEFAULTS.karmadaKubeImageTag } };
    return mergeValues(
        {
            installMode: "host",
            kubectl: { image: { registry: "docker.io", repository: i.kubectlImage, tag: "latest" } },
            // Highly available, the chart's Service stays ClusterIP: Kamino's own load balancer publishes the API (api-endpoint.ts).
            apiServer: { ...kubeImage, ...(i.nodePort ? { serviceType: "NodePort", nodePort: i.nodePort.apiServerNodePort } : {}) },
            kubeControllerManager: kubeImage,
            ...(i.nodePort ? { etcd: { internal: { image: { tag: DEFAULTS.karmadaEtcdImageTag } } } } : {}),
            certs: { mode: "auto", auto: { hosts: [...KARMADA_DEFAULT_CERT_HOSTS, ...extraHosts] } },
            controllerManager: {
                featureGates: i.failover ? { ...FAILOVER_FEATURE_GATES, ...i.featureGates } : i.featureGates,
                ...(i.failover || i.detectionArgs ? { extraCommandArgs: { ...i.detectionArgs, ...(i.failover ? FAILOVER_CONTROLLER_ARGS : {}) } } : {}),
            },
        },
        i.published ? highlyAvailable(i.published.etcdServers, i.published.etcdClientCertificate) : {},
        i.values ?? {},
    );
}

/** The label the chart's apiserver pods carry, set explicitly so that Kamino's load balancer can select them. */
export const APISERVER_POD_LABELS = { app: "karmada-apiserver" };
/**
 * The aggregated apiserver's label, the chart's default (`karmada.aggregatedApiServer.labels` in
 * `_helpers.tpl`), set explicitly so that etcd's NetworkPolicy can let it in (etcd-policies.ts).
 */
export const AGGREGATED_APISERVER_POD_LABELS = { app: "karmada-aggregated-apiserver" };

/**
 * The `app` label of each component's pods, set explicitly: the anti-affinity below and Kamino's
 * Services select by it. Each is the chart's own default, since the chart's Deployments select their
 * pods by it and a selector cannot change on an installed Deployment.
 */
export const HA_COMPONENT_APPS: Record<(typeof HA_COMPONENTS)[number], string> = {
    apiServer: APISERVER_POD_LABELS.app,
    aggregatedApiServer: AGGREGATED_APISERVER_POD_LABELS.app,
    controllerManager: "karmada-controller-manager",
    scheduler: "karmada-scheduler",
    webhook: "karmada-webhook",
    kubeControllerManager: "kube-controller-manager",
};

/** No two pods of one component on a node: a node's loss leaves one of each (the chart requires it of its apiservers alone). */
export const onePerNode = (app: string) => ({
    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: "kubernetes.io/hostname" }] },
});

/**
 * A Karmada that survives the loss of a node: two of every control-plane component (leader
 * election is on in each), never two on one node, and a PodDisruptionBudget for each, so that a
 * node drain keeps one running; its state in Kamino's three-member etcd (`etcd.mode: external`),
 * not the chart's, which cannot have more than one member at v1.18.x (etcd-cluster.ts).
 */
export function highlyAvailable(etcdServers: string, etcdClientCertificate?: pulumi.Input<EtcdClientCertificate>): Values {
    return {
        etcd: {
            mode: "external",
            external: { servers: etcdServers, registryPrefix: ETCD_REGISTRY_PREFIX, ...(etcdClientCertificate ? { certs: etcdClientCertificate } : {}) },
        },
        ...Object.fromEntries(
            HA_COMPONENTS.map((c) => [
                c,
                {
                    replicaCount: 2,
                    podDisruptionBudget: { minAvailable: 1 },
                    labels: { app: HA_COMPONENT_APPS[c] },
                    affinity: onePerNode(HA_COMPONENT_APPS[c]),
                },
            ]),
        ),
    };
}

/**
 * The keys Kamino may set, as dotted paths (a map below them is the chart's to read, e.g. feature
 * gates). Read from charts/karmada/values.yaml and its templates at v1.18.1 (identical at v1.18.2) (../shared/notes/karmada.md §1.1, §8).
 */
export const CHART_KEYS = [
    "installMode",
    "kubectl.image.registry",
    "kubectl.image.repository",
    "kubectl.image.tag",
    "certs.mode",
    "certs.auto.hosts",
    "apiServer.serviceType",
    "apiServer.nodePort",
    "apiServer.image.tag",
    "kubeControllerManager.image.tag",
    "etcd.internal.image.tag",
    "controllerManager.featureGates",
    "controllerManager.extraCommandArgs",
    "etcd.mode",
    "etcd.external.servers",
    "etcd.external.registryPrefix",
    "etcd.external.certs.caCrt",
    "etcd.external.certs.crt",
    "etcd.external.certs.key",
    ...HA_COMPONENTS.flatMap((c) => [`${c}.replicaCount`, `${c}.podDisruptionBudget.minAvailable`, `${c}.labels.app`, `${c}.affinity`]),
] as const;

/** The dotted paths of a values tree's leaves; a map under a key in `opaque` counts as one leaf. */
export function valuePaths(
    v: Values,
    opaque: readonly string[] = ["controllerManager.featureGates", "controllerManager.extraCommandArgs", ...HA_COMPONENTS.map((c) => `${c}.affinity`)],
    prefix = "",
): string[] {
    return Object.entries(v).flatMap(([k, x]) => {
        const p = prefix ? `${prefix}.${k}` : k;
        return typeof x === "object" && x !== null && !Array.isArray(x) && !opaque.includes(p) ? valuePaths(x as Values, opaque, p) : [p];
    });
}
