// The Karmada API off kind: a Service of type LoadBalancer of Kamino's own in front of the chart's
// apiserver pods, at an address known before the chart makes its certificates (a static regional IP
// that Kamino reserves on GKE, the user's `endpoint` elsewhere), open only to the authorized networks.
// Not the chart's Service: it takes only a type and annotations (no loadBalancerIP, no
// loadBalancerSourceRanges; notes/karmada.md §8), and cloud annotations would tie Kamino to one cloud.
// These two spec fields are honoured by GKE and by the usual on-premises load balancers.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { isIP } from "net";
import { APISERVER_POD_LABELS } from "./chart-values";
import { withServer } from "../../common/kubeconfig";
import { DEFAULTS, FleetPlan, GkeClusterConfig } from "../../config";
import type { KarmadaHelmInstall } from "./control-plane";

/** Name of Kamino's load balancer Service in the host's `karmada-system`. */
export const PUBLIC_SERVICE_NAME = "karmada-apiserver-public";

/** The port the chart's apiserver serves on, and the load balancer's. */
export const KARMADA_API_PORT = 5443;

/** The load balancer Service's spec (pure). An IP endpoint is asked for; a DNS name is the user's to point at it. */
export function loadBalancerSpec(a: { host: string; authorizedNetworks: string[] }): k8s.types.input.core.v1.ServiceSpec {
    return {
        type: "LoadBalancer",
        selector: APISERVER_POD_LABELS,
        ports: [{ name: "https", port: KARMADA_API_PORT, targetPort: KARMADA_API_PORT, protocol: "TCP" }],
        ...(isIP(a.host) ? { loadBalancerIP: a.host } : {}),
        loadBalancerSourceRanges: a.authorizedNetworks,
        // Only to nodes running a Ready karmada-apiserver, each to its own: the load balancer's health
        // check (kube-proxy's healthCheckNodePort) drops a lost node at once, where with "Cluster" every
        // node kept forwarding to the lost node's pod until the host marked that node not Ready (seen in
        // the node-loss drill: calls failing for 20 s, and a Pull agent that lost its lease).
        externalTrafficPolicy: "Local",
    };
}

/** `https://<host>:<port>`, with brackets for an IPv6 address. */
export const apiServerUrl = (host: string, port: number) => `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;

/** The kubeconfig pointed at the published address (the chart writes one for its in-cluster Service name). */
export const publishedKubeconfig = (kubeconfig: string, host: string, port: number) => withServer(kubeconfig, apiServerUrl(host, port));

/** Arguments of a KarmadaStaticAddress. */
export interface KarmadaStaticAddressArgs {
    /** GCP project of the host cluster. */
    project: string;
    /** Region of the host cluster: a regional external address is what a GKE LoadBalancer Service can take. */
    region: string;
    /** Name of the address in GCP. */
    addressName: string;
    /** The host's GCP provider (its project): the stack disables the default gcp provider. */
    gcpProvider?: pulumi.ProviderResource;
}

/** A static regional external IP address for the Karmada API on a GKE host, reserved before the chart installs. */
export class KarmadaStaticAddress extends pulumi.ComponentResource {
    /** The reserved IP address. */
    public readonly address: pulumi.Output<string>;

    constructor(name: string, args: KarmadaStaticAddressArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaStaticAddress", name, {}, opts);
        // Loaded only by stacks with a GKE host, as gke-cluster.ts does: @pulumi/gcp is slow to load.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const gcp = require("@pulumi/gcp") as typeof import("@pulumi/gcp");
        const reserved = new gcp.compute.Address(
            `${name}-ip`,
            {
                name: args.addressName,
                project: args.project,
                region: args.region,
                addressType: "EXTERNAL",
                networkTier: "PREMIUM",
                description: "The Karmada API's load balancer (Kamino)",
            },
            { parent: this, provider: args.gcpProvider },
        );
        this.address = reserved.address;
        this.registerOutputs({ address: this.address });
    }
}

/** The static regional address of a GKE host's Karmada API, in the host's project and region (reserved beside the cluster). */
export function reserveKarmadaAddress(
    host: GkeClusterConfig,
    gcpProvider: pulumi.ProviderResource | undefined,
    parent: pulumi.Resource,
): pulumi.Output<string> {
    const region = host.region ?? host.zone!.replace(/-[a-z]$/, "");
    return new KarmadaStaticAddress("karmada-address", { project: host.project!, region, addressName: `${host.name}-karmada-api`, gcpProvider }, { parent })
        .address;
}

/** Backups of a gke host's etcd when the stack says nothing of them. */
const DEFAULT_BACKUP = {
    enabled: true,
    schedule: DEFAULTS.karmadaEtcdBackupSchedule,
    retentionDays: DEFAULTS.karmadaEtcdBackupRetentionDays,
    uploaderImage: DEFAULTS.karmadaEtcdBackupUploaderImage,
};

/**
 * Off kind: the load balancer's address and allowed ranges, Kamino's etcd under the chart and, on a
 * gke host, its GCP side. The ranges are the stack's, and the reserved egress addresses given
 * (those of the private members that join by Pull, whose agents dial Karmada from there).
 */
export function publishedInstall(
    plan: FleetPlan,
    at: { gcpProvider?: pulumi.ProviderResource; egress: pulumi.Output<string[]>[]; parent: pulumi.Resource },
): NonNullable<KarmadaHelmInstall["published"]> {
    const cfg = plan.config;
    const host = plan.host.config;
    const endpoint = plan.karmada.endpoint;
    const k = cfg.karmada;
    const gke = host.provider === "gke" ? host : undefined;
    const { backup, ...etcd } = k.etcd ?? { backup: undefined };
    return {
        host: gke ? reserveKarmadaAddress(gke, at.gcpProvider, at.parent) : endpoint!.host,
        port: endpoint?.port ?? KARMADA_API_PORT,
        authorizedNetworks: pulumi.all(at.egress).apply((ips) => [...(k.authorizedNetworks ?? []), ...ips.flat().map((ip) => `${ip}/32`)]),
        // Backups are on by default on a gke host: its snapshots go to a bucket beside it.
        etcd: { ...etcd, backup: gke ? (backup ?? DEFAULT_BACKUP) : undefined },
        gke: gke
            ? { gcpProvider: at.gcpProvider!, project: gke.project!, region: gke.region ?? gke.zone!.replace(/-[a-z]$/, ""), hostName: gke.name }
            : undefined,
        protect: cfg.protect,
    };
}
