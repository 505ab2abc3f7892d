// The planned way back after `npm run promote` (`npm run failback -- <namespace/name>` on a mirror),
// in two steps, each run on purpose:
//   1. once the old primary's member is Ready again: record `mirror.rejoin: true` and run `pulumi up`.
//      The pair is declared again on its member, its configSource merge carrying [MirrorMember]
//      ValidatedMember=0 (the lead's objects, /tmp/contract-35.md), so each former failover member asks
//      the promoted DR for its role and rejoins as a DR async (HA Guide §5.5, §6.3.1.1: VERIFIED), or
//      must be rebuilt when its journal is ahead of the promoted DR's.
//   2. once the pair has caught up: a planned switch back, which is NOT automated here. It needs a
//      Promote() of the pair's first member, a graceful stop of IRIS in the promoted DR pod (the pod
//      restarts under IKO, and how that member rejoins is not verified), a Demote(), the pair's second
//      member promoted again, and `mirror.promoted` and `rejoin` removed with a last `pulumi up`, whose
//      effect on the running pods (the merge file changes) is not verified either. A second run reads
//      each pair member's mirror status (read only) and prints those steps with the exact commands.
import { Mirror, MirrorConfig, MirrorError, mirrorConfigPath } from "./mirror-state";
import { IRIS_SESSION, MemberState, parseSession, sessionContainer, STATUS_SCRIPT } from "./promotion";
import { memberState, MirrorPorts } from "./promote";

/** What failback does for a mirror with this config, or a refusal (code 3) naming the fix. */
export type MirrorFailbackStep = "rejoin" | "switch-back";

/** Decides the step: nothing to do without a promotion; step 1 only while the old member is Ready. */
export function mirrorFailbackStep(m: Mirror, config: MirrorConfig, primaryState: MemberState | undefined): MirrorFailbackStep {
    if (!config.promoted) {
        throw new MirrorError(
            `mirror ${m.id} is not promoted (no mirror.promoted in the config): its pair on ${m.primary} is the primary, nothing to fail back`,
            3,
        );
    }
    if (config.rejoin) return "switch-back";
    if (primaryState !== "Ready") {
        throw new MirrorError(
            `${m.primary}, where the pair comes back, is ${primaryState ?? "unknown"} in Karmada: fail back once it is Ready (npm run status shows it); ${config.promoted} stays the primary meanwhile`,
            3,
        );
    }
    return "rejoin";
}

/** The pair's data pods (IKO's mirrored naming: `<name>-data-0-0`, `-0-1`). */
export const pairPods = (m: Mirror) => [`${m.pair}-data-0-0`, `${m.pair}-data-0-1`];

/** The ports failback needs besides the promotion's: setting `rejoin`, and a `pulumi up` the user watches. */
export interface FailbackPorts extends MirrorPorts {
    setRejoin: () => Promise<void>;
    /** Runs `pulumi up` shown as it runs; resolves its exit code. */
    up: () => Promise<number | null>;
}

/** The status of each pair pod on the old primary's member: what it reports, or why it could not be read. */
export async function pairStatuses(ports: MirrorPorts, m: Mirror): Promise<Array<{ pod: string; status: string }>> {
    const out: Array<{ pod: string; status: string }> = [];
    for (const pod of pairPods(m)) {
        let status: string;
        try {
            const found = await ports.getPod(m.primary, m.namespace, pod);
            const container = found && sessionContainer(found);
            if (!container) status = found ? "no container" : "no such pod";
            else {
                const r = await ports.exec(m.primary, { namespace: m.namespace, pod, container }, IRIS_SESSION, STATUS_SCRIPT);
                status = parseSession(r.stdout).status ?? "no KAMINO-STATUS line";
            }
        } catch (e) {
            status = `unreadable: ${(e as Error).message}`;
        }
        out.push({ pod, status });
    }
    return out;
}

/** Step 2, printed: the planned switch back, by hand, with what is verified and what is not. */
export function switchBackInstructions(m: Mirror, promoted: string, stack: string): string {
    const [first, second] = pairPods(m);
    const dr = `${m.drAsync[promoted]}-data-0`;
    const session = (member: string, pod: string, script: string) =>
        `kubectl --kubeconfig ${member}.kubeconfig exec -i -n ${m.namespace} ${pod} -- ${IRIS_SESSION.join(" ")} <<< '${script}'`;
    return [
        `Step 2, the switch back, is not automated (docs/disaster-recovery.md#failback-of-a-mirror says why). When ${first} and ${second} report CONNECTED and have caught up:`,
        `  a. promote the pair's first member to failover member (it becomes BACKUP of ${promoted}):`,
        `     ${session(m.primary, first, "set sc=##class(SYS.Mirror).Promote() write $SYSTEM.Status.IsOK(sc),! halt")}`,
        `  b. stop IRIS gracefully in ${dr} on ${promoted}; ${first} takes over as PRIMARY:`,
        `     kubectl --kubeconfig ${promoted}.kubeconfig exec -n ${m.namespace} ${dr} -- iris stop IRIS quietly`,
        `  c. when ${dr} is back, demote it to DR async: ${session(promoted, dr, "set sc=##class(SYS.Mirror).Demote() write $SYSTEM.Status.IsOK(sc),! halt")}`,
        `  d. promote ${second} to failover member the same way as (a);`,
        `  e. pulumi config rm --path '${mirrorConfigPath(m, "rejoin")}' -s ${stack} && pulumi config rm --path '${mirrorConfigPath(m, "promoted")}' -s ${stack} && pulumi up -s ${stack}`,
        `     (where kamino:irisClusters is one JSON string in Pulumi.${stack}.yaml rather than YAML, --path leaves it as it is: delete both fields from the string instead)`,
        `(the kubeconfigs: pulumi stack output commands -s ${stack} shows how to write them)`,
    ].join("\n");
}

/** What failback did for a mirror. */
export interface MirrorFailbackResult {
    step: MirrorFailbackStep;
    /** Step 2: each pair pod's mirror status, read before the instructions. */
    statuses?: Array<{ pod: string; status: string }>;
}

/** Runs the step the config calls for (see the header); refusals before any change are code 3. */
export async function mirrorFailback(ports: FailbackPorts, m: Mirror): Promise<MirrorFailbackResult> {
    const config = await ports.readConfig();
    const state = config.promoted && !config.rejoin ? await memberState(ports.karmada, m.primary) : undefined;
    const step = mirrorFailbackStep(m, config, state);
    if (step === "switch-back") return { step, statuses: await pairStatuses(ports, m) };
    await ports.setRejoin();
    ports.say(`recorded ${mirrorConfigPath(m, "rejoin")} = true in the stack config; running pulumi up to declare the pair again on ${m.primary}`);
    const code = await ports.up();
    if (code !== 0) {
        throw new MirrorError(
            `pulumi up failed (above, exit code ${code}); mirror.rejoin stays set. Fix what it names and run pulumi up again; then npm run failback for step 2`,
            1,
        );
    }
    return { step };
}
