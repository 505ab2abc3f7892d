// An internal address reserved in a GKE cluster's subnetwork, for an internal passthrough load
// balancer that other clusters of the same VPC reach (an IRIS mirror member's Service). Reserved,
// so the address is known before the Service exists and stays when GKE recreates the forwarding
// rule. Loaded only by stacks with a GKE mirror member, as gke-cluster.ts.
import type * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GkeClusterConfig } from "../config";

/** The annotations of an internal load balancer with global access at a reserved address (GKE's, cloud-provider-gcp gce_annotations.go). */
export function internalLoadBalancerAnnotations(addressName: string): Record<string, string> {
    return {
        "networking.gke.io/load-balancer-type": "Internal",
        // Members in other regions of the VPC reach it too.
        "networking.gke.io/internal-load-balancer-allow-global-access": "true",
        // The reserved address by name (ingress-gce's address picker reads it before spec.loadBalancerIP).
        "networking.gke.io/load-balancer-ip-addresses": addressName,
    };
}

/** A reserved internal address in the cluster's region and subnetwork; its IP and name. */
export function reserveInternalAddress(
    cluster: GkeClusterConfig,
    gcpProvider: pulumi.ProviderResource | undefined,
    addressName: string,
    parent: pulumi.Resource,
): { ip: pulumi.Output<string>; name: string } {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const g = require("@pulumi/gcp") as typeof gcp;
    const address = new g.compute.Address(
        addressName,
        {
            project: cluster.project!,
            region: cluster.region ?? cluster.zone!.replace(/-[a-z]$/, ""),
            name: addressName,
            addressType: "INTERNAL",
            ...(cluster.subnetwork ? { subnetwork: cluster.subnetwork } : {}),
            description: "IRIS mirror member's internal load balancer (Kamino)",
        },
        { parent, provider: gcpProvider },
    );
    return { ip: address.address, name: addressName };
}
