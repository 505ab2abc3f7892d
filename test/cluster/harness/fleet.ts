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
//                     Kamino sets through Karmada's chart for failover (components/karmada/failover.ts)
//
// Everything lives in one temp dir (certificates, kubeconfigs, etcd data, one log per process) that
// stop() removes unless KAMINO_KEEP_HARNESS=1. A start() that fails part-way stops what it started.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Binaries, findBinaries, REPO_ROOT } from "./binaries";
import { CaFiles, CertFiles, CertificateFactory, SigningKeyFiles } from "./certs";
import {
    aggregatedApiObjects,
    AGGREGATED_APISERVER_DNS,
    CLUSTER_API_SERVICE,
    CrdObject,
    KARMADA_SYSTEM_NAMESPACE,
    loadCrds,
    systemNamespaces,
    webhookConfigurations,
} from "./karmada-objects";
import { KubeClient, KubeObject, resourcePath } from "./kube-client";
import { writeKubeconfig } from "./kubeconfig";
import { LOOPBACK, PortAllocator } from "./ports";
import { probe } from "./probes";
import { ManagedProcess, ProcessSupervisor } from "./processes";
import { waitFor } from "./wait";
import { KAMINO_FEATURE_GATES } from "../../../components/config";
import { commandArgs, FAILOVER_CONTROLLER_ARGS, FAILOVER_FEATURE_GATES, FAILOVER_WEBHOOK_ARGS, featureGatesArg } from "../../../components/karmada/failover";

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
    /** Binaries; default: found through scripts/toolchain.sh --print-path cluster. */
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
}

/** One API server of the fleet. */
export interface ApiServer {
    name: string;
    role: "host" | "member" | "karmada";
    /** https://127.0.0.1:<port> */
    server: string;
    port: number;
    /** Admin kubeconfig (client certificate in group system:masters). */
    kubeconfig: string;
    /** PEM of the CA that signed the serving certificate (and the admin client certificate). */
    caPem: string;
    /** Key prefix in the shared etcd. */
    etcdPrefix: string;
    /** Admin client (closed by stop()). */
    client: KubeClient;
    apiserver: ManagedProcess;
    controllerManager?: ManagedProcess;
}

/** How long one step of start() took. */
export interface Timing {
    step: string;
    ms: number;
}

interface ClusterPki {
    dir: string;
    ca: CaFiles;
    serving: CertFiles;
    admin: CertFiles;
    sa: SigningKeyFiles;
    /** The aggregation layer's client identity (as kubeadm and kind set up). */
    frontProxyCa: CaFiles;
    frontProxyClient: CertFiles;
}

interface KarmadaPki {
    aggregated: CertFiles;
    webhook: CertFiles;
}

/** What each cluster gets before its processes start. */
interface ClusterPlan {
    name: string;
    role: ApiServer["role"];
    dir: string;
    pki: ClusterPki;
    port: number;
    kcmPort: number;
    kubeconfig: string;
    etcdPrefix: string;
}

const SERVICE_CIDR = "10.0.0.0/24";
const MEMBER_CONTROLLERS = "serviceaccount-token,serviceaccount,namespace,garbagecollector";
const KARMADA_KCM_CONTROLLERS = "namespace,garbagecollector";
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?$/;

const envNumber = (name: string): number | undefined => {
    const v = process.env[name];
    if (v === undefined || v === "") return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
    return n;
};

const read = (f: string) => fs.readFileSync(f, "utf8");

