// Fleet: composes the clusters, their add-ons, the Karmada control plane, the joins, the CRD
// copy, what follows the IrisClusters (config/followers) and the federated IrisClusters. The only
// place that knows the order.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { FleetPlan, GkeClusterConfig, IrisClusterPlan, MirrorPlan } from "./config";
import { FederatedConfigMaps } from "./federation/config-maps";
import { declareFollowers, FollowerComponents } from "./federation/followers";
import { CrdMirror, CrdReader } from "./karmada/control-plane/crd-mirror";
import { IrisCluster } from "./crds";
import { FederatedIrisCluster } from "./federation/federated-iris";
import { IrisClusterInterpreter } from "./karmada/control-plane/interpreter";
import { createFleetCluster, FleetCluster, installAddOns } from "./clusters/fleet-cluster";
import { IrisOperator } from "./clusters/iris-operator";
import { RunningWaiter } from "./live/iris-running";
import { controlPlaneArgs } from "./karmada/control-plane/control-plane-args";
import { KarmadaControlPlane } from "./karmada/control-plane/control-plane";
import { KarmadaFailover } from "./karmada/failover/failover-taints";
import { AgentReadyWaiter } from "./karmada/members/pull-member";
import { FleetMember, joinMember, LiveMember, syncModeGate } from "./karmada/members/join";
import { KarmadaWorks, removedObjectsCleanup } from "./federation/manifest-cleanup";
import { FederatedManifests } from "./federation/manifests";
import { RegistryCredentials } from "./common/secret-data";
import { KarmadaContext } from "./common/karmada-context";
import { SecretSync } from "./federation/secret-sync";
import { IrisMirror, mirrorEndpoints } from "./federation/iris-mirror";
import { ClusterMeshCa, fleetClusterMeshValues } from "./clusters/cluster-mesh";
import { internalLoadBalancerAnnotations, reserveInternalAddress } from "./clusters/gke-internal-address";

/** The CRD IKO creates and Karmada must know before it accepts IrisCluster templates. */
export const IRIS_CRD = "irisclusters.intersystems.com";

/** Arguments of a Fleet. */
export interface FleetArgs {
    /** The plan of the validated stack config (config/plan.ts). */
    plan: FleetPlan;
    /**
     * Values of the secret config keys the config references (`secrets[].fromConfig`,
     * `iko.imagePullSecretFromConfig`), keyed by the key without `kamino:`; secret outputs.
     */
    secretValues: Record<string, pulumi.Output<Record<string, string>>>;
    /** How the IrisCluster CRD is read from the host cluster; the default polls its API server. */
    crdReader?: CrdReader;
    /** How `up` waits for IrisClusters to run on their members; the default polls Karmada. */
    runningWaiter?: RunningWaiter;
    /** How `up` reaches Karmada's Works to clean up removed manifests and followers' objects (manifest-cleanup.ts); the default asks its API. */
    karmadaWorks?: (karmadaKubeconfig: string) => KarmadaWorks;
    /**
     * The version of an existing Karmada (`kamino:karmada.existingKubeconfigPath`), for the image of
     * Pull members' agents when `kamino:karmada.agentImage` is not set; read by the program.
     */
    existingKarmadaVersion?: string;
    /** How `up` reads the members Karmada has, to refuse a sync-mode change (karmada/members/join.ts); the default asks its API. */
    liveMembers?: (karmadaKubeconfig: string) => Promise<LiveMember[]>;
    /** How `up` waits for each Pull member's agent to report its Cluster Ready; the default polls Karmada. */
    agentReadyWaiter?: AgentReadyWaiter;
}

/** Summary of one cluster, as a stack output. */
export interface ClusterSummary {
    name: string;
    provider: string;
    karmadaHost: boolean;
    apiEndpoint: pulumi.Output<string>;
}

