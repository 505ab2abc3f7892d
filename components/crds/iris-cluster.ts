// IrisCluster (intersystems.com/v1alpha1), served by the CRD that IKO creates when it starts.
// Fields are typed where InterSystems documents them (see docs/configuration.md); the rest stays open.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { IRIS_CLUSTER_API_VERSION } from "./karmada-api";
import { DeepInput } from "./types";

type Open = Record<string, unknown>;

/** A reference to an object in the same namespace. */
export interface LocalObjectReference {
    name: string;
}

/** A pod template fragment IKO merges into the pods it creates. */
export interface PodTemplate {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: Open;
}

/** A persistent volume IKO creates for a node (a PVC spec subset). */
export interface IrisStorage {
    resources?: { requests: { storage: string } };
    storageClassName?: string;
    accessModes?: string[];
}

/** Fields shared by IRIS data and compute nodes. */
export interface IrisNode {
    /** The IRIS image, e.g. `containers.intersystems.com/intersystems/iris-community:2025.1`. */
    image: string;
    /** Needed for IRIS images other than the one the IKO release was built against. */
    compatibilityVersion?: string;
    podTemplate?: PodTemplate;
    preferredZones?: string[];
    volumeMounts?: Open[];
    storageDB?: IrisStorage;
    storageWIJ?: IrisStorage;
    storageJournal1?: IrisStorage;
    storageJournal2?: IrisStorage;
    /** A web gateway sidecar in the node's pods (IKO 3.6+). */
    webgateway?: Open;
    [field: string]: unknown;
}

/** The data node(s): the only required part of the topology. */
export interface IrisDataNode extends IrisNode {
    /** Makes a sharded cluster of this many data nodes. */
    shards?: number;
    /** Mirrors each data node (licensed IRIS only; needs an arbiter for automatic failover). */
    mirrored?: boolean;
}

/** The node types IKO deploys; only `data` is required. */
export interface IrisTopology {
    data: IrisDataNode;
    compute?: IrisNode & { replicas?: number };
    arbiter?: { image: string; preferredZones?: string[]; podTemplate?: PodTemplate };
    webgateway?: Open & { image: string; replicas?: number; applicationPaths?: string[]; loginSecret?: LocalObjectReference };
    sam?: { image: string };
    iam?: { image: string };
}

/** TLS material, each a Kubernetes VolumeSource (usually `{ secret: { secretName } }`). */
export interface IrisTls {
    common?: Open;
    mirror?: Open;
    webgateway?: Open;
    superserver?: Open;
    ecp?: Open;
}

/** `IrisCluster.spec`. */
export interface IrisClusterSpec {
    topology: IrisTopology;
    /** Secret with key `iris.key`; licensed IRIS only. */
    licenseKeySecret?: LocalObjectReference;
    /** ConfigMap of CPF merge files. */
    configSource?: LocalObjectReference;
    /** Pull secrets for the IRIS, web gateway and arbiter images. */
    imagePullSecrets?: LocalObjectReference[];
    tls?: IrisTls;
    storageClassName?: string;
    updateStrategy?: { type: string };
    /** The Service IKO creates for the cluster; a spec-level field (not under a node). */
    serviceTemplate?: { metadata?: Open; spec?: Open & { type?: "ClusterIP" | "NodePort" | "LoadBalancer" } };
    volumeClaimTemplates?: Open[];
    volumes?: Open[];
    [field: string]: unknown;
}

/** Arguments of an IrisCluster resource. */
export interface IrisClusterArgs {
    /** Object metadata; `name` and `namespace` are usually set. */
    metadata?: pulumi.Input<k8s.types.input.meta.v1.ObjectMeta>;
    /** The IrisCluster spec. */
    spec: pulumi.Input<DeepInput<IrisClusterSpec>>;
}

/** An InterSystems IrisCluster. */
export class IrisCluster extends k8s.apiextensions.CustomResource {
    static readonly apiVersion = IRIS_CLUSTER_API_VERSION;
    static readonly kind = "IrisCluster";

    constructor(name: string, args: IrisClusterArgs, opts?: pulumi.CustomResourceOptions) {
        super(name, { apiVersion: IrisCluster.apiVersion, kind: IrisCluster.kind, ...args }, opts);
    }
}
