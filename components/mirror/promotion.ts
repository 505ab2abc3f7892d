// What `npm run promote` decides, as pure functions: whether a promotion may start (the refusals,
// each with its fix), which steps a run before this one already did, the ObjectScript each IRIS
// session runs, and how its output is read. IRIS is reached with `iris session IRIS -U %SYS` and
// the ObjectScript on stdin; how that command reports a %Status or an exit code is NOT verified
// (research-35 Q5), so each session writes its result on a marked line (KAMINO-RESULT:,
// KAMINO-STATUS:) and only a marked line counts: the exit code alone is never trusted.
import { KARMADA_PATHS } from "../crds/karmada-api";
import { findMirror, Mirror, MirrorConfig, MirrorError } from "./mirror-state";

/** What the user asked for. */
export interface PromoteRequest {
    /** `<namespace>/<name>` of the mirror (its pair's IrisCluster). */
    id: string;
    /** The DR async member to make primary. */
    to: string;
    /** A planned switch: the pair still runs; `Promote()`, then the pair is stopped. */
    planned: boolean;
}

/** A member's state in Karmada: its Cluster's Ready condition, or `NoCluster` when Karmada has none. */
export type MemberState = "Ready" | "NotReady" | "Unknown" | "NoCluster";

/** A member's state from its Karmada Cluster (undefined: Karmada has no Cluster of that name). */
export function memberStateOf(cluster: { status?: { conditions?: Array<{ type?: string; status?: string }> } } | undefined): MemberState {
    if (!cluster) return "NoCluster";
    const ready = cluster.status?.conditions?.find((c) => c.type === "Ready")?.status;
    return ready === "True" ? "Ready" : ready === "False" ? "NotReady" : "Unknown";
}

/** A promotion that may go ahead, and what is already done. */
export interface PromotionPlan {
    mirror: Mirror;
    to: string;
    planned: boolean;
    /** The DR IrisCluster on `to`, and its data pod (`<dr>-data-0`: IKO's non-mirrored naming). */
    drCluster: string;
    drPod: string;
    /** `mirror.promoted` already names `to` in the config: the fence was recorded by an earlier run. */
    recorded: boolean;
}

/** The checks that need nothing live: the mirror, the member, and what the config already says. */
export function planPromotion(mirrors: Mirror[], stack: string, req: PromoteRequest, config: MirrorConfig): PromotionPlan {
    const mirror = findMirror(mirrors, req.id, stack);
    const drCluster = mirror.drAsync[req.to];
    if (!drCluster) {
        const members = Object.keys(mirror.drAsync);
        throw new MirrorError(
            `${req.to} is not a DR async member of mirror ${req.id} (${members.length ? `its DR async members: ${members.join(", ")}` : "it has none"}). ` +
                `Fix: --to ${members[0] ?? "<a member of mirror.drAsync>"}`,
            3,
        );
    }
    if (config.rejoin) {
        throw new MirrorError(
            `a failback of ${req.id} is under way (mirror.rejoin is set in the config): finish it with npm run failback -- ${req.id}, or remove mirror.rejoin and run pulumi up`,
            3,
        );
    }
    if (config.promoted && config.promoted !== req.to) {
        throw new MirrorError(
            `${req.id} is already promoted to ${config.promoted} (mirror.promoted in the config): a second DR member cannot be promoted beside it. ` +
                `Fix: fail back first (npm run failback -- ${req.id}), or promote ${config.promoted} again to finish that promotion`,
            3,
        );
    }
    return { mirror, to: req.to, planned: req.planned, drCluster, drPod: `${drCluster}-data-0`, recorded: config.promoted === req.to };
}

/**
 * Whether the old primary's member allows this promotion now, given Karmada's view of it. Unplanned:
 * only while Karmada reports it not Ready (a Ready one still runs its primary, and two primaries
 * would diverge). Planned: only while it is Ready (`Promote()` joins the DR to the running pair).
 */
export function checkPrimaryMember(plan: PromotionPlan, state: MemberState): void {
    const { mirror, planned } = plan;
    if (!planned && state === "Ready") {
        throw new MirrorError(
            `${mirror.primary}, the member running the primary of ${mirror.id}, is Ready in Karmada: promoting ${plan.to} now would make two primaries. ` +
                `Fix: for a planned switch while both run, add --planned; after an outage, wait until Karmada marks ${mirror.primary} not Ready (npm run status shows it)`,
            3,
        );
    }
    if (planned && state !== "Ready") {
        throw new MirrorError(
            `--planned needs the pair running, but ${mirror.primary} is ${state} in Karmada. Fix: for an outage, run without --planned (PromoteWithNoPartner: the journal the pair did not send is lost)`,
            3,
        );
    }
}

