// IrisMirror: an IRIS mirror laid across members. The failover pair (a mirrored IrisCluster) on the
// primary member, a DR async IrisCluster of its own on each DR member, each pinned where it is
// declared (Karmada never moves them: a moved member would start empty). A DR member joins the
// mirror by a CPF merge file in its configSource (`ConfigMirror ... Member=drasync`), and each member's
// IRIS is reachable from the others through a Service of its own: a Cilium global Service (kind
// members, ClusterMesh) or an internal load balancer with global access (gke members, one VPC).
// A promotion (`npm run promote`) fences the pair: it is not declared while `mirror.promoted` is set,
// and comes back on failback with `ValidatedMember=0`, so that it cannot act as a second primary.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";
import { isIP } from "net";
import { ConfigMapConfig, forDrMember, IrisClusterConfig, IrisClusterPlan, MirrorMemberPlan, MirrorPlan } from "../config";
import { IKO_POD_LABELS, PropagationPolicy } from "../crds";
import { FederatedIrisCluster } from "./federated-iris";
import { configMapData, KAMINO_CONFIG_MAP_LABEL } from "./config-maps";
import { SKIP_AWAIT } from "./manifests";
import { RunningWaiter } from "../live/iris-running";
import { inheritedDependsOn } from "../common/options";
import { mergeValues } from "../common/values";
import { KarmadaContext } from "../common/karmada-context";
import { TOLERATE_FAILOVER_TAINT } from "../karmada/failover/failover";

/** IRIS's ports a mirror uses across members: the superserver (mirror data), the ISCAgent, the web port (`mirror_status.cxw`). */
export const MIRROR_PORTS = [
    { name: "superserver", port: 1972 },
    { name: "iscagent", port: 2188 },
    { name: "web", port: 52773 },
];

/** Where IKO's data pods keep their durable IRIS directory, under which mirrored databases are created (INFERRED, notes/iris-dr.md). */
export const IRIS_MGR_DIRECTORY = "/irissys/data/IRIS/mgr";

/** How one member's mirror Service is made and reached. */
export interface MirrorEndpoint {
    /** The address the other members dial: a Service DNS name (ClusterMesh) or a reserved internal IP (gke). */
    address: pulumi.Input<string>;
    /** The members the Service is propagated to: every mirror member for a Cilium global Service, its own for a load balancer. */
    propagateTo: string[];
    /** Service type and annotations. */
    type: "ClusterIP" | "LoadBalancer";
    annotations: Record<string, pulumi.Input<string>>;
    /** The address asked of the member's load balancer (a user's IP: MetalLB and most others honour the field). */
    loadBalancerIP?: string;
}

/** Arguments of an IrisMirror. */
export interface IrisMirrorArgs {
    /** The IrisCluster entry with its mirror (config/plan.ts). */
    irisCluster: IrisClusterPlan & { mirror: MirrorPlan };
    /** How each member's mirror Service is made and reached, keyed by member (a fenced pair's too: the DR members keep its address). */
    endpoints: Record<string, MirrorEndpoint>;
    /** The entry's own configSource ConfigMap, whose files the mirror's merge files extend. */
    configSource?: ConfigMapConfig;
    /** The Karmada API. */
    karmada: KarmadaContext;
    /** How `up` waits for each member's IrisCluster to run; the default polls Karmada. */
    waitForRunning?: RunningWaiter;
    /** The fleet taints failover members NoExecute: the mirror's pinned objects tolerate it, so that no taint evicts a member's data. */
    tolerateFailoverTaint?: boolean;
    /** Reads a configSource `file` entry; the default reads it from disk. */
    readFile?: (path: string) => string;
}

/** The DR member's merge lines: join the mirror as DR async at the pair's address, and create its mirrored databases. */
export function drAsyncMergeLines(mirror: MirrorPlan, primaryAddress: string): string {
    return [
        "[Actions]",
        `ConfigMirror:Name=${mirror.name},Member=drasync,Primary=${primaryAddress}`,
        ...mirror.config.databases.map(
            (db) => `CreateDatabase:Name=${db},Directory=${IRIS_MGR_DIRECTORY}/${db},MirrorSetName=${mirror.name},MirrorDBName=${db}`,
        ),
    ].join("\n");
}

/** The fenced pair's merge lines: take its role from the promoted member instead of acting as primary (HA Guide, ValidatedMember). */
export const FENCED_PAIR_MERGE_LINES = "[MirrorMember]\nValidatedMember=0";

