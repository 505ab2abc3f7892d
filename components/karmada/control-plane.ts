// KarmadaControlPlane: Karmada installed by its Helm chart on the host cluster (or an existing
// control plane), the Karmada API kubeconfig, and a provider for the Karmada API.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { FAILOVER_CONTROLLER_ARGS, FAILOVER_FEATURE_GATES } from "./failover";
import { withServer } from "../common/kubeconfig";
import { inheritedDependsOn } from "../common/options";
import { mergeValues, Values } from "../common/values";

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
    /** Name of the host's control-plane node container, added to the API server certificate SANs. */
    hostNodeName?: string;
    /** Chart version with leading `v`, e.g. `v1.15.0`. */
    chartVersion: string;
    /** Chart repository URL. */
    chartRepo: string;
    /** Repository of an image with bash and kubectl for the chart's Jobs. */
    kubectlImage: string;
    /** NodePort of the Karmada API server Service. */
    apiServerNodePort: number;
    /** Host port mapped to that NodePort; the kubeconfig points at `https://127.0.0.1:<hostPort>`. */
    apiServerHostPort: number;
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
}

/** Arguments of a KarmadaControlPlane: exactly one of `helm` or `existingKubeconfig`. */
export interface KarmadaControlPlaneArgs {
    /** Install Karmada on a host cluster. */
    helm?: KarmadaHelmInstall;
    /** Kubeconfig of a Karmada API server that already runs; secret. */
    existingKubeconfig?: pulumi.Input<string>;
    /** Stable identity of the Karmada API for its provider (e.g. `karmada-<host>`). */
    clusterIdentifier: string;
}

/** The certificate SANs of the chart's defaults; Helm replaces lists, so they are repeated. */
export const KARMADA_DEFAULT_CERT_HOSTS = [
    "kubernetes.default.svc",
    "*.etcd.{{ .Release.Namespace }}.svc.{{ .Values.clusterDomain }}",
    "*.{{ .Release.Namespace }}.svc.{{ .Values.clusterDomain }}",
    "*.{{ .Release.Namespace }}.svc",
    "localhost",
    "127.0.0.1",
];

/** Chart values for a Karmada host on kind, reachable from this machine through a NodePort. */
export function karmadaChartValues(h: KarmadaHelmInstall): Values {
    return mergeValues(
        {
            installMode: "host",
            kubectl: { image: { registry: "docker.io", repository: h.kubectlImage, tag: "latest" } },
            apiServer: { serviceType: "NodePort", nodePort: h.apiServerNodePort },
            certs: { mode: "auto", auto: { hosts: [...KARMADA_DEFAULT_CERT_HOSTS, ...(h.hostNodeName ? [h.hostNodeName] : [])] } },
            controllerManager: {
                featureGates: h.failover ? { ...FAILOVER_FEATURE_GATES, ...h.featureGates } : h.featureGates,
                ...(h.failover || h.detectionArgs ? { extraCommandArgs: { ...h.detectionArgs, ...(h.failover ? FAILOVER_CONTROLLER_ARGS : {}) } } : {}),
            },
        },
        h.values ?? {},
    );
}

/** The Karmada control plane and a provider for its API. */
export class KarmadaControlPlane extends pulumi.ComponentResource {
    /** Kubeconfig of the Karmada API (the seed's `ikokamino`); secret. */
    public readonly kubeconfig: pulumi.Output<string>;
    /** Provider for objects in the Karmada API. */
    public readonly provider: k8s.Provider;
    /** The Helm release, when Kamino installed Karmada. */
    public readonly release?: k8s.helm.v3.Release;
    /**
     * `karmada-cluster` in the Karmada API, which holds the members' credentials. Karmada's chart
     * creates it (as `karmadactl init` does), so Kamino does not.
     */
    public readonly clusterNamespace: pulumi.Output<string>;

    constructor(name: string, args: KarmadaControlPlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaControlPlane", name, {}, opts);
        if (!!args.helm === !!args.existingKubeconfig) {
            throw new Error("KarmadaControlPlane needs exactly one of 'helm' and 'existingKubeconfig'");
        }

        if (args.helm) {
            const h = args.helm;
            this.release = new k8s.helm.v3.Release(
                `${name}-chart`,
                {
                    name: "karmada",
                    chart: "karmada",
                    version: h.chartVersion,
                    repositoryOpts: { repo: h.chartRepo },
                    namespace: KARMADA_SYSTEM_NAMESPACE,
                    createNamespace: true,
                    values: karmadaChartValues(h),
                    timeout: h.timeoutSeconds,
                },
                { parent: this, provider: h.hostProvider, dependsOn: inheritedDependsOn(opts) },
            );
            // The chart's pre-install Job writes this Secret; it is not part of the release manifest.
            const generated = k8s.core.v1.Secret.get(
                `${name}-generated-kubeconfig`,
                `${KARMADA_SYSTEM_NAMESPACE}/karmada-kubeconfig`,
                { parent: this, provider: h.hostProvider, dependsOn: [this.release] },
            );
            this.kubeconfig = pulumi.secret(
                generated.data.apply((data) =>
                    withServer(Buffer.from(data["kubeconfig"], "base64").toString("utf8"), `https://127.0.0.1:${h.apiServerHostPort}`),
                ),
            );
        } else {
            this.kubeconfig = pulumi.secret(pulumi.output(args.existingKubeconfig!));
        }

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

        this.registerOutputs({ kubeconfig: this.kubeconfig, clusterNamespace: this.clusterNamespace });
    }
}
