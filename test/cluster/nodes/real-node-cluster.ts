// A Kubernetes cluster whose pods run for real: etcd, kube-apiserver, kube-controller-manager (every
// controller) and kube-scheduler as loopback processes, as the harness runs them, plus real nodes
// (real-node.ts) on a NodeNetwork, kube-proxy on each, CoreDNS, and local PersistentVolumes. The
// API server listens on the network's gateway too, where nodes and pods reach it, and on
// 127.0.0.1, where tests and Pulumi do.
import * as fs from "fs";
import * as path from "path";
import { Binaries } from "../harness/binaries";
import { KubeClient, KubeObject, resourcePath } from "../harness/kube-client";
import { ApiServer, KubeProcesses } from "../harness/kube-processes";
import { planCluster, ClusterPlan } from "../harness/plan";
import { LOOPBACK, PortAllocator } from "../harness/ports";
import { ManagedProcess, ProcessSupervisor } from "../harness/processes";
import { waitFor } from "../harness/wait";
import { clusterDnsObjects } from "./cluster-dns";
import { NodeNetwork } from "./node-network";
import { NodeBinaries, RealNode } from "./real-node";

/** The Services' range in every real-node cluster; the first address is `kubernetes`, `.10` the DNS. */
export const SERVICE_CIDR = "10.96.0.0/16";
export const KUBERNETES_SERVICE_IP = "10.96.0.1";
export const DNS_SERVICE_IP = "10.96.0.10";
/** The StorageClass of the local PersistentVolumes the harness makes on each node. */
export const LOCAL_STORAGE_CLASS = "kamino-local";

/** Everything the cluster runs. */
export type RealClusterBinaries = Pick<Binaries, "etcd" | "kube-apiserver" | "kube-controller-manager"> & NodeBinaries & { "kube-scheduler": string };

/** One node to make. */
export interface RealNodeSpec {
    /** Its zone (label `topology.kubernetes.io/zone`). */
    zone?: string;
    /**
     * A control-plane node as kind's beside a worker: labelled `node-role.kubernetes.io/control-plane`
     * and tainted NoSchedule, so workloads go to the workers (its NodePorts still answer).
     */
    controlPlane?: boolean;
    /** Local PersistentVolumes on it (default 1). */
    volumes?: number;
}

export interface RealNodeClusterOptions {
    name: string;
    nodes: RealNodeSpec[];
    network: NodeNetwork;
    /** Directory of the cluster (its plan, nodes and logs). */
    root: string;
    bins: RealClusterBinaries;
    /** Image archives to import into every node (images.ts). */
    images: string[];
    ports: PortAllocator;
    /** More kube-apiserver flags, after the harness's. */
    apiserverArgs?: string[];
    /**
     * Admit critical-priority pods only where a ResourceQuota allows them, as GKE does
     * (ResourceQuota's `limitedResources`); kube-system gets such a quota, as on GKE.
     */
    limitCriticalPriority?: boolean;
    /** Multiplies every timeout. */
    timeoutScale?: number;
}

/** The label and taint key of a control-plane node, as kubeadm (and so kind) sets them. */
export const CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane";

export class RealNodeCluster {
    readonly supervisor: ProcessSupervisor;
    readonly nodes: RealNode[] = [];
    plan!: ClusterPlan;
    api!: ApiServer;
    private readonly kube: KubeProcesses;
    private etcd?: ManagedProcess;

    constructor(readonly opts: RealNodeClusterOptions) {
        this.supervisor = new ProcessSupervisor(path.join(opts.root, "logs"));
        this.kube = new KubeProcesses(this.supervisor, opts.bins as unknown as Binaries, 1, opts.timeoutScale ?? 1);
    }

    get client(): KubeClient {
        return this.api.client;
    }

    /** Admin kubeconfig (https://127.0.0.1:<port>). */
    get kubeconfig(): string {
        return this.plan.kubeconfig;
    }

    /** The API server's URL on the network, where pods of every cluster reach it. */
    get networkServer(): string {
        return `https://${this.opts.network.gateway}:${this.plan.port}`;
    }

    /**
     * The control plane, then the nodes (in parallel), then DNS and storage; resolves when all are
     * ready. A cluster of no nodes is its API server alone, as a loopback fleet's member, but reached
     * by pods on the network at the gateway, as a kind cluster's API is on the `kind` network.
     */
    async start(): Promise<void> {
        const o = this.opts;
        this.plan = await planCluster(o.root, o.name, "host", o.ports, [o.network.gateway, KUBERNETES_SERVICE_IP]);
        await this.startControlPlane();
        if (o.nodes.length === 0) return;
        const nodes = o.nodes.map((spec, i) => this.addNode(spec, i));
        await Promise.all(nodes.map((n) => this.startNode(n)));
        await this.waitForNodesReady();
        // The kubelet may not set a node-role label itself (kubelet's --node-labels refuses it): as kubeadm does, the API sets it.
        for (const n of this.nodes.filter((_, i) => o.nodes[i].controlPlane)) {
            await this.client.mergePatch(resourcePath("v1", "nodes", { name: n.name }), { metadata: { labels: { [CONTROL_PLANE_ROLE]: "" } } });
        }
        if (o.limitCriticalPriority) await this.applyAll([criticalPodsQuota("kube-system", "gcp-critical-pods")]);
        // One replica a node that takes pods (a control-plane node is tainted NoSchedule), two at most.
        await this.applyAll(clusterDnsObjects(DNS_SERVICE_IP, o.nodes.filter((n) => !n.controlPlane).length));
        await this.makeLocalVolumes();
        await this.waitForDeploymentReady("kube-system", "coredns");
    }

