// FederatedConfigMaps: ConfigMaps from `kamino:configMaps` (CPF merge files and the like) created once
// in the Karmada API. Most have no placement of their own: they travel as dependencies of the
// IrisClusters that name them (propagateDeps); one with a `placement` also goes where it says.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { ConfigMapConfig } from "../config";
import { PropagationPolicy } from "../crds";
import { everySelectedMember } from "./federated-iris";
import { inheritedDependsOn } from "../common/options";
import { KarmadaContext } from "../common/karmada-context";

/** Label on every ConfigMap Kamino creates in Karmada. */
export const KAMINO_CONFIG_MAP_LABEL = { "kamino.io/config-map": "true" };

/**
 * A ConfigMap's `data`: each key's file content (read now, on every run, so that an edited file is
 * a changed value and so an update in place) or its inline value. The config checks made sure the
 * files exist; `readFile` is injected for tests.
 */
export function configMapData(c: ConfigMapConfig, readFile: (path: string) => string = (p) => fs.readFileSync(p, "utf8")): Record<string, string> {
    return Object.fromEntries(Object.entries(c.data).map(([key, v]) => [key, v.file !== undefined ? readFile(v.file) : v.value!]));
}

/** One ConfigMap to create. */
export interface FederatedConfigMap {
    /** The validated `kamino:configMaps` entry. */
    config: ConfigMapConfig;
    /** Whether it gets a PropagationPolicy of its own (it has a placement, or no IrisCluster names it). */
    ownPlacement: boolean;
    /** Names of the member clusters it goes to: its placement's and those of the IrisClusters naming it (for outputs). */
    targetClusters: string[];
}

/** Arguments of a FederatedConfigMaps. */
export interface FederatedConfigMapsArgs {
    /** The ConfigMaps. */
    configMaps: FederatedConfigMap[];
    /** The Karmada API; its provider must update ConfigMaps in place (`enableConfigMapMutable`). */
    karmada: KarmadaContext;
    /** Keep a placed ConfigMap on its members through a failover taint (see FederatedIrisClusterArgs). */
    tolerateFailoverTaint?: boolean;
    /** Reads a `file` entry; the default reads it from disk, relative to the project directory. */
    readFile?: (path: string) => string;
}

/** ConfigMaps in the Karmada API, with a PropagationPolicy only for those placed on their own. */
export class FederatedConfigMaps extends pulumi.ComponentResource {
    /** The ConfigMaps in the Karmada API, keyed `namespace/name`. */
    public readonly configMaps: Record<string, k8s.core.v1.ConfigMap> = {};
    /** Where each ConfigMap goes, keyed `namespace/name`. */
    public readonly targets: Record<string, string[]> = {};

    constructor(name: string, args: FederatedConfigMapsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:FederatedConfigMaps", name, {}, opts);
        const child = { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: inheritedDependsOn(opts) };
        for (const m of args.configMaps) {
            const c = m.config;
            const id = `${c.namespace}/${c.name}`;
            this.configMaps[id] = new k8s.core.v1.ConfigMap(
                `${name}-${c.namespace}-${c.name}`,
                { metadata: { name: c.name, namespace: c.namespace, labels: KAMINO_CONFIG_MAP_LABEL }, data: configMapData(c, args.readFile) },
                child,
            );
            if (m.ownPlacement) {
                const placement = everySelectedMember(c.placement, args.tolerateFailoverTaint);
                new PropagationPolicy(
                    `${name}-${c.namespace}-${c.name}-policy`,
                    {
                        metadata: { name: `${c.name}-configmap-sync`, namespace: c.namespace },
                        spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: c.name }], ...(placement ? { placement } : {}) },
                    },
                    child,
                );
            }
            this.targets[id] = m.targetClusters;
        }
        this.registerOutputs({ targets: this.targets });
    }
}
