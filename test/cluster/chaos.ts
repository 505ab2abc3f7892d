// Kill moments and their recovery, shared by the faults suite (a few moments on every CI run) and
// the full sweep (`npm run chaos`, test/chaos/sweep.ts): a seeded choice of when to kill a run,
// which phase of the run that moment fell in, `npm run recover` as a user runs it, and the check
// that nothing of Kamino's is left on an API server after a destroy.
import { spawn } from "child_process";
import * as path from "path";
import { PATCH_FORCE_ANNOTATION } from "../../components/common/field-ownership";
import { PulumiProcess, PulumiSandbox } from "../support/pulumi-cli";
import { KubeClient, KubeObject, REPO_ROOT, resourcePath } from "./harness";

/** A small seeded PRNG (mulberry32): the same seed replays the same moments. */
export function seededRandom(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** The phases of an `up` (and, in reverse, of a `destroy`) that a kill must cover. */
export const PHASES = ["add-ons", "helm-installs", "joins", "crd-copy", "policies", "running-wait"] as const;
export type Phase = (typeof PHASES)[number] | "start" | "other";

/**
 * The phase a resource's step belongs to, from its type and name as the CLI prints them. Components
 * and providers are "other": they are under way for most of a run, so they name no phase.
 */
export function phaseOfResource(type: string, name: string): Phase {
    if (type.startsWith("kamino:") || type.startsWith("pulumi:")) return "other";
    if (type === "kubernetes:helm.sh/v3:Release") return "helm-installs";
    // The CRD in Karmada and the interpreter that gives it health: one step (the README's step 5).
    if (
        type === "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition" ||
        type === "kubernetes:config.karmada.io/v1alpha1:ResourceInterpreterCustomization"
    )
        return "crd-copy";
    if (type.startsWith("kubernetes:cluster.karmada.io/") || /-member-/.test(name)) return "joins";
    // Templates, policies, synced Secrets and ConfigMaps, and their namespaces in the Karmada API.
    if (
        /^kubernetes:(policy|config)\.karmada\.io\//.test(type) ||
        type.startsWith("kubernetes:intersystems.com/") ||
        /^(secrets|configmaps|iris|karmada-ns)-/.test(name)
    )
        return "policies";
    if (type.startsWith("kubernetes:") || type.startsWith("command:")) return "add-ons";
    return "other";
}

const STEP = /^\s*[-+~]+\s+(\S+)\s+(\S+)\s+(creating|created|updating|updated|deleting|deleted)\b/;

/**
 * The steps under way at the end of `output` ("<type> <name>"), the phases they belong to (steps
 * of several phases run side by side: one member's join beside another's Helm install), and the
 * phase of the one started last.
 */
export function runState(output: string): { phase: Phase; phases: Phase[]; underWay: string[] } {
    const underWay = new Map<string, Phase>();
    let last: Phase = "start";
    let templates = 0;
    for (const line of output.split("\n")) {
        const m = STEP.exec(line);
        if (!m) continue;
        const [, type, name, what] = m;
        const key = `${type} ${name}`;
        const phase = phaseOfResource(type, name);
        if (phase === "other") continue;
        if (what === "creating" || what === "updating" || what === "deleting") underWay.set(key, phase);
        else underWay.delete(key);
        last = phase;
        if (what === "created" && type.startsWith("kubernetes:intersystems.com/")) templates++;
    }
    const steps = [...underWay.keys()];
    const phases = [...new Set(underWay.values())];
    if (underWay.size > 0) return { phase: [...underWay.values()].pop()!, phases, underWay: steps };
    const phase = templates > 0 ? "running-wait" : last;
    return { phase, phases: phase === "start" ? [] : [phase], underWay: steps };
}

/**
 * Whether a run's output shows it has reached `phase`: a step of that phase has started (steps can
 * start and end between two looks at the output, so "under way now" would miss short phases), or,
 * for the running-wait, an IrisCluster template is created.
 */
export function reached(output: string, phase: Phase): boolean {
    for (const line of output.split("\n")) {
        const m = STEP.exec(line);
        if (!m) continue;
        const [, type, name, what] = m;
        if (phase === "running-wait" ? what === "created" && type.startsWith("kubernetes:intersystems.com/") : phaseOfResource(type, name) === phase)
            return true;
    }
    return false;
}

/** One kill: aimed at a phase, `delayMs` after the run is first seen in it. */
export interface KillMoment {
    phase: Phase;
    delayMs: number;
}

/** What happened: when the kill landed (ms after the run started), in which phase, or that the run ended first. */
export interface KillResult {
    killed: boolean;
    atMs: number;
    phaseSeen: Phase;
    /** Every phase with a step under way when the kill landed (phases overlap). */
    phases: Phase[];
    /** The steps under way when the kill landed. */
    underWay: string[];
}

/** The first pass's longest delay: a namespace or the CRD copy is done in well under a second. */
export const FIRST_PASS_MAX_DELAY_MS = 60;

/**
 * `count` kill moments, drawn with `random`: the phases in turn (so that every phase is covered
 * before any repeats), each with a random delay into the phase: on the first pass up to
 * FIRST_PASS_MAX_DELAY_MS, so that short phases are still under way when the kill lands, then up
 * to `maxDelayMs`, anywhere in or after the phase.
 */
export function drawMoments(phases: readonly Phase[], count: number, random: () => number, maxDelayMs = 1500): KillMoment[] {
    const order = [...phases].sort(() => random() - 0.5);
    return Array.from({ length: count }, (_, i) => ({
        phase: order[i % order.length],
        delayMs: Math.round(random() * (i < order.length ? FIRST_PASS_MAX_DELAY_MS : maxDelayMs)),
    }));
}

/**
 * Kills `run` (SIGKILL to the CLI and every process it started, as a machine losing power) at the
 * moment: once its output shows a step of the phase under way, after the delay. A run that ends first is not killed.
 */
export async function killAt(run: PulumiProcess, moment: KillMoment, destroy = false): Promise<KillResult> {
    const t0 = Date.now();
    let ended = false;
    void run.exited.then(() => (ended = true));
    // A destroy has no running-wait: aimed there, it is killed among the policies.
    const target: Phase = destroy && moment.phase === "running-wait" ? "policies" : moment.phase;
    // A step of the phase under way now; failing that (a phase whose steps all end between two
    // looks), a second after the phase was reached. The running-wait has no steps: reached is enough.
    let reachedAt: number | undefined;
    const inPhase = (out: string) => {
        if (target === "running-wait") return reached(out, target);
        if (runState(out).phases.includes(target)) return true;
        if (reachedAt === undefined && reached(out, target)) reachedAt = Date.now();
        return reachedAt !== undefined && Date.now() - reachedAt > 1000;
    };
    while (!ended && !inPhase(run.output())) await sleep(20);
    if (!ended) await sleep(moment.delayMs);
    const state = runState(run.output());
    // Where phases overlap, the kill counts for the one it was aimed at if that one was under way.
    const phaseSeen = state.phases.includes(target) ? target : state.phase;
    const killed = !ended && run.killTree("SIGKILL").length > 0;
    const atMs = Date.now() - t0;
    await run.exited;
    return { killed, atMs, phaseSeen, phases: state.phases, underWay: state.underWay };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How a command run ended: its exit code, all it printed (stdout and stderr) and how long it took. */
export interface CommandRun {
    code: number | null;
    output: string;
    seconds: number;
}

/**
 * `npm run <command> -- <args>` as a user runs it: Node with ts-node on commands/<command>.ts, in a
 * process of its own with the sandbox's environment, started in `cwd` (the repository by default).
 */
export function runCommand(sandbox: PulumiSandbox, command: string, args: string[], cwd = REPO_ROOT): Promise<CommandRun> {
    const t0 = Date.now();
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", path.join(REPO_ROOT, `commands/${command}.ts`), ...args], {
            cwd,
            env: { ...process.env, ...sandbox.env, TS_NODE_PROJECT: path.join(REPO_ROOT, "tsconfig.json") },
            stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.on("data", (d: Buffer) => (output += d.toString()));
        child.stderr.on("data", (d: Buffer) => (output += d.toString()));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, output, seconds: (Date.now() - t0) / 1000 }));
    });
}

