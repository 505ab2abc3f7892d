// How `npm run status` prints a FleetStatus (fleet-status.ts): kubectl-like tables, times as ages,
// colour only when asked (a terminal without NO_COLOR), and the one-line messages it ends with when it
// cannot show the fleet. Pure: the command decides about colour and the clock.
import { FleetStatus, IrisClusterView, IrisMemberView, MemberView, MirrorView, MoveView } from "./fleet-status";
import { formatAge } from "./progress";

/** How to render. */
export interface RenderOptions {
    /** ANSI colours (the command: stdout is a terminal and NO_COLOR is not set). */
    color: boolean;
    /** The clock ages are counted from (milliseconds). */
    now: number;
}

/** Whether output may be coloured: a terminal, and NO_COLOR unset or empty (https://no-color.org). */
export const useColor = (isTTY: boolean | undefined, env: Record<string, string | undefined>): boolean => !!isTTY && !env.NO_COLOR;

type Tone = "good" | "bad" | "warn" | "plain";
const CODES: Record<Tone, string> = { good: "32", bad: "31", warn: "33", plain: "" };

/** A table cell: its text and how it is coloured. */
type Cell = { text: string; tone?: Tone };
const cell = (text: string, tone: Tone = "plain"): Cell => ({ text, tone });

/** Left-aligned columns three spaces apart, as kubectl prints them; colour does not shift the columns. */
export function table(header: string[], rows: Cell[][], color: boolean): string[] {
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.text.length ?? 0)));
    const line = (cells: Cell[]) =>
        cells
            .map((c, i) => {
                const padded = i === cells.length - 1 ? c.text : c.text.padEnd(widths[i]);
                return color && c.tone && c.tone !== "plain" ? `\x1b[${CODES[c.tone]}m${padded}\x1b[0m` : padded;
            })
            .join("   ")
            .trimEnd();
    return [line(header.map((h) => cell(h))), ...rows.map(line)];
}

/** An ISO time as an age from `now` (`40s`, `3m5s`), or `-`. */
export function ageOf(iso: string | null | undefined, now: number): string {
    if (!iso) return "-";
    const t = Date.parse(iso);
    return Number.isNaN(t) ? "-" : formatAge((now - t) / 1000);
}

const stateTone = (state: string): Tone => (state === "Ready" ? "good" : state === "Joining" ? "warn" : "bad");
const phaseTone = (phase: string | null): Tone => (phase === "Running" ? "good" : phase === "Failed" || phase === "Error" ? "bad" : "warn");

function memberRows(members: MemberView[], now: number): Cell[][] {
    return members.map((m) => [
        cell(m.name),
        cell(m.syncMode ?? "-"),
        cell(m.state, stateTone(m.state)),
        cell(ageOf(m.since, now)),
        cell(
            m.taints.length ? m.taints.map((t) => `${t.key}:${t.effect}${t.since ? ` (${ageOf(t.since, now)})` : ""}`).join(", ") : "-",
            m.taints.length ? "warn" : "plain",
        ),
        cell(m.kubernetesVersion ?? "-"),
    ]);
}

/** What Karmada does with an IrisCluster on a member: scheduled there, evicting from there, or neither. */
function placedText(m: IrisMemberView, i: IrisClusterView): Cell {
    if (m.deleting) return cell("deleting", "warn");
    if (m.evicting) return cell("evicting", "warn");
    if (m.scheduled) return cell("scheduled");
    return cell(i.mode === "failover" ? `standby #${i.placement.indexOf(m.name) + 1}` : "-");
}

function dependencyText(m: IrisMemberView): Cell {
    if (m.dependencies.length === 0) return cell("-");
    const missing = m.dependencies.filter((d) => !d.present);
    const all = `${m.dependencies.length - missing.length}/${m.dependencies.length}`;
    return missing.length === 0
        ? cell(all, m.scheduled ? "good" : "plain")
        : cell(`${all} missing ${missing.map((d) => `${d.kind}/${d.name}`).join(", ")}`, m.scheduled ? "bad" : "plain");
}

/** IKO's phase on a member as Karmada last reflected it; `(stale)` while Karmada cannot reach the member. */
function phaseText(m: IrisMemberView, members: MemberView[]): Cell {
    if (!m.phase) return cell("-");
    const reachable = members.find((x) => x.name === m.name)?.state === "Ready";
    if (!reachable) return cell(`${m.phase} (stale)`, m.scheduled ? "bad" : "plain");
    return cell(m.phase, m.scheduled ? phaseTone(m.phase) : "plain");
}

function irisRows(i: IrisClusterView, members: MemberView[]): Cell[][] {
    const placement = i.mode === "failover" ? `failover ${i.placement.join(">")}` : i.mode === "all" ? `all ${i.placement.join(",") || "-"}` : "unknown";
    return i.members.map((m, n) => [
        cell(n === 0 ? i.id : ""),
        cell(n === 0 ? placement : ""),
        cell(m.name),
        placedText(m, i),
        cell(m.applied === null ? "-" : m.applied ? "yes" : "no", m.applied === false && m.scheduled ? "bad" : "plain"),
        phaseText(m, members),
        cell(m.condition ?? "-"),
        dependencyText(m),
    ]);
}