/** A configSource's files with `lines` appended to `data.cpf` (the file IKO merges into data nodes). */
export function withDataMerge(base: Record<string, string>, lines: string): Record<string, string> {
    const existing = base["data.cpf"];
    return { ...base, "data.cpf": existing ? `${existing.replace(/\n*$/, "")}\n\n${lines}\n` : `${lines}\n` };
}

/** The IrisCluster entry as one member of the mirror declares it (the pair: the entry's; a DR member: without the followers it does not get). */
export function memberIrisConfig(entry: IrisClusterConfig, member: MirrorMemberPlan, configSource: string | undefined): IrisClusterConfig {
    const topology = (entry.spec.topology ?? {}) as Record<string, unknown>;
    // A DR async takes no part in automatic failover, so it runs no arbiter (notes/iris-dr.md §4).
    const { arbiter: _arbiter, ...drTopology } = topology;
    const spec =
        member.role === "pair"
            ? mergeValues(entry.spec, { topology: { data: { mirrored: true } } })
            : { ...entry.spec, ...(entry.spec.topology ? { topology: drTopology } : {}) };
    return {
        // A DR member gets the followers' fields their registry entries say it gets (config/followers `drMembers`).
        ...(member.role === "pair" ? entry : forDrMember(entry)),
        name: member.irisClusterName,
        policyName: member.role === "pair" ? entry.policyName : undefined,
        placement: { mode: "all", clusterNames: [member.member] },
        configSource,
        spec,
        mirror: undefined,
    };
}

/** The Service other members reach one member's IRIS through; the pair's selects its primary only. */
export function mirrorServiceSpec(member: MirrorMemberPlan, endpoint: Pick<MirrorEndpoint, "type" | "loadBalancerIP">): k8s.types.input.core.v1.ServiceSpec {
    return {
        type: endpoint.type,
        ...(endpoint.loadBalancerIP ? { loadBalancerIP: endpoint.loadBalancerIP } : {}),
        selector: {
            [IKO_POD_LABELS.name]: member.irisClusterName,
            [IKO_POD_LABELS.component]: "data",
            ...(member.role === "pair" ? { [IKO_POD_LABELS.mirrorRole]: "primary" } : {}),
        },
        ports: MIRROR_PORTS.map((p) => ({ name: p.name, port: p.port, targetPort: p.port, protocol: "TCP" })),
    };
}

/** An IRIS mirror across members: an IrisCluster, a mirror Service and (DR members, a fenced pair) merge files per member. */
export class IrisMirror extends pulumi.ComponentResource {
    /** Each declared member's IrisCluster, keyed by member. */
    public readonly members: Record<string, FederatedIrisCluster> = {};
    /** The members its IrisClusters are placed on. */
    public readonly targetClusters: string[];
    /** On `up`, the members where its IrisClusters run, once all run; absent in preview. */
    public readonly running?: Promise<string[]>;

    constructor(name: string, args: IrisMirrorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:IrisMirror", name, {}, opts);
        const entry = args.irisCluster.config;
        const mirror = args.irisCluster.mirror;
        const after = inheritedDependsOn(opts);
        const child = { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: after };
        const base = args.configSource ? configMapData(args.configSource, args.readFile) : {};
        const declared = [mirror.pair, ...mirror.drAsync].filter((m) => m.declared);
        this.targetClusters = declared.map((m) => m.member);

        for (const m of declared) this.mirrorService(name, m, entry.namespace, args, child);
        for (const m of declared) {
            const mergeFile = this.mergeFile(name, m, args, base, entry.namespace, child);
            const configSource = mergeFile ?? entry.configSource;
            this.members[m.member] = new FederatedIrisCluster(
                m.role === "pair" ? name : `${name}-${m.member}`,
                {
                    config: memberIrisConfig(entry, m, configSource),
                    karmada: args.karmada,
                    targetClusters: [m.member],
                    waitForRunning: args.waitForRunning,
                    tolerateFailoverTaint: args.tolerateFailoverTaint,
                },
                // The pair keeps the URN it had as a plain IrisCluster of the fleet: adding a mirror must not replace it (and its data).
                { parent: this, dependsOn: after, ...(m.role === "pair" && opts?.parent ? { aliases: [{ parent: opts.parent }] } : {}) },
            );
        }
        const runs = Object.values(this.members).map((f) => f.running);
        if (runs.every((r) => r !== undefined)) this.running = Promise.all(runs).then((r) => r.flat());
        this.registerOutputs({ targetClusters: this.targetClusters });
    }

