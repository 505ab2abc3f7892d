// How one cluster joins Karmada: in Push mode (member.ts, Karmada calls the member) or in Pull mode
// (pull-member.ts, Karmada's agent on the member calls Karmada), with the same narrow rights on
// the member (member-access.ts) either way.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ClusterConfig, DEFAULTS, FleetConfig, FleetPlan, followerRights } from "../../config";
import { describeError, kubeRequest } from "../../live/kube-read";
import { detectionFlags } from "../failover/detection";
import { KarmadaMember } from "./member";
import { MemberAccessPlan, memberAccessPlan } from "./member-access";
import { karmadaServer } from "./pull-agent";
import { AgentReadyWaiter, KarmadaPullMember } from "./pull-member";
import { KARMADA_PATHS } from "../../crds/karmada-api";
import { KarmadaContext } from "../../common/karmada-context";

/** A joined member, whichever its sync mode. */
export type FleetMember = KarmadaMember | KarmadaPullMember;

/** The cluster that joins. */
export interface JoiningCluster {
    config: ClusterConfig;
    /** Provider for objects in it. */
    provider: k8s.Provider;
    /** Its API server as Karmada reaches it (Push) or records it (Pull). */
    apiEndpoint: pulumi.Output<string>;
    /** Resource whose deletion deletes the whole cluster. */
    lifecycle?: pulumi.Resource;
    region?: string;
    zones?: string[];
    /** What must be on it before it joins (IKO, for its CRD). */
    joinAfter: pulumi.Resource[];
}

/** The Karmada it joins. */
export interface JoinTarget extends KarmadaContext {
    /** Kubeconfig of the Karmada API for this program; secret. */
    kubeconfig: pulumi.Output<string>;
    /** `karmada-cluster` in the Karmada API (Push credentials). */
    clusterNamespace: pulumi.Output<string>;
    /** The version of an existing Karmada, for the agent's image. */
    existingVersion?: string;
    /**
     * Settles once the live Karmada has been checked for members whose sync mode the config
     * changes (syncModeChanges), and fails the join if there are: nothing in Karmada is written first.
     */
    gate?: pulumi.Output<unknown>;
    /** How `up` waits for a Pull member's agent to report its Cluster Ready; the default polls Karmada. */
    agentReadyWaiter?: AgentReadyWaiter;
}

/** A member as the live Karmada has it. */
export interface LiveMember {
    name: string;
    syncMode: string;
    /** Its Ready condition's status ("True", "False", "Unknown"), undefined before Karmada reports one. */
    ready?: string;
}

/**
 * Members the config joins in another sync mode than the live Karmada has them. Such a change
 * is refused: the new join and the old one share the Karmada Cluster, and Karmada removes from
 * the member everything it placed there when that Cluster goes, IRIS included.
 */
export function syncModeChanges(cfg: FleetConfig, live: LiveMember[]): string[] {
    return cfg.clusters.flatMap((c, i) => {
        if (c.karmadaHost) return [];
        const found = live.find((l) => l.name === c.name);
        if (!found || found.syncMode === c.syncMode) return [];
        return [
            `kamino:clusters[${i}].syncMode = ${JSON.stringify(c.syncMode)}: '${c.name}' is joined to Karmada in ${found.syncMode} mode. ` +
                `Changing the mode of a joined member re-registers it, and Karmada would remove everything it placed there (IRIS included) before placing it again; nothing was changed. ` +
                `To change it: (1) remove '${c.name}' from kamino:clusters and from every placement, and run \`pulumi up\` (Kamino drains and unjoins it; a kind or gke cluster is deleted too); ` +
                `(2) add it back with syncMode: ${c.syncMode} and run \`pulumi up\`. Or set syncMode back to ${found.syncMode}`,
        ];
    });
}

/** The members of a live Karmada and their sync modes; none while its Cluster API is not served yet. */
export async function liveMembers(karmadaKubeconfig: string): Promise<LiveMember[]> {
    const res = await kubeRequest(karmadaKubeconfig, "GET", KARMADA_PATHS.clusters);
    if (res.status === 404) return [];
    if (res.status !== 200) throw new Error(describeError({ code: res.status, body: res.body }));
    type Item = { metadata?: { name?: string }; spec?: { syncMode?: string }; status?: { conditions?: { type: string; status: string }[] } };
    const items = (JSON.parse(res.body) as { items?: Item[] }).items ?? [];
    return items.map((c) => ({
        name: c.metadata?.name ?? "",
        syncMode: c.spec?.syncMode ?? "Push",
        ready: c.status?.conditions?.find((x) => x.type === "Ready")?.status,
    }));
}

