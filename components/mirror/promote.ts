// The steps of `npm run promote`, through injected ports (the Karmada API, the stack config, the
// member's pods), each printed with the time it took. The order is the safety:
//   unplanned (the primary's member is lost): check the DR pod answers, fence the old primary
//     (record mirror.promoted in the config, withdraw the pair's IrisCluster and PropagationPolicy from
//     Karmada), then PromoteWithNoPartner() and wait until the DR reports PRIMARY;
//   planned (both run): Promote() while the pair runs and wait until the DR reports BACKUP (a failover
//     member, caught up), then fence: Karmada stops the pair on its member, the primary shuts down,
//     and the DR, its failover partner, takes over; wait until it reports PRIMARY.
// Every step checks what an earlier run did first, so a second run finishes the first or says it is done.
import { describeError } from "../live/kube-read";
import { poll } from "../live/poll";
import type { ExecResult, ExecTarget } from "../live/pod-exec";
import { KARMADA_PATHS } from "../crds/karmada-api";
import { Mirror, MirrorConfig, MirrorError } from "./mirror-state";
import {
    byHand,
    checkPrimaryMember,
    IRIS_SESSION,
    MemberState,
    memberStateOf,
    pairPaths,
    parseSession,
    planPromotion,
    policyNameOf,
    PromoteRequest,
    PromotionPlan,
    promoteScript,
    sessionContainer,
    sessionTail,
    STATUS_SCRIPT,
} from "./promotion";

/** One request to the Karmada API (the real one: kubeRequest with the stack's Karmada kubeconfig). */
export type KarmadaRequest = (method: string, path: string, body?: unknown, contentType?: string) => Promise<{ status: number; body: string }>;

/** A pod as the promotion reads it. */
export type PodLike = {
    metadata?: { name?: string; labels?: Record<string, string> };
    spec?: { containers?: Array<{ name?: string }> };
    status?: { phase?: string };
};

