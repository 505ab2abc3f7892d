// LoopbackFleet: a host cluster, N member clusters and a Karmada control plane as real processes
// on 127.0.0.1 (no nodes, no containers), for the cluster tests.
//
//   etcd (one, --unsafe-no-fsync)                      shared, one --etcd-prefix per API server
//   host, member<i>:  kube-apiserver + kube-controller-manager (serviceaccount-token, serviceaccount,
//                     namespace, garbagecollector): SA-token Secrets get populated
//   karmada:          kube-apiserver (front-proxy flags) + kube-controller-manager (namespace,
//                     garbagecollector), Karmada CRD bases, namespaces, karmada-aggregated-apiserver
//                     behind APIService v1alpha1.cluster.karmada.io, karmada-webhook with webhook
//                     configurations, karmada-controller-manager, karmada-scheduler; with the flags
//                     Kamino sets through Karmada's chart for failover (components/karmada/failover/failover.ts)
//
// Everything lives in one temp dir (certificates, kubeconfigs, etcd data, one log per process) that
// stop() removes unless KAMINO_KEEP_HARNESS=1. A start() that fails part-way stops what it started.
//
// This file holds the LoopbackFleet class: its public API, the order of start() and stop(), and the
// timing marks. The parts: plan.ts (per-cluster directories, PKI, ports, kubeconfigs),
// kube-processes.ts (etcd, kube-apiserver, kube-controller-manager: flags and readiness) and
// karmada-control-plane.ts (the Karmada start-up steps after its API server is ready).
import * as fs from "fs";
import * as path from "path";
import { Binaries, findBinaries, REPO_ROOT } from "./binaries";
import {
    applyNamespacesAndCrds,
    KARMADA_APISERVER_ARGS,
    KARMADA_APISERVER_ENV,
    karmadaControllerManagerArgs,
    recordControllerManager,
    routeToExtensionServers,
    startControllers,
    startExtensionServers,
    waitForControllers,
    waitForExtensionServers,
} from "./karmada-control-plane";
import { CrdObject, loadCrds } from "./karmada-objects";
import { ApiServer, KubeProcesses, MEMBER_CONTROLLERS } from "./kube-processes";
import { ClusterPlan, ExtensionPorts, KarmadaPki, planClusters } from "./plan";
import { LoadBalancer } from "./load-balancer";
import { LOOPBACK, PortAllocator } from "./ports";
import { ManagedProcess, ProcessSupervisor } from "./processes";
import { waitFor } from "./wait";
import { runTempDir } from "../../support/process-reaper";

export type { ApiServer } from "./kube-processes";

/** Where Karmada's CRD bases are: `../shared` beside the repository, as in CI. */
export const DEFAULT_KARMADA_CRD_DIR = path.resolve(REPO_ROOT, "../shared/schemas/karmada/crds-v1.15.9");

export interface LoopbackFleetOptions {
    /** Member clusters: a count (named member1..N) or names (DNS labels). Default 1. */
    members?: number | string[];
    /** Name of the host cluster. Default "host". */
    hostName?: string;
    /** Parent of the temp dir. Default os.tmpdir(). */
    tmpRoot?: string;
    /** Keep the temp dir after stop(). Default: KAMINO_KEEP_HARNESS=1. */
    keep?: boolean;
    /** Binaries; default: found through toolchain/build.sh --print-path cluster. */
    binaries?: Binaries;
    /** Dir of Karmada CRD YAML files. Default: KAMINO_KARMADA_CRDS or DEFAULT_KARMADA_CRD_DIR. */
    karmadaCrdDir?: string;
    /** Create namespace `karmada-cluster` in the Karmada API, as Karmada's chart does (Kamino relies on it). Default true. */
    karmadaClusterNamespace?: boolean;
    /** Multiplies every timeout. Default: KAMINO_HARNESS_TIMEOUT_SCALE or 1. */
    timeoutScale?: number;
    /** klog verbosity of the Kubernetes and Karmada processes. Default: KAMINO_HARNESS_V or 1. */
    verbosity?: number;
    /** Progress lines (also written to harness.log in the temp dir). */
    log?: (line: string) => void;
    /** More addresses the Karmada API's certificate names, e.g. a real-node network's gateway (test/cluster/nodes). */
    karmadaAddresses?: string[];
}

/** How long one step of start() took. */
export interface Timing {
    step: string;
    ms: number;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?$/;

const envNumber = (name: string): number | undefined => {
    const v = process.env[name];
    if (v === undefined || v === "") return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
    return n;
};

export class LoopbackFleet {
    /** The temp dir (certificates, kubeconfigs, etcd data, logs/). Set by start(). */
    dir = "";
    /** Step durations of the last start(). */
    readonly timings: Timing[] = [];

