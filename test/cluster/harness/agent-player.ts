// Plays kubelet for Karmada's agent on the loopback members, which run no pods: when a Deployment
// `karmada-system/karmada-agent` appears on a member, the real karmada-agent binary is started with
// that Deployment's arguments, the files of the Secrets it mounts, and a token of its
// ServiceAccount for the member's API (what a pod gets in-cluster); it is restarted when the
// Deployment's pod template changes or the process exits (as kubelet restarts a container), and
// stopped when the Deployment goes. Kamino does not know it runs on loopback.
import * as fs from "fs";
import * as path from "path";
import { ApiServer } from "./kube-processes";
import { Ticker } from "./ticker";
import { KubeObject, resourcePath } from "./kube-client";
import { kubeconfigYaml } from "./kubeconfig";
import { ManagedProcess, ProcessSupervisor } from "./processes";

const AGENT_NAMESPACE = "karmada-system";
const AGENT_DEPLOYMENT = "karmada-agent";

type Container = { name?: string; image?: string; command?: string[]; args?: string[]; volumeMounts?: { name: string; mountPath: string }[] };
type Deployment = KubeObject & {
    metadata?: { generation?: number; resourceVersion?: string };
    spec?: {
        replicas?: number;
        template?: {
            metadata?: { annotations?: Record<string, string> };
            spec?: { serviceAccountName?: string; containers?: Container[]; volumes?: { name: string; secret?: { secretName?: string } }[] };
        };
    };
};

/** One member's agent as the player runs it. */
interface Running {
    /** The pod template it was started from, as JSON: a change restarts it. */
    template: string;
    process: ManagedProcess;
    /** How many times it was started (names its log: `agent-<member>-<n>`). */
    starts: number;
    /** When it last exited on its own, and how many times in a row: kubelet's back-off before the next start. */
    exitedAt?: number;
    crashes: number;
}

/** kubelet's CrashLoopBackOff, shortened for tests: 1 s, 2 s, 4 s, ... at most 10 s. */
const backOffMs = (crashes: number) => Math.min(10_000, 1000 * 2 ** Math.max(0, crashes - 1));

export interface AgentPlayerOptions {
    /** The karmada-agent binary. */
    binary: string;
    /** Where the agents' files (Secrets, kubeconfigs) and logs go. */
    dir: string;
    /** klog verbosity. */
    verbosity?: number;
    /** Where an agent dials its own member, when not at the member's address (e.g. a MemberFront's). */
    memberServers?: Record<string, string>;
}

/** Runs karmada-agent for each member whose Deployment asks for it. */
export class AgentPlayer {
    private readonly supervisor: ProcessSupervisor;
    private readonly running = new Map<string, Running>();
    private readonly starts = new Map<string, number>();
    private readonly ticker = new Ticker(() => this.tick());
    /** Members whose agent the test has stopped (a lost agent): not started again until resumed. */
    private readonly paused = new Set<string>();

    constructor(
        private readonly members: ApiServer[],
        private readonly opts: AgentPlayerOptions,
    ) {
        this.supervisor = new ProcessSupervisor(path.join(opts.dir, "logs"));
    }

    /** Starts watching the members' Deployments (every 500 ms). */
    start(): this {
        this.ticker.start();
        return this;
    }

    /** Stops watching and stops every agent. */
    async stop(): Promise<void> {
        await this.ticker.stop();
        await this.supervisor.stopAll([], 5_000);
        this.running.clear();
    }

    /** The agent process of a member, while one runs. */
    agentOf(member: string): ManagedProcess | undefined {
        const r = this.running.get(member);
        return r && r.process.exit === undefined ? r.process : undefined;
    }

    /** Stops a member's agent and keeps it stopped (the agent, or its pod, lost) until resume(). */
    async pause(member: string): Promise<void> {
        this.paused.add(member);
        await this.ticker.idle();
        const r = this.running.get(member);
        if (r) await this.supervisor.stopOne(r.process);
    }

    /** Lets the player start a paused member's agent again. */
    resume(member: string): void {
        this.paused.delete(member);
    }

    /** Every line its agents have logged on a member so far, over all their starts. */
    logLines(member: string): string[] {
        const logs = path.join(this.opts.dir, "logs");
        if (!fs.existsSync(logs)) return [];
        return fs
            .readdirSync(logs)
            .filter((f) => f.startsWith(`agent-${member}-`))
            .flatMap((f) => fs.readFileSync(path.join(logs, f), "utf8").split("\n"));
    }

    /** The last lines of a member's current agent log. */
    tail(member: string, lines = 30): string {
        return this.running.get(member)?.process.tail(lines) ?? "";
    }

    private async tick(): Promise<void> {
        await Promise.all(
            this.members.map((m) =>
                this.reconcile(m).catch((e: Error) => {
                    // A stopped member API is skipped until it answers; anything else is worth a line in the log.
                    if (!/ECONNREFUSED|socket hang up|ECONNRESET/.test(e.message)) this.note(`${m.name}: ${e.message}`);
                }),
            ),
        );
    }

