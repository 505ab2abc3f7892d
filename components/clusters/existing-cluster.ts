// ExistingCluster: a cluster Kamino does not create, reached through a kubeconfig file.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { serverOf } from "../common/kubeconfig";

/** Arguments of an ExistingCluster. */
export interface ExistingClusterArgs {
    /** Path of the cluster's kubeconfig file, relative to the project directory or absolute. */
    kubeconfigPath: string;
    /** Kubeconfig context to use; the current context when unset. */
    context?: string;
    /** The API server as Karmada's controllers reach it; the kubeconfig's server when unset. */
    apiEndpoint?: string;
}

/** A cluster that already runs: Kamino installs add-ons on it and may join it to Karmada. */
export class ExistingCluster extends pulumi.ComponentResource {
    /** The kubeconfig read from the file; secret. */
    public readonly kubeconfig: pulumi.Output<string>;
    /** The API server as Karmada's controllers reach it. */
    public readonly apiEndpoint: pulumi.Output<string>;
    /** Provider for objects in this cluster. */
    public readonly provider: k8s.Provider;

    constructor(name: string, args: ExistingClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:ExistingCluster", name, {}, opts);
        const text = fs.readFileSync(args.kubeconfigPath, "utf8");
        this.kubeconfig = pulumi.secret(text);
        this.apiEndpoint = pulumi.output(args.apiEndpoint ?? serverOf(text, args.context));
        this.provider = new k8s.Provider(
            `${name}-k8s`,
            { kubeconfig: this.kubeconfig, context: args.context, clusterIdentifier: `existing-${name}` },
            { parent: this },
        );
        this.registerOutputs({ kubeconfig: this.kubeconfig, apiEndpoint: this.apiEndpoint });
    }
}