    private readonly memberNames: string[];
    private readonly hostName: string;
    private readonly keep: boolean;
    private readonly scale: number;
    private readonly verbosity: number;
    private readonly crdDir: string;
    private supervisor: ProcessSupervisor | undefined;
    private kube: KubeProcesses | undefined;
    private servers = new Map<string, ApiServer>();
    /** API servers hung by hangApiServer(): resumed before stop(), which a stopped process would not heed. */
    private readonly hung = new Set<string>();
    private karmadaProcs: ManagedProcess[] = [];
    private loadBalancer?: LoadBalancer;
    /** karmada-controller-manager's command line, as started. */
    private controllerManagerCommand: string[] = [];
    private etcd: ManagedProcess | undefined;
    private state: "new" | "starting" | "running" | "stopped" = "new";

    constructor(private readonly opts: LoopbackFleetOptions = {}) {
        const m = opts.members ?? 1;
        this.memberNames = typeof m === "number" ? Array.from({ length: m }, (_, i) => `member${i + 1}`) : [...m];
        this.hostName = opts.hostName ?? "host";
        if (this.memberNames.length < 1) throw new Error("LoopbackFleet needs at least one member");
        const all = [this.hostName, ...this.memberNames, "karmada"];
        for (const n of all) if (!DNS_LABEL.test(n)) throw new Error(`cluster name ${JSON.stringify(n)} is not a DNS-1123 label of at most 48 characters`);
        if (new Set(all).size !== all.length) throw new Error(`cluster names must be unique (and not "karmada"): ${all.join(", ")}`);
        this.keep = opts.keep ?? process.env.KAMINO_KEEP_HARNESS === "1";
        this.scale = opts.timeoutScale ?? envNumber("KAMINO_HARNESS_TIMEOUT_SCALE") ?? 1;
        this.verbosity = opts.verbosity ?? envNumber("KAMINO_HARNESS_V") ?? 1;
        this.crdDir = opts.karmadaCrdDir ?? process.env.KAMINO_KARMADA_CRDS ?? DEFAULT_KARMADA_CRD_DIR;
    }

    // ------------------------------------------------------------------ public API

    /** The host cluster's API server. */
    get host(): ApiServer {
        return this.server(this.hostName);
    }

    /** The member clusters' API servers, in the order given. */
    get members(): ApiServer[] {
        return this.memberNames.map((n) => this.server(n));
    }

    /** The Karmada API server. */
    get karmada(): ApiServer {
        return this.server("karmada");
    }

    get hostKubeconfig(): string {
        return this.host.kubeconfig;
    }

    get karmadaKubeconfig(): string {
        return this.karmada.kubeconfig;
    }

    /** Member name -> admin kubeconfig path. */
    get memberKubeconfigs(): Record<string, string> {
        return Object.fromEntries(this.members.map((m) => [m.name, m.kubeconfig]));
    }

    /** Every process started so far. */
    get processes(): readonly ManagedProcess[] {
        return this.supervisor?.processes ?? [];
    }

    /** The load balancer in front of the Karmada API (`kamino:karmada.endpoint` = its `endpoint`). */
    get karmadaLoadBalancer(): LoadBalancer {
        if (!this.loadBalancer) throw new Error("the fleet is not started");
        return this.loadBalancer;
    }

    /** karmada-controller-manager's command line, as started (see recordControllerManager). */
    get controllerManagerArgs(): readonly string[] {
        return this.controllerManagerCommand;
    }

    /** Stops one cluster's API server (host, member or "karmada"): clients get connection refused until startApiServer(). */
    async stopApiServer(name: string): Promise<void> {
        await this.supervisor!.stopOne(this.server(name).apiserver);
    }

    /** Starts an API server stopped by stopApiServer() again, with the same flags and data, and waits until it is ready. */
    async startApiServer(name: string): Promise<void> {
        const s = this.server(name);
        s.apiserver = this.supervisor!.restart(s.apiserver);
        await this.kube!.waitForReadyz(s);
    }

    /**
     * Hangs one cluster's API server (SIGSTOP) until resumeApiServer(): the kernel still accepts
     * connections, but nothing is answered, as for a frozen process or a link that drops packets;
     * clients wait for their own timeouts instead of being refused. It answers at once when resumed.
     */
    hangApiServer(name: string): void {
        process.kill(this.server(name).apiserver.pid, "SIGSTOP");
        this.hung.add(name);
    }

