// GkeCluster: a GKE cluster with a separately managed node pool, Dataplane V2 (GKE's own
// Cilium-based datapath, so no Cilium release) and Workload Identity.
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { gkeKubeconfig } from "../common/kubeconfig";

/** Arguments of a GkeCluster. */
export interface GkeClusterArgs {
    /** GKE cluster name (at most 40 characters). */
    clusterName: string;
    /** GCP project ID. */
    project: string;
    /** Region of a regional cluster; set this or `zone`. */
    region?: string;
    /** Zone of a zonal cluster; set this or `region`. */
    zone?: string;
    /** Nodes in the pool (per zone for a regional cluster). */
    nodeCount: number;
    /** Machine type of the nodes. */
    machineType: string;
    /** VPC network; the project's default network when unset. */
    network?: string;
    /** Subnetwork of that VPC. */
    subnetwork?: string;
    /** GKE release channel. */
    releaseChannel: string;
    /** CIDRs allowed to reach the control plane (required by the config): this machine, and the machine running Karmada for a Push member. */
    authorizedNetworks: string[];
    /** Zones of the nodes; GKE's default (three zones of a regional cluster's region, a zonal cluster's zone) when unset. */
    nodeLocations?: string[];
    /** Nodes without public addresses, their egress through Cloud NAT on `natAddresses` reserved addresses (gke-egress.ts). */
    privateNodes?: boolean;
    /** Reserved egress addresses when `privateNodes`. */
    natAddresses?: number;
    /** GKE refuses to delete the cluster while this is on (`kamino:protect`); on unless said otherwise. */
    deletionProtection?: boolean;
}

/** Karmada's region and zones for a GKE location. */
export function gkeTopology(region: string | undefined, zone: string | undefined): { location: string; region: string; zones?: string[] } {
    if (zone) return { location: zone, region: zone.replace(/-[a-z]$/, ""), zones: [zone] };
    if (region) return { location: region, region };
    throw new Error("a GKE cluster needs a region or a zone");
}

/** A GKE cluster and a provider that authenticates with `gke-gcloud-auth-plugin`. */
export class GkeCluster extends pulumi.ComponentResource {
    /** The GKE cluster; deleting it deletes everything in it. */
    public readonly cluster: gcp.container.Cluster;
    /** The node pool. */
    public readonly nodePool: gcp.container.NodePool;
    /** Exec-plugin kubeconfig (no static credential inside); secret. */
    public readonly kubeconfig: pulumi.Output<string>;
    /** The public control-plane endpoint, as Karmada's controllers reach it. */
    public readonly apiEndpoint: pulumi.Output<string>;
    /** Provider for objects in this cluster. */
    public readonly provider: k8s.Provider;
    /** Karmada `Cluster.spec.region`. */
    public readonly region: string;
    /** Karmada `Cluster.spec.zones` (zonal clusters). */
    public readonly zones?: string[];
    /** The GCP provider of the cluster's project, for other GCP resources beside it. */
    public readonly gcpProvider: pulumi.ProviderResource;
    /** With private nodes: the reserved addresses their traffic leaves from. */
    public readonly egressAddresses?: pulumi.Output<string[]>;

    constructor(name: string, args: GkeClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:GkeCluster", name, {}, opts);
        const topo = gkeTopology(args.region, args.zone);
        this.region = topo.region;
        this.zones = topo.zones;
        const gcpProvider = (this.gcpProvider = new gcp.Provider(`${name}-gcp`, { project: args.project }, { parent: this }));
        const onGcp = { parent: this, provider: gcpProvider };

        this.cluster = new gcp.container.Cluster(`${name}-cluster`, gkeClusterArgs(args, topo.location), onGcp);
        if (args.privateNodes) {
            const { GkeEgressNat } = require("./gke-egress") as typeof import("./gke-egress");
            const nat = new GkeEgressNat(
                `${name}-egress`,
                {
                    gcpProvider,
                    project: args.project,
                    region: topo.region,
                    network: args.network,
                    subnetwork: args.subnetwork,
                    namePrefix: args.clusterName,
                    addresses: args.natAddresses ?? 1,
                },
                { parent: this },
            );
            this.egressAddresses = nat.addresses;
        }
        this.nodePool = new gcp.container.NodePool(
            `${name}-nodes`,
            {
                project: args.project,
                cluster: this.cluster.name,
                location: this.cluster.location,
                // No nodeLocations: the pool takes the cluster's.
                nodeCount: args.nodeCount,
                management: { autoRepair: true, autoUpgrade: true },
                nodeConfig: {
                    machineType: args.machineType,
                    oauthScopes: ["https://www.googleapis.com/auth/cloud-platform"],
                    workloadMetadataConfig: { mode: "GKE_METADATA" },
                },
            },
            onGcp,
        );

        this.kubeconfig = pulumi.secret(
            pulumi.all([this.cluster.endpoint, this.cluster.masterAuth]).apply(([endpoint, auth]) =>
                gkeKubeconfig({
                    contextName: `gke_${args.project}_${topo.location}_${args.clusterName}`,
                    endpoint,
                    caCertificate: auth.clusterCaCertificate,
                }),
            ),
        );
        this.apiEndpoint = pulumi.interpolate`https://${this.cluster.endpoint}`;
        this.provider = new k8s.Provider(
            `${name}-k8s`,
            { kubeconfig: this.kubeconfig, clusterIdentifier: `gke-${args.project}-${topo.location}-${args.clusterName}` },
            { parent: this, dependsOn: [this.nodePool] },
        );
        this.registerOutputs({ kubeconfig: this.kubeconfig, apiEndpoint: this.apiEndpoint });
    }
}

/** The cluster itself: Dataplane V2, Workload Identity, no default pool, nodes private where asked (pure). */
function gkeClusterArgs(args: GkeClusterArgs, location: string): gcp.container.ClusterArgs {
    return {
        name: args.clusterName,
        project: args.project,
        location,
        // The default pool cannot be changed without recreating the cluster: drop it, manage our own.
        removeDefaultNodePool: true,
        initialNodeCount: 1,
        // On, GKE refuses to delete the cluster: `kamino:protect: false` and an `up` first (docs/production.md).
        deletionProtection: args.deletionProtection ?? true,
        releaseChannel: { channel: args.releaseChannel },
        workloadIdentityConfig: { workloadPool: `${args.project}.svc.id.goog` },
        datapathProvider: "ADVANCED_DATAPATH",
        // VPC-native networking, which Dataplane V2 requires.
        ipAllocationPolicy: {},
        network: args.network,
        subnetwork: args.subnetwork,
        masterAuthorizedNetworksConfig: { cidrBlocks: args.authorizedNetworks.map((cidrBlock) => ({ cidrBlock })) },
        nodeLocations: args.nodeLocations,
        // The control plane keeps its public endpoint (behind the authorized networks); nodes get no public address.
        ...(args.privateNodes ? { privateClusterConfig: { enablePrivateNodes: true, enablePrivateEndpoint: false } } : {}),
    };
}