/** A Karmada-federated fleet of IKO clusters. */
export class Fleet extends pulumi.ComponentResource {
    /** Every cluster, keyed by name. */
    public readonly clusters: Record<string, FleetCluster> = {};
    /** The cluster hosting Karmada. */
    public readonly hostName: string;
    /** The Karmada control plane. */
    public readonly karmada: KarmadaControlPlane;
    /** The joined members, keyed by name. */
    public readonly members: Record<string, FleetMember> = {};
    /** The IrisCluster CRD in the Karmada API. */
    public readonly crdMirror: CrdMirror;
    /** The federated IrisClusters (an IRIS mirror's across its members), keyed `namespace/name`. */
    public readonly irisClusters: Record<string, FederatedIrisCluster | IrisMirror> = {};
    /** The synced Secrets, when the config has any. */
    public readonly secretSync?: SecretSync;
    /** The ConfigMaps from `kamino:configMaps`, when the config has any. */
    public readonly configMaps?: FederatedConfigMaps;
    /** The objects of `kamino:manifests` files, when the config has any. */
    public readonly manifests?: FederatedManifests;
    /** Each follower's component (config/followers), keyed by follower id, when the plan has objects of it. */
    public readonly followers: FollowerComponents;
    /** The ClusterTaintPolicy that makes failover fire, when some IrisCluster is placed in failover mode. */
    public readonly failover?: KarmadaFailover;
    /** Summaries of all clusters (stack output). */
    public readonly clusterSummaries: ClusterSummary[];
    /** Kubeconfigs of all clusters, keyed by name; secret. */
    public readonly kubeconfigs: pulumi.Output<Record<string, string>>;
    /**
     * On `up`, settles once every federated IrisCluster runs on its members (rejecting with the
     * first failure) with the members each runs on, keyed `namespace/name`; resolved at once, empty,
     * in preview or when not waiting. The program awaits it.
     */
    public readonly running: Promise<Record<string, string[]>>;

    constructor(name: string, args: FleetArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:Fleet", name, {}, opts);
        const plan = args.plan;
        const cfg = plan.config;
        this.hostName = plan.host.name;

        // 1. Clusters.
        for (const c of plan.clusters) this.clusters[c.name] = createFleetCluster(c, cfg, { parent: this });
        // 2. Add-ons on every cluster.
        const pullCredentials = cfg.iko.imagePullSecretFromConfig
            ? (args.secretValues[cfg.iko.imagePullSecretFromConfig] as pulumi.Output<unknown> as pulumi.Output<RegistryCredentials>)
            : undefined;
        // Cilium ClusterMesh between the kind members of IRIS mirrors, under one CA.
        const meshCa = Object.keys(plan.clusterMesh).length > 0 ? new ClusterMeshCa("cluster-mesh-ca", { parent: this }) : undefined;
        const meshValues = meshCa ? fleetClusterMeshValues(plan, { cert: meshCa.caCrt, key: meshCa.caKey }) : {};
        for (const cluster of Object.values(this.clusters)) installAddOns(cluster, cfg, pullCredentials, this, meshValues[cluster.config.name]);

        // 3. Karmada on the host (or an existing control plane).
        const hostCluster = this.clusters[plan.host.name];
        this.karmada = this.karmadaControlPlane(hostCluster, plan);
        const onKarmada: KarmadaContext = {
            provider: this.karmada.provider,
            lifecycle: plan.karmada.source === "chart" ? hostCluster.lifecycle : undefined,
            kubeconfig: this.karmada.kubeconfig,
        };

        // 4. Join every other cluster: Push by default, Pull where the config says so.
        this.joinMembers(plan, args, onKarmada);

        // 5. The IrisCluster CRD, copied from the host where IKO created it, and its interpreter.
        this.crdMirror = this.mirrorIrisCrd(hostCluster, cfg.iko.crdWaitSeconds, args.crdReader, onKarmada);
        const interpreter = new IrisClusterInterpreter("iris-interpreter", { karmada: onKarmada }, { parent: this });

        // 6. Failover taints, 7. namespaces, 8. what follows the IrisClusters (config/followers), 9. federated IrisClusters.
        this.failover = this.failoverTaints(plan, onKarmada);
        const namespaces = this.namespaces(plan, onKarmada);
        const followers = declareFollowers({
            plan,
            karmada: onKarmada,
            secretValues: args.secretValues,
            // After every member's join (an object in `default` has no namespace to wait for), removed before it.
            after: [...namespaces, ...Object.values(this.members).flatMap((m) => m.propagatesAfter)],
            failover: this.failover,
            parent: this,
        });
        this.followers = followers.components;
        this.secretSync = followers.components.secrets;
        this.configMaps = followers.components["config-maps"];
        this.manifests = followers.components.manifests;
        // What Karmada sends with an IrisCluster exists before it, so the first schedule sends it along.
        const prerequisites = [
            this.crdMirror,
            interpreter,
            ...Object.values(this.members).map((m) => m.cluster),
            ...namespaces,
            ...followers.prerequisites,
            ...(this.failover ? [this.failover] : []),
        ];
        for (const ic of plan.irisClusters)
            this.irisClusters[ic.id] = ic.mirror
                ? this.federateMirror({ ...ic, mirror: ic.mirror }, plan, onKarmada, prerequisites, args.runningWaiter)
                : this.federate(ic, plan, onKarmada, prerequisites, args.runningWaiter);
        this.running = Promise.all(Object.entries(this.irisClusters).map(async ([id, f]) => [id, f.running ? await f.running : undefined] as const)).then(
            (runs) => Object.fromEntries(runs.filter((r): r is readonly [string, string[]] => r[1] !== undefined)),
        );

        this.clusterSummaries = Object.values(this.clusters).map((c) => ({
            name: c.config.name,
            provider: c.config.provider,
            karmadaHost: c.config.karmadaHost,
            apiEndpoint: c.apiEndpoint,
        }));
        this.kubeconfigs = pulumi.secret(
            pulumi.all(Object.fromEntries(Object.values(this.clusters).map((c) => [c.config.name, c.kubeconfig]))) as pulumi.Output<Record<string, string>>,
        );
        this.registerOutputs({ clusterSummaries: this.clusterSummaries, kubeconfigs: this.kubeconfigs });
    }