    private async startControlPlane(): Promise<void> {
        const [clientPort, peerPort, schedPort] = await this.opts.ports.many(3);
        this.etcd = this.kube.startEtcd(this.plan.dir, clientPort, peerPort);
        await this.kube.waitForEtcd(this.etcd, clientPort);
        const g = this.opts.network.gateway;
        this.api = this.kube.startApiserver(this.plan, `http://${LOOPBACK}:${clientPort}`, [
            // Nodes and pods dial the gateway; tests and Pulumi 127.0.0.1.
            "--bind-address=0.0.0.0",
            `--advertise-address=${g}`,
            "--endpoint-reconciler-type=lease",
            `--service-cluster-ip-range=${SERVICE_CIDR}`,
            "--authorization-mode=Node,RBAC",
            `--kubelet-client-certificate=${this.plan.pki.admin.cert}`,
            `--kubelet-client-key=${this.plan.pki.admin.key}`,
            "--kubelet-preferred-address-types=InternalIP",
            ...(this.opts.limitCriticalPriority ? [`--admission-control-config-file=${this.writeAdmissionConfig()}`] : []),
            ...(this.opts.apiserverArgs ?? []),
        ]);
        await this.kube.waitForReadyz(this.api);
        this.kube.startControllerManager(this.plan, this.api, "*", [
            "--cluster-cidr=10.244.0.0/16",
            `--service-cluster-ip-range=${SERVICE_CIDR}`,
            "--node-monitor-grace-period=20s",
        ]);
        this.supervisor.start({
            name: `${this.plan.name}-kube-scheduler`,
            command: this.opts.bins["kube-scheduler"],
            args: [`--kubeconfig=${this.plan.kubeconfig}`, "--leader-elect=false", `--bind-address=${LOOPBACK}`, `--secure-port=${schedPort}`, "--v=1"],
        });
        await this.kube.waitForControllerManager(this.plan, this.api);
        await this.kube.waitForServiceAccounts(this.api);
    }

    /** The admission configuration that limits critical priority to namespaces with a quota for it. */
    private writeAdmissionConfig(): string {
        const file = path.join(this.plan.dir, "admission.yaml");
        fs.writeFileSync(file, CRITICAL_PRIORITY_ADMISSION);
        return file;
    }

    private addNode(spec: RealNodeSpec, i: number): RealNode {
        const name = i === 0 ? `${this.opts.name}-control-plane` : `${this.opts.name}-worker${i === 1 ? "" : i}`;
        const podCidr = `10.244.${i}.0/24`;
        const a = this.opts.network.attach(this.opts.name, `n${i}`, podCidr);
        const node = new RealNode(
            {
                name,
                dir: path.join(this.opts.root, "nodes", name),
                ip: a.ip,
                podCidr,
                serviceCidr: SERVICE_CIDR,
                dnsIp: DNS_SERVICE_IP,
                cgroupRoot: `/${this.opts.network.bridge}/${name}`,
                labels: spec.zone ? { "topology.kubernetes.io/zone": spec.zone } : {},
                taints: spec.controlPlane ? [`${CONTROL_PLANE_ROLE}:NoSchedule`] : [],
            },
            a.netns,
            this.opts.bins,
            this.supervisor,
            a.link,
        );
        this.nodes.push(node);
        return node;
    }

    private async startNode(node: RealNode): Promise<void> {
        await node.prepare({ server: `https://${this.opts.network.gateway}:${this.plan.port}`, ca: this.plan.pki.ca });
        await node.startRuntime(this.kube.ms(60));
        await node.importImages(this.opts.images);
        node.startKubernetes();
    }

