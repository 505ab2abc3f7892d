// FederatedIrisCluster: an IrisCluster template in the Karmada API, the PropagationPolicy that
// clones it onto member clusters, and an OverridePolicy for per-cluster differences.
import * as pulumi from "@pulumi/pulumi";
import { followerMetadata, IrisClusterConfig, OverrideConfig, PlacementConfig } from "../config";
import {
    ClusterAffinity,
    IrisCluster,
    IrisClusterSpec,
    OverridePolicy,
    OverrideSpec,
    Placement,
    PlaintextOverrider,
    PropagationPolicy,
    PropagationSpec,
    ResourceSelector,
} from "../crds";
import { failoverPlacement, failoverPolicyFields, TOLERATE_FAILOVER_TAINT } from "../karmada/failover/failover";
import { RunningWaiter, waitForRunningMembers } from "../live/iris-running";
import { formatAge } from "../live/progress";
import { inheritedDependsOn } from "../common/options";
import { mergeValues } from "../common/values";
import { KarmadaContext } from "../common/karmada-context";

/** Arguments of a FederatedIrisCluster. */
export interface FederatedIrisClusterArgs {
    /** The validated `kamino:irisClusters` entry. */
    config: IrisClusterConfig;
    /** Names of the member clusters the placement selects (for outputs). */
    targetClusters: string[];
    /**
     * The Karmada API its objects are made in. With its kubeconfig, and `config.waitForRunning`,
     * `up` (never a preview) waits until IKO reports the IrisCluster Running on every target member.
     */
    karmada: KarmadaContext;
    /** How to wait for that; the default polls the template's aggregated status in Karmada. */
    waitForRunning?: RunningWaiter;
    /**
     * The fleet taints failed failover members NoExecute (see failover.ts): a placement in mode `all`
     * then tolerates the taint, so that it keeps every member it selects, as without failover.
     */
    tolerateFailoverTaint?: boolean;
}

/** The IrisCluster spec Kamino generates from a config entry. */
export function irisClusterSpec(c: IrisClusterConfig): IrisClusterSpec {
    const generated: Partial<IrisClusterSpec> = {
        topology: { data: { image: c.image } },
        // IKO's documented place for the Service template is spec.serviceTemplate (the seed nests it under topology.data).
        ...(c.serviceType ? { serviceTemplate: { spec: { type: c.serviceType } } } : {}),
        ...(c.storageClassName ? { storageClassName: c.storageClassName } : {}),
        ...(c.configSource ? { configSource: { name: c.configSource } } : {}),
        ...(c.licenseKeySecret ? { licenseKeySecret: { name: c.licenseKeySecret } } : {}),
        ...(c.imagePullSecrets ? { imagePullSecrets: c.imagePullSecrets.map((name) => ({ name })) } : {}),
        ...(c.tlsSecret ? { tls: { common: { secret: { secretName: c.tlsSecret } } } } : {}),
    };
    return mergeValues(c.spec, generated) as unknown as IrisClusterSpec;
}

/**
 * The template's metadata: its name and namespace, and the annotations and labels by which Karmada's
 * interpreter finds the followers its spec does not name (config/followers), when it has any.
 */
export function irisClusterMetadata(c: IrisClusterConfig): {
    name: string;
    namespace: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
} {
    const { annotations, labels } = followerMetadata(c);
    return {
        name: c.name,
        namespace: c.namespace,
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
    };
}

/** A placement from config as a Karmada ClusterAffinity; undefined means every member. */
export function clusterAffinity(p: PlacementConfig | undefined): ClusterAffinity | undefined {
    const affinity: ClusterAffinity = {
        ...(p?.clusterNames ? { clusterNames: p.clusterNames } : {}),
        ...(p?.excludeClusters ? { exclude: p.excludeClusters } : {}),
        ...(p?.clusterLabels ? { labelSelector: { matchLabels: p.clusterLabels } } : {}),
    };
    return Object.keys(affinity).length > 0 ? affinity : undefined;
}

/**
 * A placement on every member `p` selects (undefined: every member), kept there through a failover
 * taint when the fleet uses one, as placements were before failover existed.
 */
export function everySelectedMember(p: PlacementConfig | undefined, tolerateFailoverTaint = false): Placement | undefined {
    const affinity = clusterAffinity(p);
    const placement: Placement = {
        ...(affinity ? { clusterAffinity: affinity } : {}),
        ...(tolerateFailoverTaint ? { clusterTolerations: [{ ...TOLERATE_FAILOVER_TAINT }] } : {}),
    };
    return Object.keys(placement).length > 0 ? placement : undefined;
}

/** Plaintext overriders (JSON patches) for one config override, against the template's spec. */
export function overriders(o: OverrideConfig, template: IrisClusterSpec): PlaintextOverrider[] {
    const out: PlaintextOverrider[] = [];
    if (o.serviceType) {
        // JSON patch 'add' needs the parent to exist, and replaces a value that is there already.
        out.push(
            template.serviceTemplate?.spec
                ? { path: "/spec/serviceTemplate/spec/type", operator: "add", value: o.serviceType }
                : { path: "/spec/serviceTemplate", operator: "add", value: { spec: { type: o.serviceType } } },
        );
    }
    if (o.storageClassName) out.push({ path: "/spec/storageClassName", operator: "add", value: o.storageClassName });
    if (o.image) out.push({ path: "/spec/topology/data/image", operator: "replace", value: o.image });
    for (const p of o.plaintext ?? [])
        out.push(p.operator === "remove" ? { path: p.path, operator: p.operator } : { path: p.path, operator: p.operator, value: p.value });
    return out;
}