/** `npm run recover -- --stack <stack> [--destroy]` in the sandbox's project, as a user runs it. */
export function recover(sandbox: PulumiSandbox, stack: string, opts: { destroy?: boolean } = {}): Promise<CommandRun> {
    return runCommand(sandbox, "recover", ["--stack", stack, "--cwd", sandbox.project, ...(opts.destroy ? ["--destroy"] : [])]);
}

/** The kinds a Kamino stack creates on a member, the host or Karmada (served or not). */
const SCANNED: Array<[string, string, boolean]> = [
    ["v1", "namespaces", false],
    ["v1", "secrets", true],
    ["v1", "configmaps", true],
    ["v1", "serviceaccounts", true],
    ["v1", "services", true],
    ["rbac.authorization.k8s.io/v1", "clusterroles", false],
    ["rbac.authorization.k8s.io/v1", "clusterrolebindings", false],
    ["rbac.authorization.k8s.io/v1", "roles", true],
    ["rbac.authorization.k8s.io/v1", "rolebindings", true],
    ["apps/v1", "deployments", true],
    ["apiextensions.k8s.io/v1", "customresourcedefinitions", false],
    ["intersystems.com/v1alpha1", "irisclusters", true],
    ["policy.karmada.io/v1alpha1", "propagationpolicies", true],
    ["policy.karmada.io/v1alpha1", "clusterpropagationpolicies", false],
    ["policy.karmada.io/v1alpha1", "overridepolicies", true],
    ["policy.karmada.io/v1alpha1", "clustertaintpolicies", false],
    ["config.karmada.io/v1alpha1", "resourceinterpretercustomizations", false],
    ["cluster.karmada.io/v1alpha1", "clusters", false],
    ["work.karmada.io/v1alpha2", "resourcebindings", true],
];

/**
 * What of Kamino's is on an API server: objects it declared (they carry the patch-force
 * annotation, and so do Karmada's copies of them on members), what its Helm releases made and
 * Helm's records of them, and Karmada's Clusters and bindings (only Kamino makes those here).
 */
export async function kaminoObjects(client: KubeClient): Promise<string[]> {
    const found: string[] = [];
    for (const [apiVersion, plural] of SCANNED) {
        let list: (KubeObject & { items?: KubeObject[] }) | undefined;
        try {
            list = await client.get<KubeObject & { items?: KubeObject[] }>(resourcePath(apiVersion, plural));
        } catch {
            continue; // not served here
        }
        for (const o of list?.items ?? []) {
            const md = o.metadata as { name?: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
            const ours =
                md.annotations?.[PATCH_FORCE_ANNOTATION] === "true" ||
                md.labels?.["app.kubernetes.io/managed-by"] === "Helm" ||
                md.labels?.owner === "helm" ||
                plural === "clusters" ||
                plural === "resourcebindings";
            if (ours) found.push(`${plural}/${md.namespace ? `${md.namespace}/` : ""}${md.name}`);
        }
    }
    return found;
}
