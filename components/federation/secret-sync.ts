// SecretSync: Secrets declared once in the Karmada API and kept in sync on member clusters,
// instead of `kubectl get secret -o yaml | kubectl apply` per cluster.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { SecretConfig } from "../config";
import { PropagationPolicy } from "../crds";
import { everySelectedMember } from "./federated-iris";
import { inheritedDependsOn } from "../common/options";
import { dockerConfigJson, RegistryCredentials } from "../common/secret-data";
import { KarmadaContext } from "../common/karmada-context";

/** Label on every Secret Kamino syncs. */
export const SYNCED_LABEL = { "kamino.io/synced": "true" };

/** One Secret to sync. */
export interface SyncedSecret {
    /** The validated `kamino:secrets` entry. */
    config: SecretConfig;
    /** Its values, from secret config (a secret Output). */
    values: pulumi.Input<Record<string, string>>;
    /** Names of the member clusters it goes to (for outputs). */
    targetClusters: string[];
    /**
     * Whether it gets a PropagationPolicy of its own (default true). A Secret that IrisClusters name
     * and that has no placement gets none: it follows those IrisClusters (propagateDeps).
     */
    ownPlacement?: boolean;
}

/** Arguments of a SecretSync. */
export interface SecretSyncArgs {
    /** The Secrets. */
    secrets: SyncedSecret[];
    /** The Karmada API its objects are made in. */
    karmada: KarmadaContext;
    /** Keep each Secret on its members through a failover taint (see FederatedIrisClusterArgs). */
    tolerateFailoverTaint?: boolean;
}

/** The Kubernetes Secret type of each config type. */
export const SECRET_TYPES: Record<SecretConfig["type"], string> = {
    opaque: "Opaque",
    dockerconfigjson: "kubernetes.io/dockerconfigjson",
    tls: "kubernetes.io/tls",
};

/** The Secret's `stringData` for a config entry's values. */
export function secretStringData(type: SecretConfig["type"], values: Record<string, string>): Record<string, string> {
    return type === "dockerconfigjson" ? { ".dockerconfigjson": dockerConfigJson(values as unknown as RegistryCredentials) } : values;
}

/**
 * Secrets in the Karmada API and one PropagationPolicy each, selecting exactly that Secret by name,
 * except for those that only follow the IrisClusters naming them.
 */
export class SecretSync extends pulumi.ComponentResource {
    /** The Secrets in the Karmada API, keyed `namespace/name`. */
    public readonly secrets: Record<string, k8s.core.v1.Secret> = {};
    /** Where each Secret goes, keyed `namespace/name`. */
    public readonly targets: Record<string, string[]> = {};

    constructor(name: string, args: SecretSyncArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:SecretSync", name, {}, opts);
        const child = { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: inheritedDependsOn(opts) };
        for (const s of args.secrets) {
            const c = s.config;
            const id = `${c.namespace}/${c.name}`;
            const stringData = pulumi.secret(pulumi.output(s.values).apply((v) => secretStringData(c.type, v)));
            const secret = new k8s.core.v1.Secret(
                `${name}-${c.namespace}-${c.name}`,
                {
                    metadata: { name: c.name, namespace: c.namespace, labels: SYNCED_LABEL },
                    type: SECRET_TYPES[c.type],
                    stringData,
                },
                child,
            );
            this.secrets[id] = secret;
            this.targets[id] = s.targetClusters;
            if (s.ownPlacement === false) continue;
            const placement = everySelectedMember(c.placement, args.tolerateFailoverTaint);
            new PropagationPolicy(
                `${name}-${c.namespace}-${c.name}-policy`,
                {
                    metadata: { name: `${c.name}-sync`, namespace: c.namespace },
                    spec: {
                        resourceSelectors: [{ apiVersion: "v1", kind: "Secret", name: c.name }],
                        ...(placement ? { placement } : {}),
                        ...(c.overwriteExisting ? { conflictResolution: "Overwrite" } : {}),
                    },
                },
                child,
            );
        }
        this.registerOutputs({ targets: this.targets });
    }
}
