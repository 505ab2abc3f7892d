// The fleet plan: the facts a validated config implies, derived once (each cluster's role, kind
// names and sync mode; where Karmada comes from and how it is reached; where each IrisCluster,
// Secret, ConfigMap and manifest goes; which members fail over). Components and checks read the
// plan instead of deriving the same facts again from the config. Pure, like the rest of config/.
import { dependencyPlacement, irisTargets, pairDeclared } from "./dependencies";
import { failoverMembers } from "./failover";
import { followerNamespaces } from "./followers/derived";
import { Endpoint, KarmadaTopology, karmadaTopology, parseEndpoint } from "./karmada-host";
import { resolvePlacement } from "./placement";
import { drIrisClusterName, mirrorNetwork } from "./mirror";
import { ClusterConfig, ConfigMapConfig, FleetConfig, IrisClusterConfig, ManifestConfig, MirrorConfig, SecretConfig } from "./schema";

/** A kind cluster's names on this machine. */
export interface KindNames {
    /** The kind cluster's name: `kamino:kindNamePrefix` + the cluster's name. */
    clusterName: string;
    /** Its control-plane node container, also its host name on the `kind` network. */
    controlPlaneNode: string;
    /** Its index among the fleet's kind clusters, which picks its default subnets. */
    index: number;
}

/** One cluster as the fleet sees it: its config and the facts derived from it. */
export interface ClusterPlan {
    /** The cluster as configured. */
    config: ClusterConfig;
    /** Its name in the stack config and in Karmada. */
    name: string;
    /** Whether it hosts Karmada or is one of its members. */
    role: "karmada-host" | "member";
    /** How a member is synced (Push by default); absent on the host. */
    syncMode?: "Push" | "Pull";
    /** Its names on this machine, for a kind cluster. */
    kind?: KindNames;
    /** Kamino installs Karmada's chart on it (so a kind host maps the Karmada API's NodePort). */
    hostsKarmadaChart: boolean;
}

/** The Karmada this fleet uses, as the config implies it. */
export interface KarmadaPlan {
    /** `chart`: Kamino installs Karmada on the host; `existing`: a control plane that runs already. */
    source: "chart" | "existing";
    /** The cluster hosting Karmada. */
    hostName: string;
    /** Karmada's name for its own control plane: `karmada-<host>`. */
    clusterIdentifier: string;
    /** The existing Karmada's kubeconfig file, when `source` is `existing`. */
    existingKubeconfigPath?: string;
    /** `kamino:karmada.endpoint`, parsed. */
    endpoint?: Endpoint;
    /** The provider of the cluster Kamino installs Karmada on; absent for an existing Karmada. */
    installsOn?: ClusterConfig["provider"];
    /** The version Pull members' agents run at when the config alone tells it (an installed chart). */
    knownVersion?: string;
    /** On a kind host Kamino installs: the Karmada API as Pull agents reach it on the `kind` network. */
    kindNetworkServer?: string;
    /**
     * How a Karmada Kamino installs runs: `single` (one of each component, the chart's etcd, the API
     * on a NodePort) or `highlyAvailable` (two of each, Kamino's etcd, a load balancer).
     */
    topology?: KarmadaTopology;
}

/** One IrisCluster entry and where it goes. */
export interface IrisClusterPlan {
    /** The entry as configured. */
    config: IrisClusterConfig;
    /** `namespace/name`: its key in stack outputs. */
    id: string;
    /** The component's name: the IrisCluster's name, prefixed by its namespace outside `default`. */
    resourceName: string;
    /** The members it goes to; in failover mode the list in its order, first choice first; a mirror's, pair first. */
    targets: string[];
    /** Its IRIS mirror across members, when it has one. */
    mirror?: MirrorPlan;
}

/** One member of an IRIS mirror: the IrisCluster Kamino declares there and the Service the others reach it by. */
export interface MirrorMemberPlan {
    /** The member cluster. */
    member: string;
    /** `pair`: the failover pair (primary and backup); `drasync`: a DR async member. */
    role: "pair" | "drasync";
    /** Its IrisCluster's name: the entry's for the pair, `<name>-<member>` for a DR member. */
    irisClusterName: string;
    /** The Service that reaches its IRIS from the other members: `<IrisCluster>-mirror`. */
    serviceName: string;
    /** Kamino declares it (the pair is withdrawn while a promotion fences it). */
    declared: boolean;
}

