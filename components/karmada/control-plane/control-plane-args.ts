// What the fleet plan asks of the KarmadaControlPlane: Karmada's chart on the host, with its kind
// NodePort or, elsewhere, highly available behind Kamino's load balancer; or a control plane that
// already runs, by its kubeconfig file and endpoint.
import * as fs from "fs";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { FleetPlan } from "../../config";
import { detectionFlags } from "../failover/detection";
import { publishedInstall } from "./api-endpoint";
import { KarmadaControlPlaneArgs } from "./control-plane";

/** The host cluster, as the chart's install needs it. */
export interface ControlPlaneHost {
    /** Provider for objects in the host cluster. */
    provider: k8s.Provider;
    /** The host's kubeconfig; secret. */
    kubeconfig: pulumi.Input<string>;
    /** A gke host's GCP provider, for the Karmada API's static address. */
    gcpProvider?: pulumi.ProviderResource;
}

/** Where the published API's resources go and whom it admits besides the stack's networks. */
export interface ControlPlanePlacement {
    /** The reserved egress addresses of private members joined by Pull: their agents dial Karmada from these. */
    pullEgress: pulumi.Output<string[]>[];
    /** The parent of the resources made here (the API's static address). */
    parent: pulumi.Resource;
    /** Reads the existing Karmada's kubeconfig file; the default reads the file system. */
    readFile?: (path: string) => string;
}

/** The KarmadaControlPlane's arguments for the plan: `helm` when Kamino installs Karmada, else the existing control plane's. */
export function controlPlaneArgs(plan: FleetPlan, host: ControlPlaneHost, at: ControlPlanePlacement): KarmadaControlPlaneArgs {
    const clusterIdentifier = plan.karmada.clusterIdentifier;
    if (plan.karmada.source === "existing") {
        const readFile = at.readFile ?? ((p: string) => fs.readFileSync(p, "utf8"));
        return { clusterIdentifier, existingKubeconfig: readFile(plan.karmada.existingKubeconfigPath!), existingEndpoint: plan.karmada.endpoint };
    }
    const k = plan.config.karmada;
    const kindHost = plan.host.kind;
    return {
        clusterIdentifier,
        helm: {
            hostProvider: host.provider,
            hostKubeconfig: host.kubeconfig,
            chartVersion: k.chartVersion,
            chartRepo: k.chartRepo,
            kubectlImage: k.kubectlImage,
            timeoutSeconds: k.installTimeoutSeconds,
            featureGates: k.featureGates,
            failover: plan.failover,
            detectionArgs: detectionFlags(k.failureDetectionSeconds).controllerManager,
            values: k.values,
            ...(kindHost
                ? { kind: { apiServerNodePort: k.apiServerNodePort, apiServerHostPort: k.apiServerHostPort, hostNodeName: kindHost.controlPlaneNode } }
                : { published: publishedInstall(plan, { gcpProvider: host.gcpProvider, egress: at.pullEgress, parent: at.parent }) }),
        },
    };
}