/** The command each IRIS session runs in the DR pod; the ObjectScript goes on its stdin. */
export const IRIS_SESSION = ["iris", "session", "IRIS", "-U", "%SYS"];

/** The ObjectScript of the promotion: `Promote()` (planned) or `PromoteWithNoPartner()`, its %Status on marked lines. */
export function promoteScript(planned: boolean): string {
    const method = planned ? "Promote" : "PromoteWithNoPartner";
    return [
        `set sc=##class(SYS.Mirror).${method}()`,
        'write "KAMINO-RESULT:",$SYSTEM.Status.IsOK(sc),!',
        'write:\'$SYSTEM.Status.IsOK(sc) "KAMINO-ERROR:",$SYSTEM.Status.GetErrorText(sc),!',
        "halt",
        "",
    ].join("\n");
}

/** The ObjectScript that reports the member's mirror status (`PRIMARY`, `BACKUP`, `CONNECTED`...). */
export const STATUS_SCRIPT = ['write "KAMINO-STATUS:",$SYSTEM.Mirror.GetStatus(),!', "halt", ""].join("\n");

/** What a session printed, read from its marked lines only. */
export interface SessionOutcome {
    /** KAMINO-RESULT: the %Status was OK (1) or not (0); undefined when no such line. */
    ok?: boolean;
    /** KAMINO-ERROR: the %Status's error text. */
    error?: string;
    /** KAMINO-STATUS: `$SYSTEM.Mirror.GetStatus()`, upper-cased. */
    status?: string;
}

/** Reads the marked lines of a session's output; the last of each kind wins (the terminal may echo input lines first). */
export function parseSession(stdout: string): SessionOutcome {
    const out: SessionOutcome = {};
    for (const raw of stdout.split(/\r?\n/)) {
        const line = raw.replace(/^.*?(?=KAMINO-)/, "");
        // An echoed input line (`write "KAMINO-RESULT:",...`) is not a result: its marker is followed by the closing quote.
        const m = /^KAMINO-(RESULT|ERROR|STATUS):(.*)$/.exec(line);
        if (!m || m[2].startsWith('",')) continue;
        const value = m[2].trim();
        if (m[1] === "RESULT" && /^[01]$/.test(value)) out.ok = value === "1";
        if (m[1] === "ERROR") out.error = value;
        if (m[1] === "STATUS" && value) out.status = value.toUpperCase();
    }
    return out;
}

/** The last lines a session printed, for a failure message (IRIS prints no secret there; capped). */
export function sessionTail(stdout: string, stderr: string): string {
    const lines = `${stdout}\n${stderr}`
        .split(/\r?\n/)
        .map((l) => l.trimEnd())
        .filter(Boolean);
    return lines.slice(-4).join(" | ").slice(0, 400) || "(nothing)";
}

/** The container the sessions run in: `iris` when the pod has one, else its first. */
export function sessionContainer(pod: { spec?: { containers?: Array<{ name?: string }> } }): string | undefined {
    const names = (pod.spec?.containers ?? []).map((c) => c.name ?? "").filter(Boolean);
    return names.includes("iris") ? "iris" : names[0];
}

/** The PropagationPolicy Karmada bound a template to (its annotation, or the older label), else Kamino's default name. */
export function policyNameOf(
    template: { metadata?: { annotations?: Record<string, string>; labels?: Record<string, string> } } | undefined,
    pair: string,
): string {
    const key = "propagationpolicy.karmada.io/name";
    return template?.metadata?.annotations?.[key] ?? template?.metadata?.labels?.[key] ?? `${pair}-propagate`;
}

/** The REST paths of the pair's objects in the Karmada API. */
export const pairPaths = (namespace: string, pair: string, policy: string) => ({
    irisCluster: KARMADA_PATHS.irisClusterTemplate(namespace, pair),
    policy: KARMADA_PATHS.propagationPolicy(namespace, policy),
});

/** How to reach the DR pod by hand, for the messages that hand over (no secret: the kubeconfig is named, not shown). */
export function byHand(plan: PromotionPlan, script: string): string {
    const oneLine = script.trim().split("\n").join(" ");
    return (
        `kubectl --kubeconfig ${plan.to}.kubeconfig exec -i -n ${plan.mirror.namespace} ${plan.drPod} -- ${IRIS_SESSION.join(" ")} <<'EOF'\n${oneLine}\nEOF` +
        ` (its kubeconfig: pulumi stack output commands shows how to write it)`
    );
}
