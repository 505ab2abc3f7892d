// What the fleet plan asks of the KarmadaControlPlane: Karmada's chart on the host, single on its
// NodePort (kind, or an existing host that asks for it) or highly available behind Kamino's load
// balancer; or a control plane that already runs, by its kubeconfig file and endpoint.
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
    return {
        clusterIdentifier,
        helm: {
            hostProvider: host.provider,
            hostKubeconfig: host.kubeconfig,
            chartVersion: k.chartVersion,
            chartRepo: k.chartRepo,
            existingHost: plan.host.config.provider === "existing",
            kubectlImage: k.kubectlImage,
            timeoutSeconds: k.installTimeoutSeconds,
            featureGates: k.featureGates,
            failover: plan.failover,
            detectionArgs: detectionFlags(k.failureDetectionSeconds).controllerManager,
            values: k.values,
            ...(plan.karmada.topology === "single"
                ? { nodePort: nodePortInstall(plan) }
                : { published: publishedInstall(plan, { gcpProvider: host.gcpProvider, egress: at.pullEgress, parent: at.parent }) }),
        },
    };
}

/**
 * A single Karmada's API on its NodePort: on kind, mapped to this machine's 127.0.0.1 (a name the
 * chart's certificate has) and reached by Pull agents at the node container's name; on an existing
 * host, at `kamino:karmada.endpoint` (its port defaults to the NodePort).
 */
export function nodePortInstall(plan: FleetPlan): NonNullable<NonNullable<KarmadaControlPlaneArgs["helm"]>["nodePort"]> {
    const k = plan.config.karmada;
    const kindHost = plan.host.kind;
    if (kindHost) return { apiServerNodePort: k.apiServerNodePort, server: `https://127.0.0.1:${k.apiServerHostPort}`, certHosts: [kindHost.controlPlaneNode] };
    // Validated already: a single Karmada on an existing host has an endpoint (karmada-host.ts).
    const endpoint = plan.karmada.endpoint!;
    const host = endpoint.host.includes(":") ? `[${endpoint.host}]` : endpoint.host;
    return { apiServerNodePort: k.apiServerNodePort, server: `https://${host}:${endpoint.port ?? k.apiServerNodePort}`, certHosts: [endpoint.host] };
}
