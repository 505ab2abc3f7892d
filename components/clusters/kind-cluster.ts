// KindCluster: a local kind cluster made with `kind create cluster`, its kubeconfigs and a provider.
import * as command from "@pulumi/command";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KindConfigArgs, kindInternalEndpoint, renderKindConfig } from "./kind-config";
import { KIND_DELETE_SCRIPT, kindCreateScript } from "./kind-scripts";

/** Arguments of a KindCluster. */
export interface KindClusterArgs extends KindConfigArgs {
    /** The kind (Docker-level) cluster name; global on the Docker host. */
    kindName: string;
}

/** A kind cluster: created on `up`, deleted on `destroy`, never created twice. */
export class KindCluster extends pulumi.ComponentResource {
    /** The kind cluster name. */
    public readonly kindName: string;
    /** Kubeconfig for this machine (server `https://127.0.0.1:<port>`); secret. */
    public readonly kubeconfig: pulumi.Output<string>;
    /** Kubeconfig for containers on the Docker `kind` network (`--internal`); secret. */
    public readonly internalKubeconfig: pulumi.Output<string>;
    /** The API server as other kind clusters (and the Karmada controllers) reach it. */
    public readonly apiEndpoint: pulumi.Output<string>;
    /** Provider for objects in this cluster. */
    public readonly provider: k8s.Provider;
    /** The command whose deletion removes the whole cluster; children use it for `deletedWith`. */
    public readonly lifecycle: command.local.Command;

    constructor(name: string, args: KindClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KindCluster", name, {}, opts);
        this.kindName = args.kindName;
        const kindConfig = renderKindConfig(args);
        const environment = { KIND_CLUSTER_NAME: args.kindName };

        // Guarded create: a re-run after a failed `up` (or an update of this command) adopts a cluster
        // that matches this config instead of failing on "already exists"; any other cluster of that
        // name (a hand-made one) fails at once. A changed kind config replaces the cluster.
        this.lifecycle = new command.local.Command(
            `${name}-kind`,
            {
                create: kindCreateScript(args),
                delete: KIND_DELETE_SCRIPT,
                stdin: kindConfig,
                environment,
                triggers: [kindConfig],
                logging: "stderr",
            },
            { parent: this, deleteBeforeReplace: true, customTimeouts: { create: "15m", delete: "5m" } },
        );

        const readKubeconfig = (suffix: string, flags: string) =>
            new command.local.Command(
                `${name}-${suffix}`,
                {
                    create: `kind get kubeconfig --name "$KIND_CLUSTER_NAME"${flags}`,
                    environment,
                    // Re-read only when the cluster itself is replaced: keeps the provider stable.
                    triggers: [this.lifecycle.id],
                    logging: "none",
                },
                { parent: this, dependsOn: [this.lifecycle], additionalSecretOutputs: ["stdout"] },
            );
        this.kubeconfig = pulumi.secret(readKubeconfig("kubeconfig", "").stdout);
        this.internalKubeconfig = pulumi.secret(readKubeconfig("internal-kubeconfig", " --internal").stdout);
        this.apiEndpoint = pulumi.output(kindInternalEndpoint(args.kindName));

        this.provider = new k8s.Provider(
            `${name}-k8s`,
            // A static identifier: a kubeconfig that is unknown during preview must not plan a
            // replacement of everything in the cluster.
            { kubeconfig: this.kubeconfig, clusterIdentifier: `kind-${args.kindName}` },
            { parent: this },
        );

        this.registerOutputs({
            kubeconfig: this.kubeconfig,
            internalKubeconfig: this.internalKubeconfig,
            apiEndpoint: this.apiEndpoint,
        });
    }
}