    /** A line in the player's own log (agents.log beside the agents' logs). */
    private note(line: string): void {
        fs.appendFileSync(path.join(this.opts.dir, "agents.log"), `${new Date().toISOString()} ${line}\n`);
    }

    private async reconcile(member: ApiServer): Promise<void> {
        const d = await member.client.get<Deployment>(resourcePath("apps/v1", "deployments", { namespace: AGENT_NAMESPACE, name: AGENT_DEPLOYMENT }));
        const current = this.running.get(member.name);
        const wanted = d && (d.spec?.replicas ?? 1) > 0 && !this.paused.has(member.name) ? d : undefined;
        const template = wanted ? JSON.stringify(wanted.spec?.template ?? {}) : "";
        if (current && (!wanted || current.template !== template)) {
            await this.supervisor.stopOne(current.process);
            if (!wanted) {
                this.running.delete(member.name);
                return;
            }
        }
        if (!wanted) return;
        // Start when none runs, the template changed, or the last one exited (kubelet's restart, after its back-off).
        const same = current !== undefined && current.template === template;
        if (same && current.process.exit === undefined) return;
        let crashes = 0;
        if (same) {
            current.exitedAt ??= Date.now();
            crashes = current.crashes + 1;
            if (Date.now() - current.exitedAt < backOffMs(crashes)) return;
        }
        // Counted over the player's life: a log and a process name per start, never reused.
        const starts = (this.starts.get(member.name) ?? 0) + 1;
        this.starts.set(member.name, starts);
        const process = await this.startAgent(member, wanted, starts);
        this.running.set(member.name, { template, process, starts, crashes });
    }

    /** Writes the pod's files (mounted Secrets, the in-cluster kubeconfig) and starts the agent. */
    private async startAgent(member: ApiServer, d: Deployment, starts: number): Promise<ManagedProcess> {
        const pod = d.spec?.template?.spec ?? {};
        const container = pod.containers?.[0];
        if (!container) throw new Error(`${member.name}: the karmada-agent Deployment has no container`);
        const root = path.join(this.opts.dir, member.name, String(starts));
        fs.mkdirSync(root, { recursive: true });
        const rewrites: [string, string][] = [];
        for (const mount of container.volumeMounts ?? []) {
            const secretName = pod.volumes?.find((v) => v.name === mount.name)?.secret?.secretName;
            if (!secretName) continue;
            const secret = await member.client.get<KubeObject & { data?: Record<string, string> }>(
                resourcePath("v1", "secrets", { namespace: AGENT_NAMESPACE, name: secretName }),
            );
            const local = path.join(root, mount.name);
            fs.mkdirSync(local, { recursive: true });
            for (const [key, value] of Object.entries(secret?.data ?? {}))
                fs.writeFileSync(path.join(local, key), Buffer.from(value, "base64"), { mode: 0o600 });
            rewrites.push([mount.mountPath.replace(/\/$/, ""), local]);
        }
        const kubeconfig = path.join(root, "in-cluster.kubeconfig");
        fs.writeFileSync(
            kubeconfig,
            kubeconfigYaml({
                name: member.name,
                server: this.opts.memberServers?.[member.name] ?? member.server,
                caPem: member.caPem,
                token: await this.serviceAccountToken(member, pod.serviceAccountName ?? "default"),
            }),
            { mode: 0o600 },
        );
        const args = [...(container.command?.slice(1) ?? []), ...(container.args ?? [])]
            .map((a) => rewrites.reduce((s, [from, to]) => s.split(from).join(to), a))
            // A pod has its own network namespace; here every agent shares 127.0.0.1.
            .map((a) => (/^--(metrics|health-probe)-bind-address=/.test(a) ? a.replace(/=.*$/, "=0") : a));
        return this.supervisor.start({
            name: `agent-${member.name}-${starts}`,
            command: this.opts.binary,
            args: [...args, `--v=${this.opts.verbosity ?? 1}`],
            // What controller-runtime reads for the member when no --kubeconfig is given: in a pod, the in-cluster config.
            env: { KUBECONFIG: kubeconfig },
            stopGraceMs: 2_000,
        });
    }

    /** A token of the pod's ServiceAccount (TokenRequest), as kubelet projects into a pod. */
    private async serviceAccountToken(member: ApiServer, serviceAccount: string): Promise<string> {
        const res = await member.client.request("POST", `/api/v1/namespaces/${AGENT_NAMESPACE}/serviceaccounts/${serviceAccount}/token`, {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenRequest",
            spec: { expirationSeconds: 3600 },
        });
        if (res.status !== 201) throw new Error(`${member.name}: token for ${serviceAccount}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
        return (JSON.parse(res.body) as { status: { token: string } }).status.token;
    }
}