/** An IRIS mirror across members, as one IrisCluster entry declares it. */
export interface MirrorPlan {
    /** The entry's mirror config. */
    config: MirrorConfig;
    /** The entry's index in `kamino:irisClusters` (commands set `mirror.promoted` there). */
    configIndex: number;
    /** The IRIS mirror's name. */
    name: string;
    /** How its members reach each other: Cilium ClusterMesh (kind), internal load balancers in one VPC (gke), or addresses the stack gives. */
    network: "addresses" | "cluster-mesh" | "gke-internal";
    /** The failover pair's member. */
    pair: MirrorMemberPlan;
    /** Each DR async member. */
    drAsync: MirrorMemberPlan[];
}

/** Where a Secret or ConfigMap entry goes. */
export interface DependencyPlan<C> {
    /** The entry as configured. */
    config: C;
    /** It has a policy of its own (else it only follows the IrisClusters naming it). */
    ownPlacement: boolean;
    /** Every member it may reach, in fleet order. */
    targetClusters: string[];
}

/** Everything a validated config implies, derived once. */
export interface FleetPlan {
    /** The validated config the plan was made from. */
    config: FleetConfig;
    /** Every cluster, in config order. */
    clusters: ClusterPlan[];
    /** The Karmada host. */
    host: ClusterPlan;
    /** Every cluster but the host, in config order. */
    members: ClusterPlan[];
    /** The Karmada this fleet uses. */
    karmada: KarmadaPlan;
    /** The members some failover placement names, in first-seen order: the ones Karmada taints. */
    failoverMembers: string[];
    /** Some placement is in failover mode: Karmada's failover taint is tolerated by everything placed. */
    failover: boolean;
    /** The namespaces Kamino makes in Karmada (every namespace the config uses but `default`). */
    namespaces: string[];
    /** Each IrisCluster entry with its targets. */
    irisClusters: IrisClusterPlan[];
    /** Each IRIS mirror, in entry order. */
    mirrors: MirrorPlan[];
    /** The kind clusters Kamino meshes with Cilium ClusterMesh (members of a kind mirror), each with its peers. */
    clusterMesh: Record<string, string[]>;
    /** Each Secret entry with its placement. */
    secrets: DependencyPlan<SecretConfig>[];
    /** Each ConfigMap entry with its placement. */
    configMaps: DependencyPlan<ConfigMapConfig>[];
    /** Each manifest entry with the members it goes to. */
    manifests: { config: ManifestConfig; targetClusters: string[] }[];
}

/** The plan of a validated config. */
export function resolveFleetPlan(config: FleetConfig): FleetPlan {
    const clusters = clusterPlans(config);
    const host = clusters.find((c) => c.role === "karmada-host")!;
    const failover = failoverMembers(config);
    const irisClusters = config.irisClusters.map((ic, i) => ({
        config: ic,
        id: `${ic.namespace}/${ic.name}`,
        resourceName: ic.namespace === "default" ? ic.name : `${ic.namespace}-${ic.name}`,
        targets: ic.mirror ? irisTargets(config, ic) : placedOn(config, ic.placement),
        ...(ic.mirror ? { mirror: mirrorPlan(config, ic, i) } : {}),
    }));
    const mirrors = irisClusters.flatMap((ic) => (ic.mirror ? [ic.mirror] : []));
    return {
        config,
        clusters,
        host,
        members: clusters.filter((c) => c.role === "member"),
        karmada: karmadaPlan(config, host),
        failoverMembers: failover,
        failover: failover.length > 0,
        namespaces: fleetNamespaces(config),
        irisClusters,
        mirrors,
        clusterMesh: meshPeers(mirrors),
        secrets: config.secrets.map((s) => ({ config: s, ...dependencyPlacement(config, "Secret", s) })),
        configMaps: config.configMaps.map((c) => ({ config: c, ...dependencyPlacement(config, "ConfigMap", c) })),
        manifests: config.manifests.map((m) => ({ config: m, targetClusters: placedOn(config, m.placement) })),
    };
}