    private async waitForNodesReady(): Promise<void> {
        type NodeList = { items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string; message?: string }[] } }[] };
        await waitFor(
            `${this.opts.name}: ${this.nodes.length} node(s) Ready`,
            async () => {
                const list = (await this.client.get(resourcePath("v1", "nodes"))) as unknown as NodeList;
                const ready = (n: NodeList["items"][number]) => n.status?.conditions?.find((c) => c.type === "Ready");
                if (list.items.filter((n) => ready(n)?.status === "True").length === this.nodes.length) return true;
                throw new Error(
                    `registered ${list.items.map((n) => `${n.metadata.name}: ${ready(n)?.status ?? "?"} ${ready(n)?.message ?? ""}`).join("; ") || "none"}`,
                );
            },
            // The kubelets' logs say why a node is missing or not Ready.
            { timeoutMs: this.kube.ms(120), intervalMs: 500, watch: this.nodes.flatMap((n) => n.processes.filter((p) => p.name.endsWith("-kubelet"))) },
        );
    }

    /** Server-side applies each object (namespaced ones into their namespace). */
    async applyAll(objects: KubeObject[]): Promise<void> {
        for (const o of objects) await this.client.apply(objectPath(o), o, "kamino-real-nodes");
    }

    /** One local PersistentVolume per requested volume, on its node, in LOCAL_STORAGE_CLASS. */
    private async makeLocalVolumes(): Promise<void> {
        const objects: KubeObject[] = [
            {
                apiVersion: "storage.k8s.io/v1",
                kind: "StorageClass",
                metadata: { name: LOCAL_STORAGE_CLASS },
                provisioner: "kubernetes.io/no-provisioner",
                volumeBindingMode: "WaitForFirstConsumer",
                reclaimPolicy: "Delete",
            } as KubeObject,
        ];
        this.opts.nodes.forEach((spec, i) => {
            const node = this.nodes[i];
            for (let v = 0; v < (spec.volumes ?? 1); v++) {
                const dir = path.join(node.layout.dir, "volumes", `pv${v}`);
                fs.mkdirSync(dir, { recursive: true });
                objects.push({
                    apiVersion: "v1",
                    kind: "PersistentVolume",
                    metadata: { name: `${node.name}-pv${v}` },
                    spec: {
                        capacity: { storage: "10Gi" },
                        accessModes: ["ReadWriteOnce"],
                        persistentVolumeReclaimPolicy: "Retain",
                        storageClassName: LOCAL_STORAGE_CLASS,
                        local: { path: dir },
                        nodeAffinity: {
                            required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node.name] }] }] },
                        },
                    },
                } as KubeObject);
            }
        });
        await this.applyAll(objects);
    }

    /** Waits until a Deployment's replicas are all available. */
    async waitForDeploymentReady(namespace: string, name: string, timeoutSeconds = 120): Promise<void> {
        await waitFor(
            `${this.opts.name}: Deployment ${namespace}/${name} available`,
            async () => {
                const d = (await this.client.get(resourcePath("apps/v1", "deployments", { namespace, name }))) as
                    { spec?: { replicas?: number }; status?: { availableReplicas?: number } } | undefined;
                return d && (d.status?.availableReplicas ?? 0) >= (d.spec?.replicas ?? 1) ? true : undefined;
            },
            { timeoutMs: this.kube.ms(timeoutSeconds), intervalMs: 500, watch: this.supervisor.processes.slice() },
        );
    }

    /** Stops every process, newest first (kubelets and runtimes before the API server). Never throws. */
    async stop(): Promise<void> {
        this.api?.client.close();
        await this.supervisor.stopAll(
            [this.nodes.flatMap((n) => n.processes.filter((p) => !p.name.endsWith("-containerd"))), this.nodes.flatMap((n) => n.processes)],
            5_000,
        );
    }
}

/** The priority classes GKE limits outside kube-system. */
export const CRITICAL_PRIORITY_CLASSES = ["system-node-critical", "system-cluster-critical"];

/**
 * "Limit Priority Class consumption by default", as Kubernetes documents it (ResourceQuota): a pod of
 * these classes is admitted only in a namespace whose ResourceQuota covers them. GKE runs so.
 */
export const CRITICAL_PRIORITY_ADMISSION = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ResourceQuota
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: ResourceQuotaConfiguration
      limitedResources:
        - resource: pods
          matchScopes:
            - scopeName: PriorityClass
              operator: In
              values: [${CRITICAL_PRIORITY_CLASSES.join(", ")}]
`;

/** A ResourceQuota that lets critical-priority pods into `namespace` (GKE's own in kube-system is named gcp-critical-pods). */
export function criticalPodsQuota(namespace: string, name: string): KubeObject {
    return {
        apiVersion: "v1",
        kind: "ResourceQuota",
        metadata: { name, namespace },
        spec: {
            hard: { pods: "1000000000" },
            scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: CRITICAL_PRIORITY_CLASSES }] },
        },
    } as KubeObject;
}

/** Kinds whose objects have no namespace. */
const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "StorageClass", "PriorityClass", "Node"]);

/** The object's path for a server-side apply: the kind's plural (English rules the built-in kinds follow), its namespace unless cluster-scoped. */
export function objectPath(o: KubeObject): string {
    const kind = o.kind ?? "";
    const lower = kind.toLowerCase();
    const plural = /(s|x|ch|sh)$/.test(lower) ? `${lower}es` : /[^aeiou]y$/.test(lower) ? `${lower.slice(0, -1)}ies` : `${lower}s`;
    return resourcePath(o.apiVersion ?? "v1", plural, {
        namespace: CLUSTER_SCOPED.has(kind) ? undefined : (o.metadata?.namespace ?? "default"),
        name: o.metadata?.name,
    });
}
