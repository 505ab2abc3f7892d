// KarmadaControlPlane: Karmada installed by its Helm chart on the host cluster (single, on a NodePort;
// or highly available, over Kamino's own etcd and behind Kamino's own load balancer), or an existing control plane; the
// Karmada API kubeconfig, and a provider for the Karmada API.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { loadBalancerSpec, PUBLIC_SERVICE_NAME, publishedKubeconfig } from "./api-endpoint";
import { CHART_POSTRENDER } from "./apiserver-health-check";
import { karmadaChartValues } from "./chart-values";
import { ChartUninstallGuard } from "./chart-uninstall";
import { KarmadaEtcd, KarmadaEtcdArgs } from "./karmada-etcd";
import { serverOf, withServer } from "../../common/kubeconfig";
import { inheritedDependsOn } from "../../common/options";
import { Values } from "../../common/values";

/** Labels `karmadactl join` puts on the objects it creates. */
export const KARMADA_SYSTEM_LABELS = { "karmada.io/system": "true" };
/** Namespace (in the Karmada API and in members) that holds join credentials. */
export const KARMADA_CLUSTER_NAMESPACE = "karmada-cluster";
/** Namespace of the Helm release on the host; Karmada's chart assumes this name. */
export const KARMADA_SYSTEM_NAMESPACE = "karmada-system";

/** Install Karmada with its Helm chart on a host cluster. */
export interface KarmadaHelmInstall {
    /** Provider of the host cluster. */
    hostProvider: k8s.Provider;
    /** Kubeconfig of the host cluster (secret): off kind, the running etcd is read before it is changed. */
    hostKubeconfig?: pulumi.Input<string>;
    /** Chart version with leading `v`, e.g. `v1.18.1`. */
    chartVersion: string;
    /** Chart repository URL. */
    chartRepo: string;
    /** Repository of an image with bash and kubectl for the chart's Jobs. */
    kubectlImage: string;
    /**
     * The host is an existing cluster, which outlives the chart: `destroy` uninstalls the chart there,
     * behind a ChartUninstallGuard (chart-uninstall.ts). A kind or gke host goes with its cluster.
     */
    existingHost?: boolean;
    /** Helm wait timeout; the chart's hook Jobs and images take minutes. */
    timeoutSeconds: number;
    /** karmada-controller-manager feature gates. */
    featureGates: Record<string, boolean>;
    /**
     * Turn on what failover placement needs in karmada-controller-manager (failover.ts); a gate the
     * stack sets itself in `featureGates` still wins.
     */
    failover?: boolean;
    /**
     * karmada-controller-manager's failure-detection flags (detection.ts). The chart's command line
     * has `--cluster-status-update-frequency=10s` and appends these after it; the later one wins.
     */
    detectionArgs?: Record<string, string>;
    /** Extra chart values, merged over Kamino's. */
    values?: Values;
    /**
     * A single Karmada (kind, or an existing host with topology `single`): the API on a NodePort,
     * reached at `server` (kind: this machine's `127.0.0.1:<apiServerHostPort>`, mapped to it).
     */
    nodePort?: {
        /** NodePort of the Karmada API server Service. */
        apiServerNodePort: number;
        /** The Karmada API's URL in the kubeconfig, e.g. `https://127.0.0.1:5443`. */
        server: string;
        /** Names it is reached by, added to the API server certificate's (a kind node container's name, the endpoint). */
        certHosts: string[];
    };
    /** A highly available Karmada: the API behind Kamino's load balancer (api-endpoint.ts). */
    published?: {
        /** The load balancer's address (IP or DNS name), known before the chart makes its certificates. */
        host: pulumi.Input<string>;
        /** The port in the kubeconfig: the load balancer's, or the endpoint's own when it names one. */
        port: number;
        /** CIDRs that may reach the load balancer: the stack's, and the reserved egress of private members joined by Pull. */
        authorizedNetworks: pulumi.Input<string[]>;
        /** Kamino's etcd under it: members, volumes, spread and Jobs, each defaulted when not set. */
        etcd: KarmadaEtcdArgs["settings"];
        /** A gke host: the GCP side of the etcd (Retain StorageClass, backup bucket). */
        gke?: KarmadaEtcdArgs["gke"];
        /** `protect` on what holds Karmada's state (`kamino:protect`). */
        protect?: boolean;
    };
}