    /**
     * The merge files of a DR member (it joins as DR async) or of a pair back from a fence (it
     * rejoins through the promoted member), as a ConfigMap the member's IrisCluster names; none for a
     * pair in its normal role, which keeps the entry's configSource.
     */
    private mergeFile(
        name: string,
        m: MirrorMemberPlan,
        args: IrisMirrorArgs,
        base: Record<string, string>,
        namespace: string,
        child: pulumi.CustomResourceOptions,
    ): string | undefined {
        const mirror = args.irisCluster.mirror;
        const lines =
            m.role === "drasync"
                ? pulumi.output(args.endpoints[mirror.pair.member].address).apply((a) => drAsyncMergeLines(mirror, a))
                : mirror.config.rejoin
                  ? pulumi.output(FENCED_PAIR_MERGE_LINES)
                  : undefined;
        if (!lines) return undefined;
        const configMapName = `${m.irisClusterName}-mirror`;
        new k8s.core.v1.ConfigMap(
            `${name}-${m.member}-merge`,
            { metadata: { name: configMapName, namespace, labels: KAMINO_CONFIG_MAP_LABEL }, data: lines.apply((l) => withDataMerge(base, l)) },
            child,
        );
        return configMapName;
    }

    /** The Service that reaches one member's IRIS, and the policy that puts it where the others look for it. */
    private mirrorService(name: string, m: MirrorMemberPlan, namespace: string, args: IrisMirrorArgs, child: pulumi.CustomResourceOptions): void {
        const endpoint = args.endpoints[m.member];
        new k8s.core.v1.Service(
            `${name}-${m.member}-mirror-service`,
            {
                metadata: {
                    name: m.serviceName,
                    namespace,
                    // A template in Karmada: no load balancer serves it there (manifests.ts, SKIP_AWAIT).
                    annotations: { ...endpoint.annotations, ...SKIP_AWAIT },
                },
                spec: mirrorServiceSpec(m, endpoint),
            },
            child,
        );
        new PropagationPolicy(
            `${name}-${m.member}-mirror-service-policy`,
            {
                metadata: { name: `${m.serviceName}-propagate`, namespace },
                spec: {
                    resourceSelectors: [{ apiVersion: "v1", kind: "Service", name: m.serviceName }],
                    placement: {
                        clusterAffinity: { clusterNames: endpoint.propagateTo },
                        ...(args.tolerateFailoverTaint ? { clusterTolerations: [{ ...TOLERATE_FAILOVER_TAINT }] } : {}),
                    },
                },
            },
            child,
        );
    }
}

/**
 * How each member's Service is made and reached: a Cilium global Service (kind, ClusterMesh)
 * or an internal load balancer at an address `reserve` reserves in that member's subnetwork (gke).
 */
export function mirrorEndpoints(
    mirror: MirrorPlan,
    namespace: string,
    reserve: (member: string, addressName: string) => { ip: pulumi.Input<string>; annotations: Record<string, string> },
): Record<string, MirrorEndpoint> {
    // Every member, the fenced pair too: the DR members keep dialing its address, and it comes back there.
    return Object.fromEntries(
        [mirror.pair, ...mirror.drAsync].map((m) => {
            if (mirror.network === "cluster-mesh") return [m.member, clusterMeshEndpoint(m, namespace, mirror)];
            // An address of the user's: the member's load balancer is asked for it where it is an IP.
            const given = mirror.config.addresses?.[m.member];
            if (given !== undefined)
                return [
                    m.member,
                    { address: given, propagateTo: [m.member], type: "LoadBalancer", annotations: {}, ...(isIP(given) ? { loadBalancerIP: given } : {}) },
                ];
            const reserved = reserve(m.member, gcpName(`${m.member}-${namespace}-${m.serviceName}`));
            return [m.member, { address: reserved.ip, propagateTo: [m.member], type: "LoadBalancer", annotations: reserved.annotations }];
        }),
    );
}

/** A GCP resource name (63 characters at most), shortened with a hash of the whole when longer. */
export function gcpName(name: string): string {
    if (name.length <= 63) return name;
    const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
    return `${name.slice(0, 54).replace(/-+$/, "")}-${hash}`;
}

/** A Cilium global Service in every member of the mirror: the name resolves in each, the backends are where the pods are. */
export function clusterMeshEndpoint(m: MirrorMemberPlan, namespace: string, mirror: MirrorPlan): MirrorEndpoint {
    return {
        address: `${m.serviceName}.${namespace}.svc.cluster.local`,
        propagateTo: [mirror.pair, ...mirror.drAsync].filter((x) => x.declared).map((x) => x.member),
        type: "ClusterIP",
        annotations: { "service.cilium.io/global": "true" },
    };
}
