// IrisOperator: the InterSystems Kubernetes Operator (IKO) from its local Helm chart.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { hashChartDirectory } from "../common/chart-hash";
import { dockerConfigJson, RegistryCredentials } from "../common/secret-data";
import { inheritedDependsOn } from "../common/options";
import { mergeValues, Values } from "../common/values";

/** Arguments of an IrisOperator. */
export interface IrisOperatorArgs {
    /** Provider of the cluster to install into. */
    provider: k8s.Provider;
    /** Directory of the IKO chart (`chart/iris-operator` of the InterSystems tarball). */
    chartPath: string;
    /** Namespace of the operator; created here. */
    namespace: string;
    /** Helm release name. */
    releaseName: string;
    /** Extra Helm values, merged over Kamino's. */
    values?: Values;
    /** Credentials for the operator image's registry; they become an image-pull Secret. Secret. */
    registryCredentials?: pulumi.Input<RegistryCredentials>;
    /** Do not wait for the operator's pods (tests against API servers without nodes). */
    skipAwait?: boolean;
}

/** Name of the image-pull Secret made from `registryCredentials`. */
export const IKO_PULL_SECRET = "iko-pull-secret";

/** IKO in its own namespace. It creates the IrisCluster CRD when it starts. */
export class IrisOperator extends pulumi.ComponentResource {
    /** The Helm release. */
    public readonly release: k8s.helm.v3.Release;
    /** The operator's namespace. */
    public readonly namespace: pulumi.Output<string>;

    constructor(name: string, args: IrisOperatorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:IrisOperator", name, {}, opts);
        const after = inheritedDependsOn(opts);
        const ns = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: args.namespace } }, { parent: this, provider: args.provider, dependsOn: after });
        this.namespace = ns.metadata.name;

        const pullSecrets: pulumi.Resource[] = [];
        if (args.registryCredentials) {
            pullSecrets.push(
                new k8s.core.v1.Secret(
                    `${name}-pull-secret`,
                    {
                        metadata: { name: IKO_PULL_SECRET, namespace: this.namespace },
                        type: "kubernetes.io/dockerconfigjson",
                        stringData: { ".dockerconfigjson": pulumi.secret(pulumi.output(args.registryCredentials).apply(dockerConfigJson)) },
                    },
                    { parent: this, provider: args.provider },
                ),
            );
        }

        const values = mergeValues(
            // The chart defaults to a 'dockerhub-secret' that does not exist; name ours or none.
            { imagePullSecrets: args.registryCredentials ? [{ name: IKO_PULL_SECRET }] : [] },
            args.values ?? {},
        );
        this.release = new k8s.helm.v3.Release(
            `${name}-iko`,
            {
                name: args.releaseName,
                chart: args.chartPath,
                namespace: this.namespace,
                values,
                // Helm does not notice edits to a local chart unless an input changes.
                description: `kamino chart-sha256 ${hashChartDirectory(args.chartPath)}`,
                skipAwait: args.skipAwait,
                timeout: 600,
            },
            { parent: this, provider: args.provider, dependsOn: [...after, ...pullSecrets] },
        );
        this.registerOutputs({ namespace: this.namespace, status: this.release.status });
    }
}