/** The plan of each cluster, kind clusters numbered in config order. */
function clusterPlans(config: FleetConfig): ClusterPlan[] {
    const installsChart = config.karmada.existingKubeconfigPath === undefined;
    let kindIndex = 0;
    return config.clusters.map((c) => ({
        config: c,
        name: c.name,
        role: c.karmadaHost ? "karmada-host" : "member",
        syncMode: c.karmadaHost ? undefined : c.syncMode,
        kind: c.provider === "kind" ? kindNames(config.kindNamePrefix, c.name, kindIndex++) : undefined,
        hostsKarmadaChart: installsChart && c.karmadaHost,
    }));
}

/** A kind cluster's names; kind calls its first node `<cluster>-control-plane`. */
export function kindNames(prefix: string, name: string, index: number): KindNames {
    const clusterName = `${prefix}${name}`;
    return { clusterName, controlPlaneNode: `${clusterName}-control-plane`, index };
}

function karmadaPlan(config: FleetConfig, host: ClusterPlan): KarmadaPlan {
    const k = config.karmada;
    const existing = k.existingKubeconfigPath !== undefined;
    // Validated already: a bad endpoint never reaches a plan.
    const endpoint = k.endpoint !== undefined ? (parseEndpoint(k.endpoint) as Endpoint) : undefined;
    return {
        source: existing ? "existing" : "chart",
        hostName: host.name,
        clusterIdentifier: `karmada-${host.name}`,
        existingKubeconfigPath: k.existingKubeconfigPath,
        endpoint,
        installsOn: existing ? undefined : host.config.provider,
        knownVersion: existing ? undefined : k.chartVersion,
        kindNetworkServer: !existing && host.kind ? `https://${host.kind.controlPlaneNode}:${k.apiServerNodePort}` : undefined,
        topology: existing ? undefined : karmadaTopology(k, host.config),
    };
}

/** The members a placement puts an entry on: a failover list as given (its order matters), else every member it selects. */
function placedOn(config: FleetConfig, placement: IrisClusterConfig["placement"] | ManifestConfig["placement"]): string[] {
    return placement.mode === "failover" ? placement.clusterNames! : resolvePlacement(config.clusters, placement);
}

/** Every namespace the config's objects live in (the IrisClusters', then each follower's), but `default`, first-seen order. */
function fleetNamespaces(config: FleetConfig): string[] {
    return [...new Set([...config.irisClusters.map((i) => i.namespace), ...followerNamespaces(config)])].filter((n) => n !== "default");
}

/** An entry's mirror: the pair's member and IrisCluster, each DR member's, and their network. */
function mirrorPlan(config: FleetConfig, ic: IrisClusterConfig, configIndex: number): MirrorPlan {
    const m = ic.mirror!;
    const member = (name: string, role: MirrorMemberPlan["role"], irisClusterName: string, declared: boolean): MirrorMemberPlan => ({
        member: name,
        role,
        irisClusterName,
        serviceName: `${irisClusterName}-mirror`,
        declared,
    });
    const clusters = [m.primary, ...m.drAsync].map((n) => config.clusters.find((c) => c.name === n)!);
    return {
        config: m,
        configIndex,
        name: m.name,
        // Validated already: a mirror without a network never reaches a plan.
        network: mirrorNetwork(clusters, m.addresses) as MirrorPlan["network"],
        pair: member(m.primary, "pair", ic.name, pairDeclared(m)),
        drAsync: m.drAsync.map((d) => member(d, "drasync", drIrisClusterName(ic.name, d), true)),
    };
}

/** Each kind cluster in some ClusterMesh mirror, with every other member of those mirrors, in first-seen order. */
function meshPeers(mirrors: MirrorPlan[]): Record<string, string[]> {
    const peers: Record<string, string[]> = {};
    for (const m of mirrors.filter((x) => x.network === "cluster-mesh")) {
        const names = [m.pair.member, ...m.drAsync.map((d) => d.member)];
        for (const n of names) peers[n] = [...new Set([...(peers[n] ?? []), ...names.filter((o) => o !== n)])];
    }
    return peers;
}