    /** Karmada's chart on the host cluster, or a control plane that already runs. */
    private karmadaControlPlane(hostCluster: FleetCluster, plan: FleetPlan): KarmadaControlPlane {
        const installs = plan.karmada.source === "chart";
        // Pull members with private nodes: their agents dial Karmada from these addresses.
        const pullEgress = plan.members.flatMap((m) => {
            const egress = this.clusters[m.name].egressAddresses;
            return m.syncMode === "Pull" && egress ? [egress] : [];
        });
        return new KarmadaControlPlane(
            "karmada",
            controlPlaneArgs(plan, hostCluster, { pullEgress, parent: this }),
            // Karmada's pods need the host's CNI; an installed Karmada goes with its host cluster.
            { parent: this, deletedWith: installs ? hostCluster.lifecycle : undefined, dependsOn: hostCluster.cilium ? [hostCluster.cilium] : [] },
        );
    }

    /** The IrisCluster CRD, copied into Karmada from the host, where IKO created it. */
    private mirrorIrisCrd(hostCluster: FleetCluster, timeoutSeconds: number, crdReader: CrdReader | undefined, onKarmada: KarmadaContext): CrdMirror {
        return new CrdMirror(
            "iris-crd",
            {
                crdName: IRIS_CRD,
                identity: { kind: IrisCluster.kind, plural: "irisclusters", scope: "Namespaced" },
                sourceKubeconfig: hostCluster.kubeconfig,
                sourceName: hostCluster.config.name,
                sourceReady: hostCluster.irisOperator!.release.status,
                timeoutSeconds,
                targetProvider: onKarmada.provider,
                reader: crdReader,
                targetLifecycle: onKarmada.lifecycle,
            },
            { parent: this },
        );
    }