/** Thrown by the join gate: one line per member whose sync mode the config changes; a RunError, so Pulumi prints it without a stack trace. */
export class SyncModeChangeError extends pulumi.RunError {
    constructor(public readonly problems: string[]) {
        super(problems.join("\n"));
        this.name = "SyncModeChangeError";
    }
}

/**
 * On `up`: settles once the live Karmada has no member whose sync mode the config changes, and
 * fails the joins (before they write to Karmada) if it has. A Karmada that cannot be read is a
 * warning, logged on `logTo`: the joins then fail or succeed on their own.
 */
export function syncModeGate(
    cfg: FleetConfig,
    karmadaKubeconfig: pulumi.Output<string>,
    read = liveMembers,
    logTo?: pulumi.Resource,
): pulumi.Output<boolean> | undefined {
    if (pulumi.runtime.isDryRun()) return undefined;
    return pulumi.unsecret(
        karmadaKubeconfig.apply(async (kubeconfig) => {
            let live: LiveMember[];
            try {
                live = await read(kubeconfig);
            } catch (e) {
                pulumi.log.warn(`could not read Karmada's members to check their sync modes: ${(e as Error).message}`, logTo);
                return true;
            }
            const problems = syncModeChanges(cfg, live);
            if (problems.length > 0) throw new SyncModeChangeError(problems);
            return true;
        }),
    );
}

/**
 * What Karmada's identity (Push) or the agent (Pull) may do on each member, from the fleet plan: the
 * IrisClusters' namespaces, and what each follower says Karmada writes for it (config/followers).
 */
export function memberAccessFor(plan: FleetPlan): MemberAccessPlan {
    return memberAccessPlan(plan.config.karmada.memberAccess, {
        irisClusterNamespaces: plan.config.irisClusters.map((i) => i.namespace),
        objects: followerRights(plan),
    });
}

/** The agent image of Pull members: the stack's, else Karmada's own at the control plane's version (the chart's, or the existing one's). */
export function agentImageFor(plan: FleetPlan, existingVersion: string | undefined): string | undefined {
    const version = plan.karmada.knownVersion ?? existingVersion;
    return plan.config.karmada.agentImage ?? (version ? `${DEFAULTS.karmadaAgentImage}:${version}` : undefined);
}

/** Joins one member in its sync mode, once IKO is on it. */
export function joinMember(
    cluster: JoiningCluster,
    plan: FleetPlan,
    karmada: JoinTarget,
    narrowAfter: pulumi.Output<unknown> | undefined,
    opts: pulumi.ComponentResourceOptions,
): FleetMember {
    const c = cluster.config;
    const cfg = plan.config;
    const common = {
        clusterName: c.name,
        memberProvider: cluster.provider,
        karmada: { provider: karmada.provider, lifecycle: karmada.lifecycle, kubeconfig: karmada.kubeconfig },
        apiEndpoint: cluster.apiEndpoint,
        labels: c.labels,
        provider: c.provider,
        region: cluster.region,
        zones: cluster.zones,
        memberLifecycle: cluster.lifecycle,
        joinAfter: cluster.joinAfter,
        access: memberAccessFor(plan),
        narrowAfter,
    };
    if (c.syncMode !== "Pull")
        return new KarmadaMember(`${c.name}-member`, { ...common, karmadaClusterNamespace: karmada.clusterNamespace, gate: karmada.gate }, opts);
    const agentImage = agentImageFor(plan, karmada.existingVersion);
    if (!agentImage) {
        throw new Error(
            `Kamino cannot tell the version of the existing Karmada for the agent of '${c.name}'; set kamino:karmada.agentImage (e.g. ${DEFAULTS.karmadaAgentImage}:v1.18.2)`,
        );
    }
    // A kind host publishes the Karmada API on a NodePort of its node container, on the kind network;
    // any other Karmada is reached where its kubeconfig says: the load balancer or kamino:karmada.endpoint
    // (config/sync-mode.ts refuses a loopback address).
    const agentServer = plan.karmada.kindNetworkServer
        ? pulumi.output(plan.karmada.kindNetworkServer)
        : pulumi.unsecret(karmada.kubeconfig.apply((kc) => karmadaServer(kc).server));
    return new KarmadaPullMember(
        `${c.name}-member`,
        {
            ...common,
            agentServer,
            agentImage,
            readyTimeoutSeconds: cfg.karmada.agentReadyTimeoutSeconds,
            detection: detectionFlags(cfg.karmada.failureDetectionSeconds).agent,
            skipAwait: cfg.testing.skipAwait,
            gate: karmada.gate,
            readyWaiter: karmada.agentReadyWaiter,
        },
        opts,
    );
}
