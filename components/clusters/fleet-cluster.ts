// One cluster of the fleet, whatever made it (kind, GKE or an existing one), with its add-ons:
// the step of the Fleet that turns a cluster's config into a provider, a kubeconfig and IKO.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ClusterConfig, ClusterPlan, FleetConfig, gkePrivateNodes, KindNames } from "../config";
import { RegistryCredentials } from "../common/secret-data";
import { mergeValues, Values } from "../common/values";
import { Cilium } from "./cilium";
import { ExistingCluster } from "./existing-cluster";
import { IrisOperator } from "./iris-operator";
import { KindCluster } from "./kind-cluster";
import { defaultSubnets } from "./kind-config";

/** One cluster of the fleet, whatever made it. */
export interface FleetCluster {
    /** The cluster as configured. */
    config: ClusterConfig;
    /** Provider for objects in it. */
    provider: k8s.Provider;
    /** Its kubeconfig for this machine; secret. */
    kubeconfig: pulumi.Output<string>;
    /** The API server as Karmada's controllers reach it. */
    apiEndpoint: pulumi.Output<string>;
    /** Resource whose deletion deletes the whole cluster (absent for existing clusters). */
    lifecycle?: pulumi.Resource;
    /** Karmada region and zones. */
    region?: string;
    zones?: string[];
    /** A GKE cluster's GCP provider (its project), for GCP resources beside it. */
    gcpProvider?: pulumi.ProviderResource;
    /** A GKE cluster with private nodes: the reserved addresses its traffic leaves from. */
    egressAddresses?: pulumi.Output<string[]>;
    /** Its CNI, on kind clusters. */
    cilium?: Cilium;
    /** Its IKO release. */
    irisOperator?: IrisOperator;
}

/** The cluster a plan entry declares, created (kind, GKE) or adopted (existing). */
export function createFleetCluster(plan: ClusterPlan, cfg: FleetConfig, opts: pulumi.ComponentResourceOptions): FleetCluster {
    const c = plan.config;
    switch (c.provider) {
        case "kind":
            return createKind(c, plan.kind!, plan.hostsKarmadaChart, cfg, opts);
        case "gke":
            return createGke(c, cfg, opts);
        case "existing": {
            const existing = new ExistingCluster(c.name, { kubeconfigPath: c.kubeconfigPath, context: c.context, apiEndpoint: c.apiEndpoint }, opts);
            return {
                config: c,
                provider: existing.provider,
                kubeconfig: existing.kubeconfig,
                apiEndpoint: existing.apiEndpoint,
                region: c.region,
                zones: c.zones,
            };
        }
    }
}

/** A kind cluster on this machine, at its default subnets unless the config gives them. */
function createKind(
    c: Extract<ClusterConfig, { provider: "kind" }>,
    names: KindNames,
    hostsKarmadaChart: boolean,
    cfg: FleetConfig,
    opts: pulumi.ComponentResourceOptions,
): FleetCluster {
    const subnets = defaultSubnets(names.index);
    const kind = new KindCluster(
        c.name,
        {
            kindName: names.clusterName,
            workers: c.workers,
            nodeImage: c.nodeImage,
            podSubnet: c.podSubnet ?? subnets.podSubnet,
            serviceSubnet: c.serviceSubnet ?? subnets.serviceSubnet,
            // The Karmada API's NodePort must be mapped when the node container is created.
            portMappings: hostsKarmadaChart
                ? [
                      {
                          containerPort: cfg.karmada.apiServerNodePort,
                          hostPort: cfg.karmada.apiServerHostPort,
                          description: "the Karmada API (kamino:karmada.apiServerHostPort)",
                      },
                  ]
                : [],
        },
        opts,
    );
    return {
        config: c,
        provider: kind.provider,
        kubeconfig: kind.kubeconfig,
        apiEndpoint: kind.apiEndpoint,
        lifecycle: kind.lifecycle,
        region: c.region,
        zones: c.zones,
    };
}

/** A GKE cluster (private nodes and NAT where the fleet needs them). */
function createGke(c: Extract<ClusterConfig, { provider: "gke" }>, cfg: FleetConfig, opts: pulumi.ComponentResourceOptions): FleetCluster {
    // Loaded only by stacks with a GKE cluster: @pulumi/gcp costs every other run ~0.4-1.3 s.
    const { GkeCluster } = require("./gke-cluster") as typeof import("./gke-cluster");
    const gke = new GkeCluster(
        c.name,
        {
            clusterName: c.name,
            project: c.project!,
            region: c.region,
            zone: c.zone,
            nodeCount: c.nodeCount,
            machineType: c.machineType,
            network: c.network,
            subnetwork: c.subnetwork,
            releaseChannel: c.releaseChannel,
            authorizedNetworks: c.authorizedNetworks ?? [],
            nodeLocations: c.nodeLocations,
            privateNodes: gkePrivateNodes(c, cfg.clusters),
            natAddresses: c.natAddresses,
            deletionProtection: c.deletionProtection ?? cfg.protect,
        },
        opts,
    );
    return {
        config: c,
        provider: gke.provider,
        kubeconfig: gke.kubeconfig,
        apiEndpoint: gke.apiEndpoint,
        lifecycle: gke.cluster,
        region: gke.region,
        zones: gke.zones,
        gcpProvider: gke.gcpProvider,
        egressAddresses: gke.egressAddresses,
    };
}

/** Cilium on kind clusters (GKE has Dataplane V2) with `ciliumValues` of Kamino's, then IKO, on one cluster; they go with it. */
export function installAddOns(
    cluster: FleetCluster,
    cfg: FleetConfig,
    pullCredentials: pulumi.Output<RegistryCredentials> | undefined,
    parent: pulumi.Resource,
    ciliumValues: Values = {},
): void {
    const addonOpts = { parent, deletedWith: cluster.lifecycle };
    const cilium = (cluster.cilium =
        cluster.config.provider === "kind"
            ? new Cilium(
                  `${cluster.config.name}-cilium`,
                  // Kamino's values for this cluster (ClusterMesh, when it is a kind mirror member) under the stack's.
                  {
                      provider: cluster.provider,
                      version: cfg.cilium.version,
                      repo: cfg.cilium.repo,
                      values: mergeValues(ciliumValues, cfg.cilium.values ?? {}),
                  },
                  addonOpts,
              )
            : undefined);
    cluster.irisOperator = new IrisOperator(
        `${cluster.config.name}-iko`,
        {
            provider: cluster.provider,
            chartPath: cfg.iko.chartPath,
            namespace: cfg.iko.namespace,
            releaseName: cfg.iko.releaseName,
            values: cfg.iko.values,
            registryCredentials: pullCredentials,
            skipAwait: cfg.testing.skipAwait,
        },
        { ...addonOpts, dependsOn: cilium ? [cilium.release] : [] },
    );
}
