// Starting and waiting for the Kubernetes processes of the loopback fleet: etcd, kube-apiserver
// and kube-controller-manager (their flags and readiness checks), and the ApiServer they make up.
import * as path from "path";
import { Binaries } from "./binaries";
import { KubeClient, resourcePath } from "./kube-client";
import { adminTls, ClusterPlan, ClusterRole, read } from "./plan";
import { LOOPBACK } from "./ports";
import { probe } from "./probes";
import { ManagedProcess, ProcessSupervisor } from "./processes";
import { waitFor } from "./wait";

/** One API server of the fleet. */
export interface ApiServer {
    name: string;
    role: ClusterRole;
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

const SERVICE_CIDR = "10.0.0.0/24";
/** Controllers of the host's and the members' kube-controller-manager: SA-token Secrets get populated. */
export const MEMBER_CONTROLLERS = "serviceaccount-token,serviceaccount,namespace,garbagecollector";

/** Starts the fleet's processes through `supervisor`, with `bins`, at klog level `verbosity`; every timeout times `scale`. */
export class KubeProcesses {
    constructor(
        readonly supervisor: ProcessSupervisor,
        readonly bins: Binaries,
        readonly verbosity: number,
        private readonly scale: number,
    ) {}

    /** `seconds`, scaled, in ms. */
    ms(seconds: number): number {
        return seconds * 1000 * this.scale;
    }

    /** One etcd (no fsync) with its data in `<dir>/etcd`; returns at once (see waitForEtcd). */
    startEtcd(dir: string, clientPort: number, peerPort: number): ManagedProcess {
        const client = `http://${LOOPBACK}:${clientPort}`;
        const peer = `http://${LOOPBACK}:${peerPort}`;
        return this.supervisor.start({
            name: "etcd",
            command: this.bins.etcd,
            args: [
                "--name=harness",
                `--data-dir=${path.join(dir, "etcd")}`,
                `--listen-client-urls=${client}`,
                `--advertise-client-urls=${client}`,
                `--listen-peer-urls=${peer}`,
                `--initial-advertise-peer-urls=${peer}`,
                `--initial-cluster=harness=${peer}`,
                "--unsafe-no-fsync=true",
                "--log-level=warn",
            ],
        });
    }

    async waitForEtcd(etcd: ManagedProcess, clientPort: number): Promise<void> {
        await waitFor(
            "etcd /health",
            async () => {
                const body = JSON.parse(await probe(`http://${LOOPBACK}:${clientPort}/health`)) as { health?: string };
                return body.health === "true" ? true : undefined;
            },
            { timeoutMs: this.ms(30), watch: [etcd] },
        );
    }

    /** kube-apiserver flags common to every cluster. */
    apiserverArgs(p: ClusterPlan, etcdUrl: string): string[] {
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

    /**
     * Starts the cluster's kube-apiserver (common flags, those `extra` sets again left out, then
     * `extra`; `env` added to its environment); returns at once (see waitForReadyz).
     */
    startApiserver(p: ClusterPlan, etcdUrl: string, extra: string[] = [], env: Record<string, string> = {}): ApiServer {
        const flag = (a: string) => a.split("=")[0];
        const overridden = new Set(extra.map(flag));
        const args = [...this.apiserverArgs(p, etcdUrl).filter((a) => !overridden.has(flag(a))), ...extra];
        const apiserver = this.supervisor.start({ name: `${p.name}-apiserver`, command: this.bins["kube-apiserver"], args, env });
        return {
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
    }

    async waitForReadyz(s: ApiServer): Promise<void> {
        await waitFor(
            `${s.name} kube-apiserver /readyz`,
            async () => {
                const res = await s.client.request("GET", "/readyz");
                if (res.status === 200) return true;
                throw new Error(
                    `HTTP ${res.status}: ${
                        res.body
                            .split("\n")
                            .filter((l) => l.startsWith("[-]"))
                            .join(" ") || res.body.slice(0, 200)
                    }`,
                );
            },
            { timeoutMs: this.ms(180), intervalMs: 500, watch: [s.apiserver] },
        );
    }

    /** Starts the cluster's kube-controller-manager with `controllers` and sets it as `s.controllerManager`. */
    startControllerManager(p: ClusterPlan, s: ApiServer, controllers: string, extraArgs: string[] = []): ManagedProcess {
        const kcm = this.supervisor.start({
            name: `${p.name}-kube-controller-manager`,
            command: this.bins["kube-controller-manager"],
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
                ...extraArgs,
                `--v=${this.verbosity}`,
            ],
        });
        s.controllerManager = kcm;
        return kcm;
    }

    async waitForControllerManager(p: ClusterPlan, s: ApiServer): Promise<void> {
        const kcm = s.controllerManager!;
        const tls = adminTls(p, s.caPem);
        await waitFor(`${p.name} kube-controller-manager /healthz`, () => probe(`https://${LOOPBACK}:${p.kcmPort}/healthz`, tls).then(() => true), {
            timeoutMs: this.ms(120),
            intervalMs: 500,
            watch: [kcm, s.apiserver],
        });
    }

    /** The serviceaccount controller has made `default/default`: the controller manager works. */
    async waitForServiceAccounts(s: ApiServer): Promise<void> {
        await waitFor(
            `${s.name}: ServiceAccount default/default (made by kube-controller-manager)`,
            async () => ((await s.client.get(resourcePath("v1", "serviceaccounts", { namespace: "default", name: "default" }))) ? true : undefined),
            { timeoutMs: this.ms(60), intervalMs: 500, watch: [s.apiserver, s.controllerManager!] },
        );
    }
}
