// GkeEgressNat: the outbound path of a GKE cluster with private nodes: a Cloud Router and a Cloud
// NAT that sends the nodes' traffic from addresses Kamino reserves. Without it a node's egress is
// its own ephemeral public IP, which GKE changes whenever it recreates the node (an upgrade, a
// repair): an agent on such a node would fall outside `kamino:karmada.authorizedNetworks` and its
// member would go NotReady for nothing. Loaded only by stacks with a GKE cluster, as gke-cluster.ts.
import type * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

/** Arguments of a GkeEgressNat. */
export interface GkeEgressNatArgs {
    /** The GCP provider of the cluster's project. */
    gcpProvider: pulumi.ProviderResource;
    /** GCP project ID. */
    project: string;
    /** The cluster's region (a zonal cluster's zone's region). */
    region: string;
    /** VPC network; the project's `default` when unset. */
    network?: string;
    /** The nodes' subnetwork; the network's subnetwork in the region named `default` when unset (an auto-mode network's). */
    subnetwork?: string;
    /** Prefix of the GCP names (the cluster's name). */
    namePrefix: string;
    /** Reserved egress addresses. */
    addresses: number;
}

/** A Cloud Router and Cloud NAT on reserved static addresses for one cluster's subnetwork. */
export class GkeEgressNat extends pulumi.ComponentResource {
    /** The reserved egress addresses. */
    public readonly addresses: pulumi.Output<string[]>;

    constructor(name: string, args: GkeEgressNatArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:GkeEgressNat", name, {}, opts);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const g = require("@pulumi/gcp") as typeof gcp;
        const onGcp = { parent: this, provider: args.gcpProvider };
        const at = { project: args.project, region: args.region };
        const reserved = Array.from(
            { length: args.addresses },
            (_, i) =>
                new g.compute.Address(
                    `${name}-ip-${i}`,
                    { ...at, name: `${args.namePrefix}-egress-${i}`, addressType: "EXTERNAL", description: "Cloud NAT egress of a Kamino GKE cluster" },
                    onGcp,
                ),
        );
        const router = new g.compute.Router(`${name}-router`, { ...at, name: `${args.namePrefix}-egress`, network: args.network ?? "default" }, onGcp);
        new g.compute.RouterNat(
            `${name}-nat`,
            {
                ...at,
                name: `${args.namePrefix}-egress`,
                router: router.name,
                // Only these addresses, never ones GCP picks: the allow lists must know every one.
                natIpAllocateOption: "MANUAL_ONLY",
                natIps: reserved.map((a) => a.selfLink),
                // Only this cluster's subnetwork: another cluster's NAT in the region may serve the others.
                sourceSubnetworkIpRangesToNat: "LIST_OF_SUBNETWORKS",
                subnetworks: [
                    {
                        name: `projects/${args.project}/regions/${args.region}/subnetworks/${args.subnetwork ?? "default"}`,
                        sourceIpRangesToNats: ["ALL_IP_RANGES"],
                    },
                ],
                logConfig: { enable: true, filter: "ERRORS_ONLY" },
            },
            onGcp,
        );
        this.addresses = pulumi.all(reserved.map((a) => a.address));
        this.registerOutputs({ addresses: this.addresses });
    }
}
