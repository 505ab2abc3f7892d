// Resource-option helpers shared by the components.
import * as pulumi from "@pulumi/pulumi";

/**
 * The resources a component was told to depend on. Pulumi does not pass a component's
 * `dependsOn` on to its children, so each component hands it to the children it creates;
 * otherwise an IrisCluster template could be created before its CRD, or outlive the joins on
 * destroy. Only plain lists are supported (all Kamino passes).
 */
export function inheritedDependsOn(opts: pulumi.ComponentResourceOptions | undefined): pulumi.Resource[] {
    const d = opts?.dependsOn;
    if (d === undefined) return [];
    if (Array.isArray(d)) return d as pulumi.Resource[];
    if (pulumi.Resource.isInstance(d)) return [d];
    throw new Error("Kamino components take dependsOn as a list of resources, not an Output");
}
