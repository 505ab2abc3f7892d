// Uninstalling Karmada's chart from a host that stays (an existing cluster): the chart's post-delete
// Job runs `kubectl delete -f` over its static resources, which it means for the Karmada API but
// sends, with its in-cluster credentials, to the host (karmada-io/karmada#7618, open in 2026-09,
// chart v1.15.0 to v1.18.2). Among them are the Namespaces `karmada-system` and `karmada-cluster`: on
// the host, `karmada-system` is the release's own namespace, so its deletion takes Helm's release
// records with it, Helm's uninstall ends in `Failed to purge the release: release: not found`, and
// `pulumi destroy` fails (seen on real pods, test/cluster/karmada-chart.test.ts).
//
// ChartUninstallGuard depends on the chart's release, so Pulumi deletes it first. Its delete:
// - takes the namespace manifests out of the ConfigMap that Job reads. The Job then deletes the rest
//   (objects the host does not have, with --ignore-not-found) and Helm's uninstall completes;
// - hands the chart's hook RBAC (ClusterRole and ClusterRoleBinding `karmada-hook-job`, which let its
//   Jobs do anything anywhere on the host, and which Helm never deletes: hooks are not part of a
//   release) to the release's namespace as their owner, so that the garbage collector deletes them
//   with it. Not at once: the post-delete Job still needs them. The namespace is Kamino's and goes
//   after the release, with the chart's other hook leftovers in it (its ServiceAccount and CRD
//   ConfigMaps).
// A kind or gke host goes with its cluster (deletedWith): there the chart is never uninstalled, and
// neither is this.
import * as pulumi from "@pulumi/pulumi";
import { kubeRequest } from "../../live/kube-read";

/** The ConfigMap the chart's Jobs read its static resources from (made by its pre-install Job in `certs.mode: auto`). */
export const STATIC_RESOURCES_CONFIGMAP = "karmada-static-resources";
/** Its key holding the Namespace manifests (`karmada.systemNamespace` in the chart's templates). */
export const NAMESPACE_MANIFESTS_KEY = "system-namespace.yaml";

interface GuardInputs {
    /** The host's kubeconfig (secret). */
    hostKubeconfig: string;
    /** The release's namespace on the host. */
    namespace: string;
}

/** The chart's hook RBAC on the host (`<release>-hook-job`), cluster-scoped. */
export const HOOK_RBAC = [
    ["rbac.authorization.k8s.io/v1", "clusterroles", "karmada-hook-job"],
    ["rbac.authorization.k8s.io/v1", "clusterrolebindings", "karmada-hook-job"],
] as const;

/** The patch that makes an object a dependent of the namespace, so that it is deleted with it. */
export const ownedByNamespace = (namespace: { name: string; uid: string }) => ({
    metadata: { ownerReferences: [{ apiVersion: "v1", kind: "Namespace", name: namespace.name, uid: namespace.uid }] },
});

/** The JSON patch that removes the namespace manifests, or none when the ConfigMap does not hold them (any more). */
export function withoutNamespaceManifests(configMap: { data?: Record<string, string> } | undefined): object[] | undefined {
    return configMap?.data && NAMESPACE_MANIFESTS_KEY in configMap.data ? [{ op: "remove", path: `/data/${NAMESPACE_MANIFESTS_KEY}` }] : undefined;
}

/** The ChartUninstallGuard's provider (exported so that a test can serialize it as Pulumi does). */
export const chartUninstallGuardProvider: pulumi.dynamic.ResourceProvider = {
    async create(inputs: GuardInputs) {
        return { id: `${inputs.namespace}-${STATIC_RESOURCES_CONFIGMAP}`, outs: inputs };
    },
    async diff(_id, olds: GuardInputs, news: GuardInputs) {
        // A new kubeconfig (rotated credentials) is taken in place; nothing is made, so nothing is replaced.
        return { changes: olds.hostKubeconfig !== news.hostKubeconfig || olds.namespace !== news.namespace, replaces: [], deleteBeforeReplace: false };
    },
    async update(_id, _olds: GuardInputs, news: GuardInputs) {
        return { outs: news };
    },
    async read(id, props) {
        return { id, props };
    },
    async delete(_id, props: GuardInputs) {
        const call = (method: string, path: string, body?: unknown, contentType?: string) =>
            kubeRequest(props.hostKubeconfig, method, path, body, { contentType });
        // A 404 anywhere: nothing there (no chart Job made it, or it is gone already); 422: the key went meanwhile.
        const check = (what: string, r: { status: number; body: string }) => {
            if (r.status >= 300 && r.status !== 404 && r.status !== 422) throw new Error(`${what} on the host: HTTP ${r.status} ${r.body.slice(0, 300)}`);
            return r.status < 300;
        };
        const path = `/api/v1/namespaces/${props.namespace}/configmaps/${STATIC_RESOURCES_CONFIGMAP}`;
        const got = await call("GET", path);
        const patch = check(`reading ${STATIC_RESOURCES_CONFIGMAP}`, got) ? withoutNamespaceManifests(JSON.parse(got.body)) : undefined;
        if (patch)
            check(`taking the Namespace manifests out of ${STATIC_RESOURCES_CONFIGMAP}`, await call("PATCH", path, patch, "application/json-patch+json"));
        const ns = await call("GET", `/api/v1/namespaces/${props.namespace}`);
        if (!check(`reading the namespace ${props.namespace}`, ns)) return;
        const owner = ownedByNamespace({ name: props.namespace, uid: (JSON.parse(ns.body) as { metadata: { uid: string } }).metadata.uid });
        for (const [apiVersion, plural, name] of HOOK_RBAC) {
            check(
                `handing ${plural}/${name} to ${props.namespace}`,
                await call("PATCH", `/apis/${apiVersion}/${plural}/${name}`, owner, "application/merge-patch+json"),
            );
        }
    },
};

/** Arguments of a ChartUninstallGuard. */
export interface ChartUninstallGuardArgs {
    /** The host's kubeconfig; secret. */
    hostKubeconfig: pulumi.Input<string>;
    /** The release's namespace on the host (`karmada-system`). */
    namespace: string;
}

/** Keeps the chart's post-delete Job from deleting the release's own namespace on the host, and its hook RBAC from outliving it (see the file comment). */
export class ChartUninstallGuard extends pulumi.dynamic.Resource {
    constructor(name: string, args: ChartUninstallGuardArgs, opts: pulumi.CustomResourceOptions) {
        super(chartUninstallGuardProvider, name, { ...args, hostKubeconfig: pulumi.secret(args.hostKubeconfig) }, opts, "kamino", "ChartUninstallGuard");
    }
}