    /** Lets an API server hung by hangApiServer() answer again (SIGCONT; nothing if it has exited). */
    resumeApiServer(name: string): void {
        const p = this.server(name).apiserver;
        if (p.exit === undefined) process.kill(p.pid, "SIGCONT");
        this.hung.delete(name);
    }

    /** Hangs one cluster's API server for `ms`: a stop and start cannot blink this briefly (a restart takes seconds). */
    async freezeApiServer(name: string, ms: number): Promise<void> {
        this.hangApiServer(name);
        try {
            await new Promise((r) => setTimeout(r, ms));
        } finally {
            this.resumeApiServer(name);
        }
    }

    /** Throws, with log tails, if any process of the fleet has exited. */
    assertRunning(): void {
        const dead = this.supervisor?.crashed() ?? [];
        if (dead.length) {
            throw new Error(`fleet processes died: ${dead.map((p) => `${p.describe()}\n${p.tail(25)}`).join("\n")}`);
        }
    }

    /** `waitFor` that fails early, with log tails, when any fleet process dies. */
    waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 500): Promise<T> {
        return waitFor(what, check, { timeoutMs: timeoutMs * this.scale, intervalMs, watch: [...this.processes] });
    }

    /** Starts everything and waits until it is ready; on failure stops what it started and throws. */
    async start(): Promise<this> {
        if (this.state !== "new") throw new Error(`LoopbackFleet.start() called in state ${this.state}`);
        this.state = "starting";
        try {
            await this.startAll();
            this.state = "running";
            return this;
        } catch (e) {
            const err = e as Error;
            const dir = this.dir;
            await this.stop();
            err.message += this.keep ? `\n(harness dir kept: ${dir})` : "\n(harness dir removed; set KAMINO_KEEP_HARNESS=1 to keep logs and certificates)";
            throw err;
        }
    }

    /** Stops every process (controllers, then API servers, then etcd) and removes the temp dir unless kept. Never throws. */
    async stop(): Promise<void> {
        if (this.state === "stopped") return;
        this.state = "stopped";
        const t0 = Date.now();
        for (const name of [...this.hung]) this.resumeApiServer(name);
        for (const s of this.servers.values()) s.client.close();
        await this.loadBalancer?.stop();
        if (this.supervisor) {
            const kcms = [...this.servers.values()].map((s) => s.controllerManager).filter((p): p is ManagedProcess => !!p);
            const apiservers = [...this.servers.values()].map((s) => s.apiserver);
            // Short grace: nothing in the temp dir needs to survive.
            await this.supervisor.stopAll([this.karmadaProcs, kcms, apiservers, this.etcd ? [this.etcd] : []], 5_000);
        }
        this.note(`stopped in ${Date.now() - t0} ms`);
        if (this.dir) {
            if (this.keep) this.note(`kept ${this.dir}`);
            else {
                try {
                    fs.rmSync(this.dir, { recursive: true, force: true });
                } catch (e) {
                    this.opts.log?.(`could not remove ${this.dir}: ${(e as Error).message}`);
                }
            }
        }
    }

    // ------------------------------------------------------------------ start-up

    private server(name: string): ApiServer {
        const s = this.servers.get(name);
        if (!s) throw new Error(`API server ${name} is not running (LoopbackFleet state: ${this.state})`);
        return s;
    }

    private note(line: string): void {
        const msg = `[kamino-harness +${((Date.now() - this.t0) / 1000).toFixed(1)}s] ${line}`;
        if (this.dir && fs.existsSync(this.dir)) fs.appendFileSync(path.join(this.dir, "harness.log"), msg + "\n");
        this.opts.log?.(msg);
    }

    private t0 = Date.now();

    private mark(step: string, ms: number): void {
        this.timings.push({ step, ms });
        this.note(`${step}: ${ms} ms`);
    }