function moveRows(moves: MoveView[], now: number): Cell[][] {
    const tone = (k: MoveView["kind"]): Tone => (k.endsWith("failed") ? "bad" : k === "eviction" || k === "rescheduled" ? "warn" : "plain");
    return moves.map((m) => [cell(ageOf(m.at, now)), cell(m.irisCluster), cell(m.kind, tone(m.kind)), cell(m.members.join(", ") || "-"), cell(m.message)]);
}

/** One row per instance of each mirror: its role by the config, and IKO's label on its pod. */
function mirrorRows(mirrors: MirrorView[]): Cell[][] {
    const roleTone = (r: string): Tone => (r === "promoted" ? "warn" : r === "fenced" ? "bad" : "plain");
    return mirrors.flatMap((m) =>
        m.members.map((x, n) => [
            cell(n === 0 ? `${m.id} (${m.name})` : ""),
            cell(x.member),
            cell(x.pod),
            cell(x.role, roleTone(x.role)),
            cell(x.label ?? "-"),
            cell(x.podState, x.podState === "Running" ? "good" : x.role === "fenced" && x.podState === "no pod" ? "plain" : "warn"),
        ]),
    );
}

/** One line per mirror: which member acts as primary. */
export function mirrorVerdict(m: MirrorView): string {
    if (!m.promoted) return `${m.id}: mirror ${m.name}, primary pair on ${m.primary}`;
    const rejoining = m.members.some((x) => x.role === "rejoining");
    return `${m.id}: mirror ${m.name} promoted to ${m.promoted}; the pair on ${m.primary} ${rejoining ? "rejoins as DR async (npm run failback for the next step)" : "is fenced"}`;
}

/** One line per IrisCluster: where it runs, or why that is not where its placement wants it. */
export function verdicts(status: FleetStatus, color: boolean): string[] {
    const paint = (text: string, tone: Tone) => (color ? `\x1b[${CODES[tone]}m${text}\x1b[0m` : text);
    return status.irisClusters.map((i) =>
        i.asPlaced ? `${i.id}: ${paint("as placed", "good")}, runs on ${i.runningOn.join(", ")}` : `${i.id}: ${paint("NOT as placed", "bad")}: ${i.problem}`,
    );
}

/** The human view: members, IrisClusters, recent moves, and a verdict per IrisCluster. */
export function renderStatus(status: FleetStatus, opts: RenderOptions): string {
    const out: string[] = [`Stack ${status.stack}, read from the Karmada API at ${status.readAt.slice(11, 19)} UTC`, ""];
    out.push(...table(["MEMBER", "SYNC", "STATE", "SINCE", "TAINTS", "VERSION"], memberRows(status.members, opts.now), opts.color), "");
    if (status.irisClusters.length === 0) out.push("No IrisClusters in this stack.");
    else
        out.push(
            ...table(
                ["IRISCLUSTER", "PLACEMENT", "MEMBER", "KARMADA", "APPLIED", "PHASE", "CONDITION", "DEPENDENCIES"],
                status.irisClusters.flatMap((i) => irisRows(i, status.members)),
                opts.color,
            ),
        );
    out.push("");
    if (status.moves.length === 0) out.push("No moves in Karmada's events.");
    else out.push(...table(["AGE", "IRISCLUSTER", "MOVE", "MEMBERS", "MESSAGE"], moveRows(status.moves, opts.now), opts.color));
    if (status.mirrors?.length) {
        out.push("", ...table(["MIRROR", "MEMBER", "POD", "ROLE", "IKO LABEL", "POD STATE"], mirrorRows(status.mirrors), opts.color));
        out.push(...status.mirrors.map(mirrorVerdict));
    }
    out.push("", ...verdicts(status, opts.color));
    return `${out.join("\n")}\n`;
}

/** What `--watch` compares to decide whether to redraw: the status without the time it was read. */
export const watchKey = (status: FleetStatus): string => JSON.stringify({ ...status, readAt: undefined });

/** The one line when the Karmada API cannot be reached, with what to do. */
export function unreachableMessage(stack: string, server: string, host: string | undefined, error: string): string {
    const where = host ? ` on ${host}` : "";
    return (
        `the Karmada API${where} (${server}) cannot be reached: ${error}. ` +
        `Fix: start its host cluster${host ? ` ${host}` : ""} (kind: docker start <its control-plane container>, see docker ps -a), ` +
        `or free the port if another program holds it; then run status again (npm run recover -- --stack ${stack} rebuilds a fleet whose clusters are gone)`
    );
}

/** The one line for a stack that has no Karmada to read. */
export const notBroughtUpMessage = (stack: string): string =>
    `stack ${stack} has not been brought up (it has no karmadaKubeconfig output): run pulumi up -s ${stack} first`;

/** The one line for a stack that does not exist. */
export const noSuchStackMessage = (stack: string): string => `there is no stack ${stack} in this project's backend: see pulumi stack ls`;

/** How to call it. */
export const STATUS_USAGE = "usage: npm run status -- [--stack <stack>] [--watch] [--json]";
