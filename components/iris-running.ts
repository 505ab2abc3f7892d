// Whether a federated IrisCluster runs on every member it is placed on, read from the status Karmada
// aggregates onto the template (see AGGREGATE_LUA in iris-interpreter.ts), and the wait for it.
import { KubeObject, kubeReader } from "./kube-read";
import { poll } from "./poll";

/**
 * Phases after which waiting longer will not help: IKO's failures, and a member Karmada reports
 * not Ready (its API unreachable), where nothing new can be applied or observed.
 */
export const FAILED_PHASES: readonly string[] = ["Failed", "Error", "ClusterNotReady"];

/** What the waiter reads from the Karmada API on each poll. */
export interface KarmadaView {
    /** The IrisCluster template, with the status Karmada aggregates; undefined when missing. */
    template?: KubeObject;
    /** The Karmada `Cluster` of each target member, by name. */
    clusters: Record<string, KubeObject | undefined>;
}

/** One member as Karmada reports it. */
export interface MemberStatus {
    /** The member cluster. */
    name: string;
    /**
     * IKO's phase there; `Pending` before it reports one, `NotApplied` when Karmada has not applied
     * it; or the member's own state in Karmada (see clusterState).
     */
    phase: string;
    /** The first condition that is not True, as `Type=Status: reason: message`, when IKO reports one. */
    condition?: string;
}

/** Where an IrisCluster stands on its members. */
export interface RunningReport {
    /** Every member runs it. */
    running: boolean;
    /** Members whose copy is not running, in placement order. */
    notRunning: MemberStatus[];
    /** Some member reports a failed phase. */
    failed: boolean;
}

type AggregatedStatus = { clusters?: Array<{ name?: string; phase?: string; condition?: string }> };

type ClusterStatus = { status?: { conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string }> } };

/**
 * A member as its Karmada Cluster shows it, when that is not Ready: `NotJoined` (no Cluster) and
 * `Joining` (no Ready condition yet, as right after a join) may still turn Ready; `ClusterNotReady`
 * (Ready False or Unknown: Karmada cannot reach the member) is failed. Undefined when Ready.
 */
export function clusterState(cluster: KubeObject | undefined): MemberStatus | undefined {
    if (!cluster) return { name: "", phase: "NotJoined" };
    const ready = (cluster as ClusterStatus).status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status === "True") return undefined;
    if (!ready) return { name: "", phase: "Joining" };
    return { name: "", phase: "ClusterNotReady", condition: [`Ready=${ready.status}`, ready.reason, ready.message].filter(Boolean).join(": ") };
}

/** Reads the template's aggregated status and the members' Clusters against the members its placement selects. */
export function runningReport(view: KarmadaView, targets: string[]): RunningReport {
    const clusters = (view.template?.status as AggregatedStatus | undefined)?.clusters;
    // Lua's empty table reaches JSON as {}: no member has reported.
    const reported = new Map((Array.isArray(clusters) ? clusters : []).map((c) => [c.name, c]));
    const notRunning: MemberStatus[] = [];
    for (const name of targets) {
        // Karmada's view of the member comes first: a status it can no longer refresh is stale.
        const notReady = name in view.clusters ? clusterState(view.clusters[name]) : undefined;
        if (notReady) {
            notRunning.push({ ...notReady, name });
            continue;
        }
        const c = reported.get(name);
        if (c?.phase === "Running") continue;
        notRunning.push({ name, phase: c ? (c.phase ?? "Pending") : "NotApplied", ...(c?.condition ? { condition: c.condition } : {}) });
    }
    return { running: notRunning.length === 0, notRunning, failed: notRunning.some((m) => FAILED_PHASES.includes(m.phase)) };
}

/** The one message `up` fails with: the IrisCluster, each member not running and what it reports, and where to look. */
export function notRunningMessage(id: string, report: RunningReport, why: string, karmadaCommand: string): string {
    const members = report.notRunning.map((m) => `  ${m.name}: ${m.phase}${m.condition ? ` (${m.condition})` : ""}`);
    const [namespace, name] = id.split("/");
    return [
        `IrisCluster ${id} is not running on ${report.notRunning.length} member(s) ${why}:`,
        ...members,
        `See more: ${karmadaCommand} get iriscluster ${name} -n ${namespace} -o yaml (status.clusters), and on a member: kubectl describe iriscluster ${name} -n ${namespace}`,
        "Fix the member, then run `pulumi up` again: it waits again and changes nothing that already runs.",
    ].join("\n");
}

/** How to wait. */
export interface RunningWaitOptions {
    /** Give up after this many seconds. */
    timeoutSeconds: number;
    /** Seconds between reads. Default 2. */
    intervalSeconds?: number;
    /** How a user reaches the Karmada API, for the message (e.g. `kubectl --kubeconfig karmada.kubeconfig`). */
    karmadaCommand: string;
    /** Injected clock and sleep, for tests. */
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

/**
 * Polls the template until every target member runs it. Fails at once when a member reports a
 * failed phase, or at the deadline; either way with notRunningMessage. Read errors are retried.
 */
export async function waitUntilRunning(read: () => Promise<KarmadaView>, id: string, targets: string[], opts: RunningWaitOptions): Promise<RunningReport> {
    // The last report read; a failed read keeps the one before it.
    let report: RunningReport = runningReport({ clusters: {} }, targets);
    const done = await poll(
        async () => {
            report = runningReport(await read(), targets);
            return report.running || report.failed ? report : undefined;
        },
        {
            timeoutSeconds: opts.timeoutSeconds,
            intervalSeconds: opts.intervalSeconds ?? 2,
            now: opts.now,
            sleep: opts.sleep,
            timeoutError: (readError) => {
                const why = `after ${opts.timeoutSeconds}s${readError ? ` (last read of the Karmada API failed: ${(readError as Error).message})` : ""}`;
                return new Error(notRunningMessage(id, report, why, opts.karmadaCommand));
            },
        },
    );
    if (done.running) return done;
    throw new Error(notRunningMessage(id, { ...done, notRunning: done.notRunning.filter((m) => FAILED_PHASES.includes(m.phase)) }, "(failed)", opts.karmadaCommand));
}

/**
 * Waits until the IrisCluster `namespace/name` runs on every target member, reading its template
 * through a Karmada kubeconfig; resolves the members, rejects with notRunningMessage.
 */
export type RunningWaiter = (karmadaKubeconfig: string, id: string, targets: string[], timeoutSeconds: number) => Promise<string[]>;

/** How a user reaches the Karmada API, as the stack's `commands` output tells them to save its kubeconfig. */
export const KARMADA_KUBECTL = "kubectl --kubeconfig karmada.kubeconfig";

/** The real waiter: polls the template in the Karmada API. */
export const waitForRunningMembers: RunningWaiter = async (karmadaKubeconfig, id, targets, timeoutSeconds) => {
    const [namespace, name] = id.split("/");
    const template = kubeReader(karmadaKubeconfig, `/apis/intersystems.com/v1alpha1/namespaces/${namespace}/irisclusters/${name}`);
    const clusters = targets.map((t) => [t, kubeReader(karmadaKubeconfig, `/apis/cluster.karmada.io/v1alpha1/clusters/${t}`)] as const);
    const read = async (): Promise<KarmadaView> => ({
        template: await template(),
        clusters: Object.fromEntries(await Promise.all(clusters.map(async ([t, r]) => [t, await r()] as const))),
    });
    await waitUntilRunning(read, id, targets, { timeoutSeconds, karmadaCommand: KARMADA_KUBECTL });
    return targets;
};
