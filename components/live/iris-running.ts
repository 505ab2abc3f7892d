// Whether a federated IrisCluster runs on every member it is placed on, read from the status Karmada
// aggregates onto the template (see AGGREGATE_LUA in iris-interpreter.ts), and the wait for it.
import { describeError, KubeObject, kubeReader } from "./kube-read";
import { poll } from "./poll";
import { ProgressSink, WaitProgress } from "./progress";
import { KARMADA_PATHS } from "../crds/karmada-api";

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
    /**
     * The members Karmada's scheduler placed it on (its ResourceBinding's `spec.clusters`); read in
     * failover mode, where that is one member of the list and may change without Kamino.
     */
    scheduled?: string[];
}

/** How an IrisCluster is placed: on every target (`all`), or on one at a time down the list (`failover`). */
export type PlacementMode = "all" | "failover";

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
    /** Members that run it (of those that count: in failover mode, the one Karmada chose). */
    runningOn: string[];
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

/**
 * Reads the template's aggregated status and the members' Clusters against the members its placement
 * selects. In failover mode only the member Karmada chose counts, and a failure there is not final
 * while the list has a member after it: Karmada moves the IrisCluster on, and `up` waits for that.
 */
export function runningReport(view: KarmadaView, targets: string[], mode: PlacementMode = "all"): RunningReport {
    if (mode === "failover") {
        const chosen = (view.scheduled ?? []).filter((m) => targets.includes(m));
        if (chosen.length === 0) return { running: false, notRunning: [{ name: targets.join(" or "), phase: "NotScheduled" }], failed: false, runningOn: [] };
        const report = runningReport(view, chosen);
        return { ...report, failed: report.failed && chosen.includes(targets[targets.length - 1]) };
    }
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
    const runningOn = targets.filter((t) => !notRunning.some((m) => m.name === t));
    return { running: notRunning.length === 0, notRunning, failed: notRunning.some((m) => FAILED_PHASES.includes(m.phase)), runningOn };
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

/**
 * The running-wait's progress line: each target member and what Karmada reports for it, in
 * placement order, e.g. `ikoclone Creating (Ready=False: IRISStarting), ikoclone2 Running`.
 */
export function progressState(report: RunningReport, targets: string[]): string {
    const members = targets.map((t) => {
        if (report.runningOn.includes(t)) return `${t} Running`;
        const m = report.notRunning.find((n) => n.name === t);
        return m ? `${t} ${m.phase}${m.condition ? ` (${m.condition})` : ""}` : undefined;
    });
    // In failover mode only the chosen member counts; before Karmada chose one, the list is named.
    const shown = members.filter((m): m is string => m !== undefined);
    const unscheduled = report.notRunning.filter((m) => !targets.includes(m.name)).map((m) => `${m.name} ${m.phase}`);
    return `waiting for IRIS to run: ${[...shown, ...unscheduled].join(", ")}`;
}

/** How to wait. */
export interface RunningWaitOptions {
    /** Give up after this many seconds. */
    timeoutSeconds: number;
    /** Seconds between reads. Default 2. */
    intervalSeconds?: number;
    /** How a user reaches the Karmada API, for the message (e.g. `kubectl --kubeconfig karmada.kubeconfig`). */
    karmadaCommand: string;
    /** The IrisCluster's placement mode; default `all`. */
    mode?: PlacementMode;
    /** Where a line goes each time what the members report changes (progressState, with the time waited). */
    onProgress?: ProgressSink;
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
    let report: RunningReport = runningReport({ clusters: {} }, targets, opts.mode);
    const progress = new WaitProgress(opts.onProgress, opts.now);
    const done = await poll(
        async () => {
            let view: KarmadaView;
            try {
                view = await read();
            } catch (e) {
                progress.update(`waiting for IRIS to run: cannot read the Karmada API (${describeError(e)})`);
                throw e;
            }
            report = runningReport(view, targets, opts.mode);
            // Once it runs, the caller says where, in a line of its own.
            if (!report.running) progress.update(progressState(report, targets));
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
    throw new Error(
        notRunningMessage(id, { ...done, notRunning: done.notRunning.filter((m) => FAILED_PHASES.includes(m.phase)) }, "(failed)", opts.karmadaCommand),
    );
}

/**
 * Waits until the IrisCluster `namespace/name` runs on every target member (in failover mode: on the
 * member of the list Karmada chose), reading its template through a Karmada kubeconfig; resolves the
 * members where it runs, rejects with notRunningMessage. `onProgress` gets a line each time what
 * the members report changes.
 */
export type RunningWaiter = (
    karmadaKubeconfig: string,
    id: string,
    targets: string[],
    timeoutSeconds: number,
    mode?: PlacementMode,
    onProgress?: ProgressSink,
) => Promise<string[]>;

/** Karmada's ResourceBinding of an IrisCluster template (`<name>-<lower-case kind>`, names.GenerateBindingName). */
export const bindingPath = (namespace: string, name: string) => `${KARMADA_PATHS.resourceBindings(namespace)}/${name}-iriscluster`;

type Binding = { spec?: { clusters?: Array<{ name?: string }> } };

/** How a user reaches the Karmada API, as the stack's `commands` output tells them to save its kubeconfig. */
export const KARMADA_KUBECTL = "kubectl --kubeconfig karmada.kubeconfig";

/** The real waiter: polls the template in the Karmada API. */
export const waitForRunningMembers: RunningWaiter = async (karmadaKubeconfig, id, targets, timeoutSeconds, mode = "all", onProgress) => {
    const [namespace, name] = id.split("/");
    const template = kubeReader(karmadaKubeconfig, KARMADA_PATHS.irisClusterTemplate(namespace, name));
    const binding = mode === "failover" ? kubeReader(karmadaKubeconfig, bindingPath(namespace, name)) : undefined;
    const clusters = targets.map((t) => [t, kubeReader(karmadaKubeconfig, KARMADA_PATHS.cluster(t))] as const);
    const read = async (): Promise<KarmadaView> => ({
        template: await template(),
        clusters: Object.fromEntries(await Promise.all(clusters.map(async ([t, r]) => [t, await r()] as const))),
        ...(binding ? { scheduled: (((await binding()) as Binding | undefined)?.spec?.clusters ?? []).map((c) => c.name ?? "") } : {}),
    });
    const report = await waitUntilRunning(read, id, targets, { timeoutSeconds, karmadaCommand: KARMADA_KUBECTL, mode, onProgress });
    return report.runningOn;
};