    /** Joins every cluster but the host, once IKO is on it. */
    private joinMembers(plan: FleetPlan, args: FleetArgs, karmada: KarmadaContext): void {
        const narrowAfter = removedObjectsCleanup(plan, this.karmada.kubeconfig, args.karmadaWorks, this);
        const target = {
            ...karmada,
            kubeconfig: this.karmada.kubeconfig,
            clusterNamespace: this.karmada.clusterNamespace,
            existingVersion: args.existingKarmadaVersion,
            agentReadyWaiter: args.agentReadyWaiter,
        };
        const gate = syncModeGate(plan.config, this.karmada.kubeconfig, args.liveMembers, this);
        for (const m of plan.members) {
            const cluster = this.clusters[m.name];
            const joining = { ...cluster, joinAfter: cluster.irisOperator ? [cluster.irisOperator] : [] };
            this.members[m.name] = joinMember(joining, plan, { ...target, gate }, narrowAfter, { parent: this });
        }
    }

    /**
     * The ClusterTaintPolicy for the members failover placements name, once they are joined; none
     * without failover placement, so that other fleets keep Karmada's plain behaviour.
     */
    private failoverTaints(plan: FleetPlan, karmada: KarmadaContext): KarmadaFailover | undefined {
        const members = plan.failoverMembers;
        if (!plan.failover) return undefined;
        return new KarmadaFailover("failover", { members, karmada }, { parent: this, dependsOn: members.map((m) => this.members[m].cluster) });
    }

    /** Namespaces the workloads and Secrets live in, made in Karmada, which propagates them to every member. */
    private namespaces(plan: FleetPlan, karmada: KarmadaContext): k8s.core.v1.Namespace[] {
        return plan.namespaces.map(
            (ns) =>
                new k8s.core.v1.Namespace(
                    `karmada-ns-${ns}`,
                    // Adopt a namespace that already exists on a member instead of reporting a conflict.
                    { metadata: { name: ns, annotations: { "work.karmada.io/conflict-resolution": "overwrite" } } },
                    // After Karmada's rights in it on every member; removed before they are narrowed.
                    {
                        parent: this,
                        provider: karmada.provider,
                        deletedWith: karmada.lifecycle,
                        dependsOn: Object.values(this.members).flatMap((m) => m.propagatesAfter),
                    },
                ),
        );
    }

    /** One federated IrisCluster, after everything it needs and IKO on its targets; destroyed before the joins. */
    private federate(
        ic: IrisClusterPlan,
        plan: FleetPlan,
        karmada: KarmadaContext,
        prerequisites: pulumi.Resource[],
        runningWaiter?: RunningWaiter,
    ): FederatedIrisCluster {
        const targetOperators = ic.targets.map((t) => this.clusters[t].irisOperator).filter((o): o is IrisOperator => o !== undefined);
        return new FederatedIrisCluster(
            ic.resourceName,
            {
                config: ic.config,
                karmada,
                targetClusters: ic.targets,
                waitForRunning: runningWaiter,
                tolerateFailoverTaint: plan.failover,
            },
            { parent: this, dependsOn: [...prerequisites, ...targetOperators] },
        );
    }

    /** An IRIS mirror across its members: each member's IrisCluster pinned, reachable from the others. */
    private federateMirror(
        ic: IrisClusterPlan & { mirror: MirrorPlan },
        plan: FleetPlan,
        karmada: KarmadaContext,
        prerequisites: pulumi.Resource[],
        runningWaiter?: RunningWaiter,
    ): IrisMirror {
        const reserve = (member: string, addressName: string) => {
            const cluster = this.clusters[member];
            const reserved = reserveInternalAddress(cluster.config as GkeClusterConfig, cluster.gcpProvider, addressName, this);
            return { ip: reserved.ip, annotations: internalLoadBalancerAnnotations(reserved.name) };
        };
        const operators = ic.targets.map((t) => this.clusters[t].irisOperator).filter((o): o is IrisOperator => o !== undefined);
        return new IrisMirror(
            ic.resourceName,
            {
                irisCluster: ic,
                endpoints: mirrorEndpoints(ic.mirror, ic.config.namespace, reserve),
                configSource: plan.configMaps.find((c) => c.config.name === ic.config.configSource && c.config.namespace === ic.config.namespace)?.config,
                karmada,
                waitForRunning: runningWaiter,
                tolerateFailoverTaint: plan.failover,
            },
            { parent: this, dependsOn: [...prerequisites, ...operators] },
        );
    }
}
