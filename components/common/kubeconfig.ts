// Pure kubeconfig helpers: parse, read the API server, rewrite it, and build the GKE exec kubeconfig.
import * as YAML from "yaml";

/** The parts of a kubeconfig that Kamino reads. */
export interface Kubeconfig {
    apiVersion?: string;
    kind?: string;
    "current-context"?: string;
    clusters: Array<{ name: string; cluster: { server: string; "certificate-authority-data"?: string; [k: string]: unknown } }>;
    contexts: Array<{ name: string; context: { cluster: string; user: string; namespace?: string } }>;
    users: Array<{ name: string; user: Record<string, unknown> }>;
}

/** Parses kubeconfig YAML (or JSON) and checks it has the lists a client needs. */
export function parseKubeconfig(text: string): Kubeconfig {
    const doc = YAML.parse(text) as Partial<Kubeconfig> | null;
    if (!doc || !Array.isArray(doc.clusters) || doc.clusters.length === 0) {
        throw new Error("kubeconfig has no clusters");
    }
    return { contexts: [], users: [], ...doc } as Kubeconfig;
}

/** The cluster entry that `context` (default: the current context, else the only cluster) points at. */
export function activeCluster(config: Kubeconfig, context?: string): Kubeconfig["clusters"][number] {
    const ctxName = context ?? config["current-context"];
    const ctx = config.contexts.find((c) => c.name === ctxName);
    const clusterName = ctx?.context.cluster ?? (config.clusters.length === 1 ? config.clusters[0].name : undefined);
    const cluster = config.clusters.find((c) => c.name === clusterName);
    if (!cluster) throw new Error(`kubeconfig has no cluster for context '${ctxName ?? "(none)"}'`);
    return cluster;
}

/** The API server URL of the active cluster. */
export function serverOf(text: string, context?: string): string {
    return activeCluster(parseKubeconfig(text), context).cluster.server;
}

/**
 * Returns the kubeconfig with the active cluster's server replaced, e.g. the in-cluster Karmada
 * address by the host-reachable `https://127.0.0.1:<port>` (a default SAN of Karmada's certs).
 */
export function withServer(text: string, server: string, context?: string): string {
    const config = parseKubeconfig(text);
    activeCluster(config, context).cluster.server = server;
    return YAML.stringify(config);
}

/** Inputs for a GKE kubeconfig that authenticates through `gke-gcloud-auth-plugin`. */
export interface GkeKubeconfigArgs {
    /** Context, cluster and user name, e.g. `gke_<project>_<location>_<name>`. */
    contextName: string;
    /** The cluster endpoint (an IP or host name, without scheme). */
    endpoint: string;
    /** Base64 PEM of the cluster CA (`masterAuth.clusterCaCertificate`). */
    caCertificate: string;
}

/** Builds a kubeconfig that runs `gke-gcloud-auth-plugin` for short-lived credentials (no static secret inside). */
export function gkeKubeconfig(args: GkeKubeconfigArgs): string {
    const name = args.contextName;
    return YAML.stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": name,
        clusters: [{ name, cluster: { server: `https://${args.endpoint}`, "certificate-authority-data": args.caCertificate } }],
        contexts: [{ name, context: { cluster: name, user: name } }],
        users: [
            {
                name,
                user: {
                    exec: {
                        apiVersion: "client.authentication.k8s.io/v1beta1",
                        command: "gke-gcloud-auth-plugin",
                        provideClusterInfo: true,
                        installHint: "Install gke-gcloud-auth-plugin: 'gcloud components install gke-gcloud-auth-plugin'",
                    },
                },
            },
        ],
    });
}