/** Runs `fn` over `items` with at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
    const queue = [...items];
    const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
    });
    await Promise.all(workers);
}

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
    private servers = new Map<string, ApiServer>();
    private karmadaProcs: ManagedProcess[] = [];
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
        await this.waitForReadyz(s);
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
        for (const s of this.servers.values()) s.client.close();
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

    private ms(seconds: number): number {
        return seconds * 1000 * this.scale;
    }

    private async startAll(): Promise<void> {
        this.t0 = Date.now();
        const bins = this.opts.binaries ?? findBinaries();
        const crds = loadCrds(this.crdDir);
        this.dir = fs.mkdtempSync(path.join(this.opts.tmpRoot ?? os.tmpdir(), "kamino-harness-"));
        this.supervisor = new ProcessSupervisor(path.join(this.dir, "logs"));
        const ports = new PortAllocator();
        this.note(`dir ${this.dir}; members ${this.memberNames.join(",")}`);

        // Certificates and ports for everything, up front.
        const clusterNames: [string, ApiServer["role"]][] = [
            [this.hostName, "host"],
            ...this.memberNames.map((n): [string, ApiServer["role"]] => [n, "member"]),
            ["karmada", "karmada"],
        ];
        const [plans, karmadaPki] = await this.step("certificates", async () => {
            const plans = await Promise.all(clusterNames.map(([name, role]) => this.planCluster(name, role, ports)));
            const kp = await this.karmadaPki(plans.find((p) => p.role === "karmada")!);
            return [plans, kp] as const;
        });

        const [etcdClient, etcdPeer] = await ports.many(2);
        const etcdUrl = `http://${LOOPBACK}:${etcdClient}`;
        await this.step("etcd", () => this.startEtcd(bins, etcdClient, etcdPeer));

        const ext = { agg: await ports.next(), webhook: await ports.next(), kcmHealth: await ports.next(), schedHealth: await ports.next() };

        await this.step("all ready", () =>
            Promise.all(
                plans.map((p) =>
                    p.role === "karmada"
                        ? this.startKarmada(bins, p, karmadaPki, etcdUrl, ext, crds)
                        : this.startCluster(bins, p, etcdUrl).then(() => this.waitForServiceAccounts(this.server(p.name))),
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
        const c = this.host.client;
        await c.apply(resourcePath("v1", "namespaces", { name: KARMADA_SYSTEM_NAMESPACE }), { apiVersion: "v1", kind: "Namespace", metadata: { name: KARMADA_SYSTEM_NAMESPACE } });
        const labels = { app: "karmada-controller-manager" };
        await c.apply(resourcePath("apps/v1", "deployments", { namespace: KARMADA_SYSTEM_NAMESPACE, name: "karmada-controller-manager" }), {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "karmada-controller-manager", namespace: KARMADA_SYSTEM_NAMESPACE, labels },
            spec: {
                replicas: 0,
                selector: { matchLabels: labels },
                template: {
                    metadata: { labels },
                    spec: { containers: [{ name: "karmada-controller-manager", image: "karmada/karmada-controller-manager:v1.18.2", command: ["/bin/karmada-controller-manager", ...command] }] },
                },
            },
        } as KubeObject);
    }

    private async planCluster(name: string, role: ApiServer["role"], ports: PortAllocator): Promise<ClusterPlan> {
        const dir = path.join(this.dir, name);
        const certs = new CertificateFactory(path.join(dir, "pki"));
        const [ca, frontProxyCa] = await Promise.all([certs.ca("ca", `kamino-harness-${name}-ca`), certs.ca("front-proxy-ca", `kamino-harness-${name}-front-proxy-ca`)]);
        const [serving, admin, sa, frontProxyClient] = await Promise.all([
            certs.leaf("apiserver", ca, {
                commonName: `kamino-harness-${name}-apiserver`,
                dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"],
                ipAddresses: [LOOPBACK],
                usages: ["serverAuth"],
            }),
            certs.leaf("admin", ca, { commonName: "kamino-admin", organizations: ["system:masters"], usages: ["clientAuth"] }),
            certs.signingKey("sa"),
            certs.leaf("front-proxy-client", frontProxyCa, { commonName: "front-proxy-client", usages: ["clientAuth"] }),
        ]);
        const port = await ports.next();
        const kcmPort = await ports.next();
        const kubeconfig = writeKubeconfig(path.join(dir, "admin.kubeconfig"), {
            name: role === "karmada" ? "karmada-apiserver" : name,
            server: `https://${LOOPBACK}:${port}`,
            caPem: read(ca.cert),
            certPem: read(admin.cert),
            keyPem: read(admin.key),
        });
        return { name, role, dir, pki: { dir: path.join(dir, "pki"), ca, serving, admin, sa, frontProxyCa, frontProxyClient }, port, kcmPort, kubeconfig, etcdPrefix: `/kamino/${name}` };
    }

    private async karmadaPki(plan: ClusterPlan): Promise<KarmadaPki> {
        const certs = new CertificateFactory(plan.pki.dir);
        const [aggregated, webhook] = await Promise.all([
            certs.leaf("aggregated-apiserver", plan.pki.ca, {
                commonName: "karmada-aggregated-apiserver",
                dnsNames: [AGGREGATED_APISERVER_DNS, "localhost"],
                ipAddresses: [LOOPBACK],
                usages: ["serverAuth"],
            }),
            certs.leaf("webhook", plan.pki.ca, {
                commonName: "karmada-webhook",
                dnsNames: [`karmada-webhook.${KARMADA_SYSTEM_NAMESPACE}.svc`, "localhost"],
                ipAddresses: [LOOPBACK],
                usages: ["serverAuth"],
            }),
        ]);
        return { aggregated, webhook };
    }

    private async startEtcd(bins: Binaries, clientPort: number, peerPort: number): Promise<void> {
        const client = `http://${LOOPBACK}:${clientPort}`;
        const peer = `http://${LOOPBACK}:${peerPort}`;
        this.etcd = this.supervisor!.start({
            name: "etcd",
            command: bins.etcd,
            args: [
                "--name=harness",
                `--data-dir=${path.join(this.dir, "etcd")}`,
                `--listen-client-urls=${client}`,
                `--advertise-client-urls=${client}`,
                `--listen-peer-urls=${peer}`,
                `--initial-advertise-peer-urls=${peer}`,
                `--initial-cluster=harness=${peer}`,
                "--unsafe-no-fsync=true",
                "--log-level=warn",
            ],
        });
        await waitFor(
            "etcd /health",
            async () => {
                const body = JSON.parse(await probe(`${client}/health`)) as { health?: string };
                return body.health === "true" ? true : undefined;
            },
            { timeoutMs: this.ms(30), watch: [this.etcd] },
        );
    }

    /** kube-apiserver flags common to every cluster. */
    private apiserverArgs(p: ClusterPlan, etcdUrl: string): string[] {
        return [
            `--etcd-servers=${etcdUrl}`,
            `--etcd-prefix=${p.etcdPrefix}`,
            `--bind-address=${LOOPBACK}`,
            `--advertise-address=${LOOPBACK}`,
            `--secure-port=${p.port}`,
            `--cert-dir=${path.join(p.dir, "apiserver-certs")}`,
            `--tls-cert-file=${p.pki.serving.cert}`,
            `--tls-private-key-file=${p.pki.serving.key}`,
            `--client-ca-file=${p.pki.ca.cert}`,
            "--authorization-mode=RBAC",
            `--service-account-issuer=https://${LOOPBACK}:${p.port}`,
            `--service-account-key-file=${p.pki.sa.pub}`,
            `--service-account-signing-key-file=${p.pki.sa.key}`,
            `--service-cluster-ip-range=${SERVICE_CIDR}`,
            "--allow-privileged=true",
            // The lease reconciler would publish 127.0.0.1 as the `kubernetes` endpoint, which
            // Endpoints validation rejects (loopback); there are no pods to use it anyway.
            "--endpoint-reconciler-type=none",
            // The aggregation layer (front proxy): the API server calls aggregated API servers
            // (karmada-aggregated-apiserver on the Karmada API) with this client certificate, and
            // they and the controller managers trust the request headers signed by this CA.
            `--requestheader-client-ca-file=${p.pki.frontProxyCa.cert}`,
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            `--proxy-client-cert-file=${p.pki.frontProxyClient.cert}`,
            `--proxy-client-key-file=${p.pki.frontProxyClient.key}`,
            `--v=${this.verbosity}`,
        ];
    }

    private startApiserver(bins: Binaries, p: ClusterPlan, etcdUrl: string, extra: string[] = []): ApiServer {
        const apiserver = this.supervisor!.start({ name: `${p.name}-apiserver`, command: bins["kube-apiserver"], args: [...this.apiserverArgs(p, etcdUrl), ...extra] });
        const server: ApiServer = {
            name: p.name,
            role: p.role,
            server: `https://${LOOPBACK}:${p.port}`,
            port: p.port,
            kubeconfig: p.kubeconfig,
            caPem: read(p.pki.ca.cert),
            etcdPrefix: p.etcdPrefix,
            client: KubeClient.fromKubeconfig(p.kubeconfig),
            apiserver,
        };
        this.servers.set(p.name, server);
        return server;
    }

    private async waitForReadyz(s: ApiServer): Promise<void> {
        await waitFor(
            `${s.name} kube-apiserver /readyz`,
            async () => {
                const res = await s.client.request("GET", "/readyz");
                if (res.status === 200) return true;
                throw new Error(`HTTP ${res.status}: ${res.body.split("\n").filter((l) => l.startsWith("[-]")).join(" ") || res.body.slice(0, 200)}`);
            },
            { timeoutMs: this.ms(180), intervalMs: 500, watch: [s.apiserver] },
        );
    }

    private startControllerManager(bins: Binaries, p: ClusterPlan, s: ApiServer, controllers: string): ManagedProcess {
        const kcm = this.supervisor!.start({
            name: `${p.name}-kube-controller-manager`,
            command: bins["kube-controller-manager"],
            args: [
                `--kubeconfig=${p.kubeconfig}`,
                `--authentication-kubeconfig=${p.kubeconfig}`,
                `--authorization-kubeconfig=${p.kubeconfig}`,
                `--bind-address=${LOOPBACK}`,
                `--secure-port=${p.kcmPort}`,
                `--tls-cert-file=${p.pki.serving.cert}`,
                `--tls-private-key-file=${p.pki.serving.key}`,
                "--leader-elect=false",
                `--cluster-name=${p.name}`,
                `--controllers=${controllers}`,
                `--service-account-private-key-file=${p.pki.sa.key}`,
                `--root-ca-file=${p.pki.ca.cert}`,
                `--v=${this.verbosity}`,
            ],
        });
        s.controllerManager = kcm;
        return kcm;
    }

    private async waitForControllerManager(p: ClusterPlan, s: ApiServer): Promise<void> {
        const kcm = s.controllerManager!;
        const tls = { ca: s.caPem, cert: read(p.pki.admin.cert), key: read(p.pki.admin.key) };
        await waitFor(`${p.name} kube-controller-manager /healthz`, () => probe(`https://${LOOPBACK}:${p.kcmPort}/healthz`, tls).then(() => true), {
            timeoutMs: this.ms(120),
            intervalMs: 500,
            watch: [kcm, s.apiserver],
        });
    }

    /** Host or member: API server, then controller manager. */
    private async startCluster(bins: Binaries, p: ClusterPlan, etcdUrl: string): Promise<void> {
        const t = Date.now();
        const s = this.startApiserver(bins, p, etcdUrl);
        await this.waitForReadyz(s);
        const tApi = Date.now();
        this.startControllerManager(bins, p, s, MEMBER_CONTROLLERS);
        await this.waitForControllerManager(p, s);
        this.mark(`${p.name}: kube-apiserver ready`, tApi - t);
        this.mark(`${p.name}: kube-controller-manager ready`, Date.now() - tApi);
    }

    /** The serviceaccount controller has made `default/default`: the controller manager works. */
    private async waitForServiceAccounts(s: ApiServer): Promise<void> {
        await waitFor(
            `${s.name}: ServiceAccount default/default (made by kube-controller-manager)`,
            async () => ((await s.client.get(resourcePath("v1", "serviceaccounts", { namespace: "default", name: "default" }))) ? true : undefined),
            { timeoutMs: this.ms(60), intervalMs: 500, watch: [s.apiserver, s.controllerManager!] },
        );
    }

    private async startKarmada(
        bins: Binaries,
        p: ClusterPlan,
        kp: KarmadaPki,
        etcdUrl: string,
        ports: { agg: number; webhook: number; kcmHealth: number; schedHealth: number },
        crds: CrdObject[],
    ): Promise<void> {
        const t = Date.now();
        // As Karmada's chart: no ServiceAccount admission (no pods) nor PVC protection.
        const s = this.startApiserver(bins, p, etcdUrl, ["--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount"]);
        await this.waitForReadyz(s);
        this.mark("karmada: kube-apiserver ready", Date.now() - t);
        const kc = p.kubeconfig;
        const v = `--v=${this.verbosity}`;
        const c = s.client;

        // In parallel: namespaces + CRDs; the aggregated API server and the webhook.
        const crdsReady = async () => {
            const t1 = Date.now();
            for (const ns of systemNamespaces(this.opts.karmadaClusterNamespace ?? true)) {
                await c.apply(resourcePath("v1", "namespaces", { name: ns.metadata!.name }), ns);
            }
            await pool(crds, 4, async (crd) => {
                await c.apply(resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: crd.metadata.name }), crd);
            });
            await waitFor(
                `${crds.length} Karmada CRDs Established`,
                async () => {
                    const pending: string[] = [];
                    for (const crd of crds) {
                        const live = await c.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
                            resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: crd.metadata.name }),
                        );
                        if (!live?.status?.conditions?.some((x) => x.type === "Established" && x.status === "True")) pending.push(crd.metadata.name);
                    }
                    if (pending.length) throw new Error(`not Established: ${pending.join(", ")}`);
                    return true;
                },
                { timeoutMs: this.ms(60), intervalMs: 500, watch: [s.apiserver] },
            );
            this.mark(`karmada: namespaces + ${crds.length} CRDs established`, Date.now() - t1);
        };
        const extensionServers = async () => {
            const t1 = Date.now();
            const agg = this.supervisor!.start({
                name: "karmada-aggregated-apiserver",
                command: bins["karmada-aggregated-apiserver"],
                // It stops serving at once on SIGTERM but then does not exit (seen with v1.18.2).
                stopGraceMs: 1_000,
                args: [
                    `--kubeconfig=${kc}`,
                    `--authentication-kubeconfig=${kc}`,
                    `--authorization-kubeconfig=${kc}`,
                    `--etcd-servers=${etcdUrl}`,
                    // Beside the Karmada API's own keys, as in the chart (both use the same etcd and prefix).
                    `--etcd-prefix=${p.etcdPrefix}`,
                    `--bind-address=${LOOPBACK}`,
                    `--secure-port=${ports.agg}`,
                    `--cert-dir=${path.join(p.dir, "aggregated-apiserver-certs")}`,
                    `--tls-cert-file=${kp.aggregated.cert}`,
                    `--tls-private-key-file=${kp.aggregated.key}`,
                    v,
                ],
            });
            const webhook = this.supervisor!.start({
                name: "karmada-webhook",
                command: bins["karmada-webhook"],
                args: [
                    `--kubeconfig=${kc}`,
                    `--bind-address=${LOOPBACK}`,
                    `--secure-port=${ports.webhook}`,
                    `--cert-dir=${p.pki.dir}`,
                    `--tls-cert-file-name=${path.basename(kp.webhook.cert)}`,
                    `--tls-private-key-file-name=${path.basename(kp.webhook.key)}`,
                    "--metrics-bind-address=0",
                    "--health-probe-bind-address=0",
                    // This harness, like karmadactl init, routes ClusterTaintPolicies to the webhook.
                    ...commandArgs(FAILOVER_WEBHOOK_ARGS),
                    v,
                ],
            });
            this.karmadaProcs.push(agg, webhook);
            const tls = { ca: s.caPem, cert: read(p.pki.admin.cert), key: read(p.pki.admin.key) };
            await Promise.all([
                waitFor("karmada-aggregated-apiserver /readyz", () => probe(`https://${LOOPBACK}:${ports.agg}/readyz`, tls).then(() => true), {
                    timeoutMs: this.ms(120),
                    intervalMs: 500,
                    watch: [agg, s.apiserver],
                }),
                waitFor("karmada-webhook /readyz/", () => probe(`https://${LOOPBACK}:${ports.webhook}/readyz/`, tls).then(() => true), {
                    timeoutMs: this.ms(120),
                    intervalMs: 500,
                    watch: [webhook, s.apiserver],
                }),
            ]);
            this.mark("karmada: aggregated-apiserver + webhook ready", Date.now() - t1);
            return { agg, webhook };
        };
        const [, { agg }] = await Promise.all([crdsReady(), extensionServers()]);

        // Route cluster.karmada.io to the aggregated API server; admission to the webhook.
        const t2 = Date.now();
        const { service, apiService } = aggregatedApiObjects(ports.agg, s.caPem);
        await c.apply(resourcePath("v1", "services", { namespace: KARMADA_SYSTEM_NAMESPACE, name: service.metadata!.name }), service);
        await c.apply(resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: CLUSTER_API_SERVICE }), apiService);
        const hooks = webhookConfigurations(ports.webhook, s.caPem);
        await c.apply(resourcePath("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", { name: hooks.mutating.metadata!.name }), hooks.mutating);
        await c.apply(resourcePath("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", { name: hooks.validating.metadata!.name }), hooks.validating);
        await waitFor(
            `APIService ${CLUSTER_API_SERVICE} Available`,
            async () => {
                const live = await c.get<KubeObject & { status?: { conditions?: { type: string; status: string; message?: string }[] } }>(
                    resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: CLUSTER_API_SERVICE }),
                );
                const cond = live?.status?.conditions?.find((x) => x.type === "Available");
                if (cond?.status === "True") return true;
                throw new Error(`Available=${cond?.status ?? "?"}: ${cond?.message ?? ""}`);
            },
            { timeoutMs: this.ms(90), intervalMs: 500, watch: [s.apiserver, agg] },
        );
        await waitFor(
            "GET /apis/cluster.karmada.io/v1alpha1/clusters = 200",
            async () => {
                const res = await c.request("GET", "/apis/cluster.karmada.io/v1alpha1/clusters");
                if (res.status === 200) return true;
                throw new Error(`HTTP ${res.status}: ${res.body.slice(0, 200)}`);
            },
            { timeoutMs: this.ms(60), intervalMs: 500, watch: [s.apiserver, agg] },
        );
        this.mark("karmada: cluster.karmada.io served through the aggregator", Date.now() - t2);

        // The controllers last: their informers need the CRDs and the Cluster API. The garbage
        // collector of kube-controller-manager only re-reads discovery every 30 s, so started
        // earlier it would not collect ResourceBindings (nor Secrets owned by Clusters) for up to 30 s.
        const t3 = Date.now();
        this.startControllerManager(bins, p, s, KARMADA_KCM_CONTROLLERS);
        const cm = this.supervisor!.start({
            name: "karmada-controller-manager",
            command: bins["karmada-controller-manager"],
            args: (this.controllerManagerCommand = [
                `--kubeconfig=${kc}`,
                "--leader-elect=false",
                "--cluster-status-update-frequency=10s",
                // What Kamino sets through Karmada's chart for a fleet with failover placement.
                featureGatesArg({ ...KAMINO_FEATURE_GATES, ...FAILOVER_FEATURE_GATES }),
                ...commandArgs(FAILOVER_CONTROLLER_ARGS),
                "--metrics-bind-address=0",
                `--health-probe-bind-address=${LOOPBACK}:${ports.kcmHealth}`,
                v,
            ]),
        });
        const sched = this.supervisor!.start({
            name: "karmada-scheduler",
            command: bins["karmada-scheduler"],
            args: [`--kubeconfig=${kc}`, "--leader-elect=false", "--metrics-bind-address=0", `--health-probe-bind-address=${LOOPBACK}:${ports.schedHealth}`, v],
        });
        this.karmadaProcs.push(cm, sched);
        await Promise.all([
            waitFor("karmada-controller-manager /healthz", () => probe(`http://${LOOPBACK}:${ports.kcmHealth}/healthz`).then(() => true), {
                timeoutMs: this.ms(120),
                intervalMs: 500,
                watch: [cm, s.apiserver],
            }),
            waitFor("karmada-scheduler /healthz", () => probe(`http://${LOOPBACK}:${ports.schedHealth}/healthz`).then(() => true), {
                timeoutMs: this.ms(120),
                intervalMs: 500,
                watch: [sched, s.apiserver],
            }),
            this.waitForControllerManager(p, s),
        ]);
        this.mark("karmada: kube-controller-manager, karmada-controller-manager, karmada-scheduler ready", Date.now() - t3);
    }
}
