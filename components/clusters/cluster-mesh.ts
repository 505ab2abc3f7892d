// Cilium ClusterMesh between the kind members of an IRIS mirror, declared through Cilium's Helm
// values only (no `cilium` CLI): each cluster a unique name and id, its clustermesh-apiserver on a
// NodePort of its own, every peer named at its node's address on the `kind` network, and one CA for
// all of them, made by Kamino, so that the clusters trust each other's certificates without copying
// secrets around. Keys checked against Cilium chart 1.18.12 (docs/disaster-recovery.md).
import * as pulumi from "@pulumi/pulumi";
import { randomBytes } from "crypto";
import { FleetPlan } from "../config";
import { issueCa } from "../common/certificates";
import { Values } from "../common/values";

/** The clustermesh-apiserver's NodePort on the first kind cluster (the chart's default); the i-th kind cluster uses this + i. */
export const CLUSTER_MESH_NODE_PORT = 32379;
/** Lifetime of the mesh CA: replacing it restarts Cilium on every meshed cluster. */
export const CLUSTER_MESH_CA_YEARS = 10;

/**
 * The Cilium values Kamino sets, as dotted paths, and the fields of a `clustermesh.config.clusters`
 * entry: each read in the chart's values.yaml at 1.18.12 (cilium/charts@ee5ca22, cilium-1.18.12.tgz),
 * where `clusters` is a list (a map is accepted from 1.19 only) and MCS-API is not used. The chart's
 * schema does not refuse unknown keys, so this list is what catches a misspelt one.
 */
export const CILIUM_KEYS = [
    "ipam.mode",
    "image.pullPolicy",
    "operator.replicas",
    "cluster.name",
    "cluster.id",
    "clustermesh.useAPIServer",
    "clustermesh.apiserver.service.type",
    "clustermesh.apiserver.service.nodePort",
    "clustermesh.apiserver.tls.auto.enabled",
    "clustermesh.apiserver.tls.auto.method",
    "clustermesh.config.enabled",
    "clustermesh.config.clusters",
    "tls.ca.cert",
    "tls.ca.key",
] as const;
export const CILIUM_MESH_CLUSTER_FIELDS = ["name", "address", "port", "ips", "tls"] as const;

/** One peer as a cluster's `clustermesh.config.clusters` entry. */
export interface MeshPeer {
    /** Its Cilium `cluster.name`: the kind cluster's name. */
    name: string;
    /** Where its clustermesh-apiserver is reached: its node on the `kind` network. */
    address: string;
    /** Its clustermesh-apiserver's NodePort. */
    port: number;
}

/** The Cilium values that mesh one kind cluster with its peers; `ca` is the shared CA (PEM; the key a secret). */
export function clusterMeshValues(
    self: { name: string; id: number; nodePort: number },
    peers: MeshPeer[],
    ca: { cert: pulumi.Input<string>; key: pulumi.Input<string> },
): Values {
    const base64 = (pem: pulumi.Input<string>) => pulumi.output(pem).apply((p) => Buffer.from(p).toString("base64"));
    return {
        cluster: { name: self.name, id: self.id },
        clustermesh: {
            useAPIServer: true,
            // A NodePort per cluster: Cilium asks for distinct ones where kube-proxy replacement is on.
            apiserver: { service: { type: "NodePort", nodePort: self.nodePort }, tls: { auto: { enabled: true, method: "helm" } } },
            config: { enabled: true, clusters: peers.map((p) => ({ name: p.name, address: p.address, port: p.port })) },
        },
        // The same CA in every meshed cluster: without it the chart makes one per release (or per render).
        tls: { ca: { cert: base64(ca.cert), key: pulumi.secret(base64(ca.key)) } },
    };
}

/** The ClusterMesh values of each meshed kind cluster of a plan, keyed by cluster name (none when no mirror meshes). */
export function fleetClusterMeshValues(plan: FleetPlan, ca: { cert: pulumi.Input<string>; key: pulumi.Input<string> }): Record<string, Values> {
    const kindOf = (name: string) => plan.clusters.find((c) => c.name === name)!.kind!;
    const peerOf = (name: string): MeshPeer => {
        const k = kindOf(name);
        return { name: k.clusterName, address: k.controlPlaneNode, port: CLUSTER_MESH_NODE_PORT + k.index };
    };
    return Object.fromEntries(
        Object.entries(plan.clusterMesh).map(([name, peers]) => {
            const k = kindOf(name);
            // Cilium's cluster.id 0 means "not meshed": ids start at 1.
            return [name, clusterMeshValues({ name: k.clusterName, id: k.index + 1, nodePort: CLUSTER_MESH_NODE_PORT + k.index }, peers.map(peerOf), ca)];
        }),
    );
}

interface MeshCaOutputs {
    caCrt: string;
    caKey: string;
}

/** The ClusterMeshCa's provider (exported so that a test can serialize it as Pulumi does). */
export const clusterMeshCaProvider: pulumi.dynamic.ResourceProvider = {
    async create() {
        const outs: MeshCaOutputs = issueCa("kamino-clustermesh-ca", CLUSTER_MESH_CA_YEARS, new Date());
        return { id: `clustermesh-ca-${randomBytes(4).toString("hex")}`, outs };
    },
    async diff() {
        return { changes: false };
    },
    async read(id, props) {
        return { id, props };
    },
    // Nothing outside the state: the CA just stops being used.
    async delete() {},
};

/** The CA every meshed Cilium shares; its key exists once, only in Pulumi's state, as a secret. */
export class ClusterMeshCa extends pulumi.dynamic.Resource {
    /** PEM of the CA certificate. */
    declare public readonly caCrt: pulumi.Output<string>;
    /** PEM of the CA key; secret. */
    declare public readonly caKey: pulumi.Output<string>;

    constructor(name: string, opts?: pulumi.CustomResourceOptions) {
        super(clusterMeshCaProvider, name, { caCrt: undefined, caKey: undefined }, { ...opts, additionalSecretOutputs: ["caKey"] }, "kamino", "ClusterMeshCa");
    }
}