/** Arguments of a KarmadaControlPlane: exactly one of `helm` or `existingKubeconfig`. */
export interface KarmadaControlPlaneArgs {
    /** Install Karmada on a host cluster. */
    helm?: KarmadaHelmInstall;
    /** Kubeconfig of a Karmada API server that already runs; secret. */
    existingKubeconfig?: pulumi.Input<string>;
    /** Where to reach an existing Karmada instead of its kubeconfig's server (`kamino:karmada.endpoint`). */
    existingEndpoint?: { host: string; port?: number };
    /** Stable identity of the Karmada API for its provider (e.g. `karmada-<host>`). */
    clusterIdentifier: string;
}

/** The Karmada control plane and a provider for its API. */
export class KarmadaControlPlane extends pulumi.ComponentResource {
    /** Kubeconfig of the Karmada API (the seed's `ikokamino`); secret. */
    public readonly kubeconfig: pulumi.Output<string>;
    /** Provider for objects in the Karmada API. */
    public readonly provider: k8s.Provider;
    /** The Helm release, when Kamino installed Karmada. */
    public readonly release?: k8s.helm.v3.Release;
    /** Karmada's etcd (three members by default), on a host that is not kind. */
    public readonly etcd?: KarmadaEtcd;
    /** Kamino's load balancer in front of the Karmada API, on a host that is not kind. */
    public readonly publicService?: k8s.core.v1.Service;
    /** The Karmada API's URL as its kubeconfig names it: what Kamino, teammates and Pull members dial. */
    public readonly server: pulumi.Output<string>;
    /**
     * `karmada-cluster` in the Karmada API, which holds the members' credentials. Karmada's chart
     * creates it (as `karmadactl init` does), so Kamino does not.
     */
    public readonly clusterNamespace: pulumi.Output<string>;

    constructor(name: string, args: KarmadaControlPlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaControlPlane", name, {}, opts);
        if (!!args.helm === !!args.existingKubeconfig) throw new Error("KarmadaControlPlane needs exactly one of 'helm' and 'existingKubeconfig'");

        if (args.helm) {
            const installed = installChart(name, args.helm, this, opts);
            this.etcd = installed.etcd;
            this.release = installed.release;
            this.publicService = installed.publicService;
            this.kubeconfig = installed.kubeconfig;
        } else {
            const endpoint = args.existingEndpoint;
            this.kubeconfig = pulumi.secret(
                pulumi
                    .output(args.existingKubeconfig!)
                    .apply((kc) => (endpoint ? publishedKubeconfig(kc, endpoint.host, endpoint.port ?? Number(new URL(serverOf(kc)).port || 443)) : kc)),
            );
        }
        this.server = pulumi.unsecret(this.kubeconfig.apply((kc) => serverOf(kc)));

        this.provider = new k8s.Provider(
            `${name}-api`,
            // enableSecretMutable, enableConfigMapMutable: a changed synced Secret or ConfigMap (a rotated
            // license, an edited CPF file) is updated in place. By default the provider replaces one
            // whose data changes (delete, then create), and Karmada would delete it from every member
            // in between.
            { kubeconfig: this.kubeconfig, clusterIdentifier: args.clusterIdentifier, enableSecretMutable: true, enableConfigMapMutable: true },
            { parent: this },
        );

        this.clusterNamespace = pulumi.output(KARMADA_CLUSTER_NAMESPACE);

        this.registerOutputs({ kubeconfig: this.kubeconfig, server: this.server, clusterNamespace: this.clusterNamespace });
    }
}

/** What installing the chart made: the etcd and load balancer off kind, the release, the API kubeconfig. */
interface InstalledChart {
    etcd?: KarmadaEtcd;
    release: k8s.helm.v3.Release;
    publicService?: k8s.core.v1.Service;
    kubeconfig: pulumi.Output<string>;
}