/** The OverridePolicy spec for an entry's overrides, or undefined when it has none. */
export function overrideSpec(c: IrisClusterConfig, selector: ResourceSelector): OverrideSpec | undefined {
    if (c.overrides.length === 0) return undefined;
    const template = irisClusterSpec(c);
    return {
        resourceSelectors: [selector],
        overrideRules: c.overrides.map((o) => ({
            targetCluster: {
                ...(o.clusterNames ? { clusterNames: o.clusterNames } : {}),
                ...(o.clusterProviders ? { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: o.clusterProviders }] } } : {}),
            },
            overriders: { plaintext: overriders(o, template) },
        })),
    };
}

/**
 * The PropagationPolicy spec of an entry. Mode `all`: every member the placement selects. Mode
 * `failover`: one member at a time down `placement.clusterNames` (failover.ts). Both propagate the
 * IrisCluster's dependencies with it (`propagateDeps`; failover mode sets it in failoverPolicyFields).
 */
export function irisPropagationSpec(
    c: IrisClusterConfig,
    selector: ResourceSelector,
    opts: { overridePolicyName?: string; tolerateFailoverTaint?: boolean } = {},
): PropagationSpec {
    const dependentOverrides = opts.overridePolicyName ? { dependentOverrides: [opts.overridePolicyName] } : {};
    if (c.placement.mode === "failover") {
        return {
            resourceSelectors: [selector],
            placement: failoverPlacement(c.placement.clusterNames ?? [], c.failoverAfterSeconds),
            ...failoverPolicyFields(c.failoverAfterSeconds),
            ...dependentOverrides,
        };
    }
    const placement = everySelectedMember(c.placement, opts.tolerateFailoverTaint);
    return {
        resourceSelectors: [selector],
        ...(placement ? { placement } : {}),
        // What follows it goes where it goes (the interpreter's GetDependencies: config/followers).
        propagateDeps: true,
        // Karmada applies the overrides before the first copy reaches a member.
        ...dependentOverrides,
    };
}

/** An IrisCluster declared once in Karmada and cloned onto the members its placement selects. */
export class FederatedIrisCluster extends pulumi.ComponentResource {
    /** The template in the Karmada API. */
    public readonly template: IrisCluster;
    /** The policy that places it. */
    public readonly policy: PropagationPolicy;
    /** Per-cluster differences, when the entry has overrides. */
    public readonly overridePolicy?: OverridePolicy;
    /** The member clusters it goes to. */
    public readonly targetClusters: string[];
    /**
     * On `up`, the members where it runs, once it runs on all of them; it rejects with a
     * ResourceError on the template otherwise. Absent in preview or when not waiting.
     */
    public readonly running?: Promise<string[]>;

    constructor(name: string, args: FederatedIrisClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:FederatedIrisCluster", name, {}, opts);
        const c = args.config;
        this.targetClusters = args.targetClusters;
        const after = inheritedDependsOn(opts);
        const child: pulumi.CustomResourceOptions = { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: after };
        const selector: ResourceSelector = { apiVersion: IrisCluster.apiVersion, kind: IrisCluster.kind, name: c.name };

        const overrides = overrideSpec(c, selector);
        const overridePolicyName = `${c.name}-overrides`;
        if (overrides) {
            this.overridePolicy = new OverridePolicy(
                `${name}-overrides`,
                { metadata: { name: overridePolicyName, namespace: c.namespace }, spec: overrides },
                child,
            );
        }
        this.policy = new PropagationPolicy(
            `${name}-policy`,
            {
                metadata: { name: c.policyName ?? `${c.name}-propagate`, namespace: c.namespace },
                spec: irisPropagationSpec(c, selector, {
                    overridePolicyName: overrides ? overridePolicyName : undefined,
                    tolerateFailoverTaint: args.tolerateFailoverTaint,
                }),
            },
            { ...child, dependsOn: [...after, ...(this.overridePolicy ? [this.overridePolicy] : [])] },
        );
        this.template = new IrisCluster(
            `${name}-template`,
            { metadata: irisClusterMetadata(c), spec: irisClusterSpec(c) },
            { ...child, dependsOn: [...after, this.policy] },
        );
        if (c.waitForRunning && args.karmada.kubeconfig && !pulumi.runtime.isDryRun()) {
            // A poll rather than the provider's pulumi.com/waitFor annotation: that can neither fail
            // fast on a Failed member nor say which member is not running. The program awaits this
            // promise (index.ts), so `up` ends when it settles; a failure is a ResourceError on the
            // template, which Pulumi prints there as it is and which fails `up`, while every resource
            // already made stays in state.
            const wait = args.waitForRunning ?? waitForRunningMembers;
            const id = `${c.namespace}/${c.name}`;
            const kubeconfig = args.karmada.kubeconfig;
            // While it waits, Pulumi's display shows on this component what the members report, each
            // time that changes (ephemeral: the live display's status); once it runs, one line says where.
            const progress = (line: string) => pulumi.log.info(line, this, undefined, true);
            this.running = new Promise<string[]>((resolve, reject) => {
                pulumi.all([this.template.id, kubeconfig]).apply(([, kc]) => {
                    const started = Date.now();
                    wait(kc, id, this.targetClusters, c.runningTimeoutSeconds, c.placement.mode, progress).then(
                        (members) => {
                            pulumi.log.info(`IrisCluster ${id} runs on ${members.join(", ")} (waited ${formatAge((Date.now() - started) / 1000)})`, this);
                            resolve(members);
                        },
                        (e: Error) => reject(new pulumi.ResourceError(e.message, this.template, true)),
                    );
                });
            });
        }
        this.registerOutputs({ targetClusters: this.targetClusters });
    }
}