/** How the promotion reaches the world; the command gives the real ones, the tests fakes. */
export interface MirrorPorts {
    karmada: KarmadaRequest;
    /** The mirror's entry in the stack config now. */
    readConfig: () => Promise<MirrorConfig>;
    /** Records `mirror.promoted: <member>` in the stack config. */
    setPromoted: (member: string) => Promise<void>;
    /** A pod on a member; undefined when it does not exist. */
    getPod: (member: string, namespace: string, name: string) => Promise<PodLike | undefined>;
    /** Runs a command with stdin in a pod on a member. */
    exec: (member: string, target: ExecTarget, command: string[], stdin: string) => Promise<ExecResult>;
    /** Where each step's line goes. */
    say: (line: string) => void;
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

/** How long to wait for a role. */
export interface PromoteOptions {
    /** Seconds to wait until the DR reports PRIMARY (and, planned, BACKUP first). */
    timeoutSeconds?: number;
    /** Seconds between status sessions. */
    intervalSeconds?: number;
}

/** What the promotion did. */
export interface PromoteResult {
    /** False when the DR already reported PRIMARY: only the fence was checked. */
    promoted: boolean;
    /** The DR member's last status, PRIMARY when it succeeded. */
    status: string;
}

/** The ports of one run, and what it has done so far, for the message of a failure. */
type Run = MirrorPorts & { done: string };

/**
 * Runs one step, and prints its title, its outcome and the time it took. An unexpected error (an
 * API server that cannot be reached, an exec that fails) becomes a failure saying what was done.
 */
async function step<T>(ports: Run, title: string, run: () => Promise<T>, outcome: (t: T) => string): Promise<T> {
    const now = ports.now ?? Date.now;
    const t0 = now();
    let result: T;
    try {
        result = await run();
    } catch (e) {
        if (e instanceof MirrorError) throw e;
        throw new MirrorError(`${title} failed: ${describeError(e)}. ${ports.done} Fix: what the error names, then run this again`, 1);
    }
    ports.say(`${title}: ${outcome(result)} (${((now() - t0) / 1000).toFixed(1)} s)`);
    return result;
}

/** The old primary's member as Karmada reports it; a Karmada that cannot be read stops the promotion before any change. */
export async function memberState(karmada: KarmadaRequest, member: string): Promise<MemberState> {
    const res = await karmada("GET", KARMADA_PATHS.cluster(member));
    if (res.status === 404) return "NoCluster";
    if (res.status !== 200)
        throw new MirrorError(
            `reading Cluster ${member} from the Karmada API failed (${describeError({ code: res.status, body: res.body })}); nothing was changed`,
            1,
        );
    return memberStateOf(JSON.parse(res.body) as Parameters<typeof memberStateOf>[0]);
}

/** Deletes one object from the Karmada API; true when it was there, false when it was gone already. */
async function remove(karmada: KarmadaRequest, path: string, what: string): Promise<boolean> {
    const res = await karmada("DELETE", path);
    if (res.status === 404) return false;
    if (res.status >= 300) throw new MirrorError(`deleting ${what} from the Karmada API failed: ${describeError({ code: res.status, body: res.body })}`, 1);
    return true;
}

/**
 * Withdraws the pair: its PropagationPolicy first (named by Karmada's annotation on the template),
 * then its IrisCluster template. Karmada deletes the pair from its member now, or when it returns.
 */
export async function withdrawPair(karmada: KarmadaRequest, m: Mirror): Promise<string> {
    const paths = pairPaths(m.namespace, m.pair, "");
    const got = await karmada("GET", paths.irisCluster);
    if (got.status !== 200 && got.status !== 404)
        throw new MirrorError(`reading IrisCluster ${m.id} from the Karmada API failed: ${describeError({ code: got.status, body: got.body })}`, 1);
    const policy = policyNameOf(got.status === 200 ? JSON.parse(got.body) : undefined, m.pair);
    const policyGone = await remove(karmada, pairPaths(m.namespace, m.pair, policy).policy, `PropagationPolicy ${m.namespace}/${policy}`);
    const templateGone = got.status === 200 && (await remove(karmada, paths.irisCluster, `IrisCluster ${m.id}`));
    const said = [templateGone ? `IrisCluster ${m.pair} deleted` : `IrisCluster ${m.pair} already gone`];
    said.push(policyGone ? `PropagationPolicy ${policy} deleted` : `PropagationPolicy ${policy} already gone`);
    return said.join(", ");
}

/**
 * A session's result. One that printed no marked line is an error saying what it printed (a plain
 * Error: the step it runs in adds what was done so far, and a wait retries it).
 */
async function session(ports: MirrorPorts, plan: PromotionPlan, container: string, script: string, marker: "RESULT" | "STATUS") {
    const target = { namespace: plan.mirror.namespace, pod: plan.drPod, container };
    const r = await ports.exec(plan.to, target, IRIS_SESSION, script);
    const outcome = parseSession(r.stdout);
    if ((marker === "RESULT" ? outcome.ok : outcome.status) === undefined) {
        throw new Error(
            `iris session in ${plan.drPod} on ${plan.to} printed no KAMINO-${marker} line (exit code ${r.exitCode ?? "unknown"}; its last lines: ${sessionTail(r.stdout, r.stderr)}); ` +
                "is IRIS running there, and does iris session ask for a login?",
        );
    }
    return outcome;
}

/** Polls the DR's status until it is one of `wanted`. */
async function waitFor(ports: Run, plan: PromotionPlan, container: string, wanted: string[], opts: PromoteOptions): Promise<string> {
    const timeoutSeconds = opts.timeoutSeconds ?? 300;
    let last = "no answer";
    return poll(
        async () => {
            last = (await session(ports, plan, container, STATUS_SCRIPT, "STATUS")).status!;
            return wanted.includes(last) ? last : undefined;
        },
        {
            timeoutSeconds,
            intervalSeconds: opts.intervalSeconds ?? 5,
            now: ports.now,
            sleep: ports.sleep,
            timeoutError: (e) =>
                new MirrorError(
                    `${plan.drPod} on ${plan.to} did not report ${wanted.join(" or ")} within ${timeoutSeconds} s (last: ${e ? (e as Error).message : last}). ${ports.done} ` +
                        `Fix: see the IRIS messages.log in that pod (it waits for its mirrored databases to catch up before it becomes primary); run this command again to keep waiting`,
                    1,
                ),
        },
    );
}

/** Runs the promotion session and refuses a %Status that is not OK. */
async function runPromote(ports: Run, plan: PromotionPlan, container: string): Promise<void> {
    const method = plan.planned ? "Promote" : "PromoteWithNoPartner";
    const outcome = await step(
        ports,
        `${method}() in ${plan.drPod}`,
        () => session(ports, plan, container, promoteScript(plan.planned), "RESULT"),
        (o) => (o.ok ? "%Status OK" : "failed"),
    );
    if (!outcome.ok)
        throw new MirrorError(
            `SYS.Mirror.${method}() in ${plan.drPod} on ${plan.to} returned an error: ${outcome.error ?? "(no text)"}. ${ports.done} Fix: read the error, then run this again, or by hand: ${byHand(plan, promoteScript(plan.planned))}`,
            1,
        );
}

/** Fences the old primary: records the promotion (unless an earlier run did), then withdraws the pair from Karmada. */
async function fence(ports: Run, plan: PromotionPlan): Promise<void> {
    if (!plan.recorded) {
        await step(
            ports,
            `recording kamino:irisClusters[${plan.mirror.configIndex}].mirror.promoted = ${plan.to} in the stack config`,
            () => ports.setPromoted(plan.to),
            () => "set",
        );
        ports.done = `mirror.promoted = ${plan.to} is recorded in the stack config; the pair may not be withdrawn from Karmada yet.`;
    } else ports.say(`mirror.promoted = ${plan.to} is already in the stack config: not set again`);
    await step(
        ports,
        `withdrawing the pair ${plan.mirror.id} from ${plan.mirror.primary} (Karmada API)`,
        () => withdrawPair(ports.karmada, plan.mirror),
        (s) => s,
    );
    ports.done = `The old primary is fenced (mirror.promoted = ${plan.to} in the config, the pair withdrawn from Karmada).`;
}

/**
 * Promotes `req.to`, the DR async member of mirror `req.id`, to primary; see the header for the order.
 * Refusals (MirrorError code 3) come before any change; failures after one (code 1) say what was done.
 */
export async function promote(
    mirrorPorts: MirrorPorts,
    mirrors: Mirror[],
    stack: string,
    req: PromoteRequest,
    opts: PromoteOptions = {},
): Promise<PromoteResult> {
    const ports: Run = { ...mirrorPorts, done: "Nothing was changed." };
    const config = await step(ports, "reading the mirror's entry in the stack config", ports.readConfig, (c) =>
        c.promoted ? `mirror.promoted = ${c.promoted}` : "not promoted",
    );
    const plan = planPromotion(mirrors, stack, req, config);
    if (plan.recorded) ports.done = "The pair stays fenced (an earlier run recorded the promotion).";
    const { primary } = plan.mirror;
    if (!plan.recorded) {
        const state = await step(
            ports,
            `asking Karmada about ${primary}, the primary's member`,
            () => memberState(ports.karmada, primary),
            (s) => s,
        );
        checkPrimaryMember(plan, state);
    }
    const container = await step(
        ports,
        `finding pod ${plan.drPod} on ${plan.to}`,
        () => findContainer(ports, plan),
        (c) => `container ${c}`,
    );
    const status = await step(
        ports,
        `asking ${plan.drPod} its mirror status`,
        async () => (await session(ports, plan, container, STATUS_SCRIPT, "STATUS")).status!,
        (s) => s,
    );
    if (status === "PRIMARY") {
        await fence(ports, plan);
        return { promoted: false, status };
    }
    if (plan.planned) {
        if (plan.recorded && status !== "BACKUP")
            throw new MirrorError(
                `the pair of ${plan.mirror.id} is withdrawn and ${plan.drPod} reports ${status}, not BACKUP: a planned switch cannot finish without the pair. ` +
                    `Fix: run again without --planned to promote it with no partner`,
                1,
            );
        if (status !== "BACKUP") {
            await runPromote(ports, plan, container);
            ports.done = "Nothing was fenced; the DR may be a failover member of the running pair now.";
            await step(
                ports,
                `waiting until ${plan.drPod} reports BACKUP`,
                () => waitFor(ports, plan, container, ["BACKUP", "PRIMARY"], opts),
                (s) => s,
            );
        }
        await fence(ports, plan);
    } else {
        await fence(ports, plan);
        await runPromote(ports, plan, container);
    }
    const final = await step(
        ports,
        `waiting until ${plan.drPod} reports PRIMARY`,
        () => waitFor(ports, plan, container, ["PRIMARY"], opts),
        (s) => s,
    );
    return { promoted: true, status: final };
}

/** The DR pod's session container; a missing pod stops the promotion with what to check. */
async function findContainer(ports: MirrorPorts, plan: PromotionPlan): Promise<string> {
    const pod = await ports.getPod(plan.to, plan.mirror.namespace, plan.drPod);
    const container = pod && sessionContainer(pod);
    if (!container) {
        throw new MirrorError(
            `pod ${plan.mirror.namespace}/${plan.drPod} ${pod ? "has no container" : "is not on"} ${plan.to}: ${plan.recorded ? "the pair stays fenced (an earlier run)" : "nothing was changed"}. ` +
                `Fix: check that IKO runs IrisCluster ${plan.drCluster} there (npm run status; kubectl get pods -n ${plan.mirror.namespace} on ${plan.to}), then run this again`,
            1,
        );
    }
    return container;
}