/** Karmada's chart on the host (off kind over Kamino's etcd, behind its load balancer), children of `parent`. */
function installChart(name: string, h: KarmadaHelmInstall, parent: pulumi.Resource, opts?: pulumi.ComponentResourceOptions): InstalledChart {
    if (!h.nodePort === !h.published)
        throw new Error("KarmadaControlPlane's helm install needs exactly one of 'nodePort' and 'published': where the Karmada API is reached");
    const published = h.published;
    // Off kind the chart is installed over a quorum that answers already.
    const etcd = published
        ? new KarmadaEtcd(
              `${name}-etcd`,
              { ...published, hostProvider: h.hostProvider, hostKubeconfig: h.hostKubeconfig, namespace: KARMADA_SYSTEM_NAMESPACE, settings: published.etcd },
              { parent, dependsOn: inheritedDependsOn(opts) },
          )
        : undefined;
    // On an existing host the namespace is Kamino's: a destroy deletes it after the release, and with it
    // what the chart leaves there (chart-uninstall.ts). Highly available, KarmadaEtcd owns it.
    const namespace =
        h.existingHost && !etcd
            ? new k8s.core.v1.Namespace(
                  `${name}-ns`,
                  { metadata: { name: KARMADA_SYSTEM_NAMESPACE } },
                  { parent, provider: h.hostProvider, dependsOn: inheritedDependsOn(opts) },
              )
            : undefined;
    const release = chartRelease(name, h, { etcd, namespace }, parent, opts);
    if (h.existingHost) {
        if (!h.hostKubeconfig) throw new Error("KarmadaControlPlane's helm install on an existing host needs 'hostKubeconfig'");
        new ChartUninstallGuard(
            `${name}-uninstall-guard`,
            { hostKubeconfig: h.hostKubeconfig, namespace: KARMADA_SYSTEM_NAMESPACE },
            { parent, dependsOn: [release] },
        );
    }
    // The chart's pre-install Job writes this Secret; it is not part of the release manifest.
    const generated = k8s.core.v1.Secret.get(`${name}-generated-kubeconfig`, `${KARMADA_SYSTEM_NAMESPACE}/karmada-kubeconfig`, {
        parent,
        provider: h.hostProvider,
        dependsOn: [release],
    });
    const chartKubeconfig = generated.data.apply((data) => Buffer.from(data["kubeconfig"], "base64").toString("utf8"));
    if (published) {
        const publicService = new k8s.core.v1.Service(
            `${name}-api-lb`,
            {
                metadata: { name: PUBLIC_SERVICE_NAME, namespace: KARMADA_SYSTEM_NAMESPACE, labels: KARMADA_SYSTEM_LABELS },
                spec: pulumi
                    .all([published.host, published.authorizedNetworks])
                    .apply(([host, authorizedNetworks]) => loadBalancerSpec({ host, authorizedNetworks })),
            },
            { parent, provider: h.hostProvider, dependsOn: [release] },
        );
        // Through the load balancer's status: nothing dials Karmada before it has its address.
        const kubeconfig = pulumi.secret(
            pulumi.all([chartKubeconfig, published.host, publicService.status]).apply(([kc, host]) => publishedKubeconfig(kc, host, published.port)),
        );
        return { etcd, release, publicService, kubeconfig };
    }
    const server = h.nodePort!.server;
    return { etcd, release, kubeconfig: pulumi.secret(chartKubeconfig.apply((kc) => withServer(kc, server))) };
}

/** The chart's Helm release: into the namespace KarmadaEtcd or Kamino owns, else one Helm makes. */
function chartRelease(
    name: string,
    h: KarmadaHelmInstall,
    owned: { etcd?: KarmadaEtcd; namespace?: k8s.core.v1.Namespace },
    parent: pulumi.Resource,
    opts?: pulumi.ComponentResourceOptions,
): k8s.helm.v3.Release {
    const { etcd, namespace } = owned;
    const published = h.published;
    const chart = { kubectlImage: h.kubectlImage, featureGates: h.featureGates, failover: h.failover, detectionArgs: h.detectionArgs, values: h.values };
    return new k8s.helm.v3.Release(
        `${name}-chart`,
        {
            name: "karmada",
            chart: "karmada",
            version: h.chartVersion,
            repositoryOpts: { repo: h.chartRepo },
            namespace: KARMADA_SYSTEM_NAMESPACE,
            createNamespace: !etcd && !namespace,
            // Off kind the address must be in the certificate from the first install: an upgrade keeps the certificates.
            values:
                published && etcd
                    ? karmadaChartValues({
                          ...chart,
                          published: { host: published.host, etcdServers: etcd.names.servers, etcdClientCertificate: etcd.clientCertificate },
                      })
                    : karmadaChartValues({ ...chart, nodePort: h.nodePort }),
            timeout: h.timeoutSeconds,
            // Off kind, a node's loss must not hang the aggregated API for 45 s: karmada-apiserver's
            // HTTP/2 health check, set by Helm's post-renderer in the release itself (apiserver-health-check.ts).
            postrender: published ? CHART_POSTRENDER : undefined,
        },
        // Named besides the whole etcd: the chart's pods need the quota (GKE) and the Service their `wait` container reads.
        {
            parent,
            provider: h.hostProvider,
            dependsOn: etcd ? [etcd, etcd.criticalPodsQuota, etcd.chartWaitService] : namespace ? [namespace] : inheritedDependsOn(opts),
        },
    );
}