    private async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
        const t = Date.now();
        const out = await fn();
        this.mark(name, Date.now() - t);
        return out;
    }

    /** Registers an API server as it starts, so that stop() closes its client and stops it. */
    private register(s: ApiServer): ApiServer {
        this.servers.set(s.name, s);
        return s;
    }

    private async startAll(): Promise<void> {
        this.t0 = Date.now();
        const bins = this.opts.binaries ?? findBinaries();
        const crds = loadCrds(this.crdDir);
        this.dir = runTempDir("kamino-harness-", this.opts.tmpRoot);
        this.supervisor = new ProcessSupervisor(path.join(this.dir, "logs"));
        const kube = (this.kube = new KubeProcesses(this.supervisor, bins, this.verbosity, this.scale));
        const ports = new PortAllocator();
        this.note(`dir ${this.dir}; members ${this.memberNames.join(",")}`);

        // Certificates and ports for everything, up front.
        const [plans, karmadaPki] = await this.step("certificates", () =>
            planClusters(this.dir, this.hostName, this.memberNames, ports, this.opts.karmadaAddresses),
        );

        const [etcdClient, etcdPeer] = await ports.many(2);
        const etcdUrl = `http://${LOOPBACK}:${etcdClient}`;
        await this.step("etcd", () => {
            this.etcd = kube.startEtcd(this.dir, etcdClient, etcdPeer);
            return kube.waitForEtcd(this.etcd, etcdClient);
        });

        const ext = { agg: await ports.next(), webhook: await ports.next(), kcmHealth: await ports.next(), schedHealth: await ports.next() };

        await this.step("all ready", () =>
            Promise.all(
                plans.map((p) =>
                    p.role === "karmada"
                        ? this.startKarmada(kube, p, karmadaPki, etcdUrl, ext, crds)
                        : this.startCluster(kube, p, etcdUrl).then(() => kube.waitForServiceAccounts(this.server(p.name))),
                ),
            ),
        );
        await this.step("host: karmada-controller-manager's Deployment record", () => this.recordControllerManager());
        this.mark("total start", Date.now() - this.t0);
    }

    /**
     * Karmada's chart runs karmada-controller-manager as a Deployment in karmada-system on the host,
     * where Kamino reads its flags for an existing Karmada (components/checks/failover-readiness.ts). The
     * host has no nodes nor Deployment controller: this Deployment only records the command line of
     * the process that really runs, so that the check reads the flags the fleet actually has. A test
     * may record another command line, to play a Karmada whose owner left a flag out.
     */
    async recordControllerManager(command: readonly string[] = this.controllerManagerCommand): Promise<void> {
        await recordControllerManager(this.host.client, command);
    }

    /** Host or member: API server, then controller manager. */
    private async startCluster(kube: KubeProcesses, p: ClusterPlan, etcdUrl: string): Promise<void> {
        const t = Date.now();
        const s = this.register(kube.startApiserver(p, etcdUrl));
        await kube.waitForReadyz(s);
        const tApi = Date.now();
        kube.startControllerManager(p, s, MEMBER_CONTROLLERS);
        await kube.waitForControllerManager(p, s);
        this.mark(`${p.name}: kube-apiserver ready`, tApi - t);
        this.mark(`${p.name}: kube-controller-manager ready`, Date.now() - tApi);
    }

    /** The Karmada API server, then the steps of karmada-control-plane.ts; every process is registered as it starts. */
    private async startKarmada(kube: KubeProcesses, p: ClusterPlan, kp: KarmadaPki, etcdUrl: string, ports: ExtensionPorts, crds: CrdObject[]): Promise<void> {
        const s = await this.step("karmada: kube-apiserver ready", async () => {
            const s = this.register(kube.startApiserver(p, etcdUrl, KARMADA_APISERVER_ARGS, KARMADA_APISERVER_ENV));
            await kube.waitForReadyz(s);
            // Its port number on the second loopback address: free there as it is on 127.0.0.1.
            this.loadBalancer = await new LoadBalancer(p.port, p.port).start();
            return s;
        });

        // In parallel: namespaces + CRDs; the aggregated API server and the webhook.
        const [, { agg }] = await Promise.all([
            this.step(`karmada: namespaces + ${crds.length} CRDs established`, () =>
                applyNamespacesAndCrds(kube, s, crds, this.opts.karmadaClusterNamespace ?? true),
            ),
            this.step("karmada: aggregated-apiserver + webhook ready", async () => {
                const servers = startExtensionServers(kube, p, kp, etcdUrl, ports);
                this.karmadaProcs.push(servers.agg, servers.webhook);
                await waitForExtensionServers(kube, p, s, ports, servers);
                return servers;
            }),
        ]);

        await this.step("karmada: cluster.karmada.io served through the aggregator", () => routeToExtensionServers(kube, s, ports, agg));

        // The controllers last: their informers need the CRDs and the Cluster API. The garbage
        // collector of kube-controller-manager only re-reads discovery every 30 s, so started
        // earlier it would not collect ResourceBindings (nor Secrets owned by Clusters) for up to 30 s.
        await this.step("karmada: kube-controller-manager, karmada-controller-manager, karmada-scheduler ready", async () => {
            const cmArgs = (this.controllerManagerCommand = karmadaControllerManagerArgs(kube, p, ports));
            const controllers = startControllers(kube, p, s, ports, cmArgs);
            this.karmadaProcs.push(controllers.cm, controllers.sched);
            await waitForControllers(kube, p, s, ports, controllers);
        });
    }
}
