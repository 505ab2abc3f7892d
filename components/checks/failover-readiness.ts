// Whether a Karmada that Kamino did not install can run failover placement. Kamino sets Karmada's
// failover flags itself when it installs the chart; an existing control plane is configured by its
// owner, and a ClusterTaintPolicy it is not set up for would never fire. Checked on `up`, before any
// resource exists, so that the user learns which flag is missing instead of finding out in an outage.
import { FleetPlan, KAMINO_FEATURE_GATES } from "../config";
import { ClusterTaintPolicy } from "../crds";
import {
    commandArgs,
    FAILOVER_CONTROLLER_ARGS,
    FAILOVER_FEATURE_GATES,
    FAILOVER_TAINT_POLICY_NAME,
    FAILOVER_WEBHOOK_ARGS,
    failoverTaintPolicySpec,
} from "../karmada/failover/failover";
import { RETURN_FLAGS } from "../karmada/failover/detection";
import { describeError, kubeRequest } from "../live/kube-read";

/** What the check asks the live control plane; injected so that tests can answer. */
export interface KarmadaProbe {
    /** Server-side dry-run create of Kamino's ClusterTaintPolicy: the status and body of the answer. */
    dryRunTaintPolicy: () => Promise<{ status: number; body: string }>;
    /** The command line (command and args) of karmada-controller-manager, or undefined when Kamino cannot see it. */
    controllerManagerCommand: () => Promise<string[] | undefined>;
    /** The image of karmada-controller-manager (its tag is Karmada's version), or undefined when Kamino cannot see it. */
    controllerManagerImage: () => Promise<string | undefined>;
}

/** The outcome: problems stop `up`; notes are warnings (what Kamino could not verify). */
export interface FailoverReadiness {
    problems: string[];
    notes: string[];
}

/** Thrown when an existing Karmada is not set up for failover; one line per missing setting. */
export class FailoverReadinessError extends Error {
    constructor(public readonly problems: string[]) {
        super(
            `The existing Karmada (kamino:karmada.existingKubeconfigPath) is not set up for failover placement; nothing was created:\n` +
                problems.map((p) => `  - ${p}`).join("\n") +
                "\nSee docs/disaster-recovery.md, 'An existing Karmada'.",
        );
        this.name = "FailoverReadinessError";
    }
}

/**
 * Gates failover placement needs in karmada-controller-manager, with the binary's default: Failover
 * is off unless set; PropagateDeps (application failover requires `propagateDeps`, and an
 * IrisCluster's Secrets follow it through it) is on unless turned off, as Karmada's chart does.
 */
const REQUIRED_GATES: Readonly<Record<string, { defaultOn: boolean }>> = {
    ...Object.fromEntries(Object.keys(KAMINO_FEATURE_GATES).map((g) => [g, { defaultOn: g === "PropagateDeps" }])),
    ...Object.fromEntries(Object.keys(FAILOVER_FEATURE_GATES).map((g) => [g, { defaultOn: false }])),
};

/** `--flag=value` arguments as a map; a later occurrence wins, as in Go's flag parsing. */
function flagValues(command: string[]): Map<string, string> {
    const values = new Map<string, string>();
    for (const a of command) {
        const m = /^--?([\w-]+)=(.*)$/.exec(a);
        if (m) values.set(m[1], m[2]);
    }
    return values;
}

/**
 * Settings of karmada-controller-manager that `command` lacks: each required gate true in a
 * `--feature-gates` list (a later flag wins, as in Go's flag parsing) or on by default, and each
 * failover flag.
 */
export function missingControllerSettings(command: string[]): string[] {
    const values = flagValues(command);
    // Every --feature-gates list adds to the gates (a later value of a gate wins), unlike plain flags.
    const gates = new Map<string, string>();
    for (const a of command.filter((x) => /^--?feature-gates=/.test(x))) {
        for (const kv of a.replace(/^--?feature-gates=/, "").split(",")) gates.set(kv.split("=")[0].trim(), (kv.split("=")[1] ?? "").trim());
    }
    return [
        ...Object.entries(REQUIRED_GATES)
            .filter(([g, { defaultOn }]) => !(gates.get(g) === "true" || (defaultOn && !gates.has(g))))
            .map(([g]) => `--feature-gates=${g}=true`),
        ...Object.entries(FAILOVER_CONTROLLER_ARGS)
            .filter(([k, v]) => values.get(k) !== v)
            .map(([k, v]) => `--${k}=${v}`),
    ];
}

/**
 * The flags of `detection` (karmada/failover/detection.ts) that `command` sets otherwise, or not at all, as
 * `--flag=value` (the later of repeated flags wins, as in Go's flag parsing).
 */
export function detectionMismatches(command: string[], detection: Readonly<Record<string, string>>): string[] {
    const values = flagValues(command);
    return Object.entries(detection)
        .filter(([k, v]) => values.get(k) !== v)
        .map(([k, v]) => `--${k}=${v}`);
}

/**
 * Asks the probe what an existing Karmada allows and runs, and says what is missing for failover;
 * detection flags other than `detection` (kamino:karmada.failureDetectionSeconds) are a note: the
 * owner's Karmada may detect slower or faster than the stack says, and failover still works.
 */
export async function failoverReadiness(probe: KarmadaProbe, detection: Readonly<Record<string, string>> = {}): Promise<FailoverReadiness> {
    const problems: string[] = [];
    const notes: string[] = [];
    const dryRun = await probe.dryRunTaintPolicy();
    if (dryRun.status === 403 || dryRun.status === 400 || dryRun.status === 422) {
        const why = describeError({ code: dryRun.status, body: dryRun.body });
        problems.push(
            /NoExecute/.test(dryRun.body)
                ? `karmada-webhook refuses NoExecute taints (${why}). Fix: start karmada-webhook with ${commandArgs(FAILOVER_WEBHOOK_ARGS).join(" ")}`
                : `Karmada refuses Kamino's ClusterTaintPolicy (${why}). Fix: see docs/disaster-recovery.md`,
        );
    } else if (dryRun.status === 404) {
        problems.push("the Karmada API serves no ClusterTaintPolicy (Karmada older than v1.14). Fix: upgrade Karmada to v1.14 or later");
    } else if (dryRun.status >= 300) {
        problems.push(`the dry-run create of a ClusterTaintPolicy failed: ${describeError({ code: dryRun.status, body: dryRun.body })}`);
    }
    const command = await probe.controllerManagerCommand();
    const settings = [...Object.keys(FAILOVER_FEATURE_GATES).map((g) => `--feature-gates=${g}=true`), ...commandArgs(FAILOVER_CONTROLLER_ARGS)];
    if (command === undefined) {
        notes.push(
            `Kamino cannot see karmada-controller-manager's command line (no Deployment running it on the Karmada host); ` +
                `failover fires only if it runs with ${settings.join(" ")}`,
        );
    } else {
        const missing = missingControllerSettings(command);
        if (missing.length > 0)
            problems.push(`karmada-controller-manager runs without ${missing.join(" ")}. Fix: add ${missing.length > 1 ? "them" : "it"} to its command line`);
        const differ = detectionMismatches(command, detection);
        const isReturn = (f: string) => RETURN_FLAGS.some((k) => f.startsWith(`--${k}=`));
        const slower = differ.filter((f) => !isReturn(f));
        if (slower.length > 0) {
            notes.push(
                `karmada-controller-manager does not run with the failure detection of kamino:karmada.failureDetectionSeconds (${slower.join(" ")}); ` +
                    "Kamino does not configure a Karmada it did not install, so members are marked not Ready on its own schedule",
            );
        }
        const back = differ.filter(isReturn);
        if (back.length > 0) {
            notes.push(
                `karmada-controller-manager does not run with ${back.join(" ")}: a Push member that answers again after being marked not Ready ` +
                    "stays not Ready for its own --cluster-success-threshold (30 s by default), so an outage that failoverAfterSeconds should absorb " +
                    "can move IrisClusters anyway (docs/disaster-recovery.md, the bound); Kamino does not configure a Karmada it did not install",
            );
        }
    }
    return { problems, notes };
}

type Container = { name?: string; image?: string; command?: string[]; args?: string[] };
type Deployment = { metadata?: { namespace?: string; name?: string }; spec?: { template?: { spec?: { containers?: Container[] } } } };

/** karmada-controller-manager's container among the host's Deployments (any namespace), if Kamino can see it. */
async function controllerManagerContainer(hostKubeconfig: string | undefined): Promise<Container | undefined> {
    if (!hostKubeconfig) return undefined;
    const res = await kubeRequest(hostKubeconfig, "GET", "/apis/apps/v1/deployments");
    if (res.status !== 200) return undefined;
    const items = (JSON.parse(res.body) as { items?: Deployment[] }).items ?? [];
    for (const d of items) {
        for (const c of d.spec?.template?.spec?.containers ?? []) {
            const line = [...(c.command ?? []), ...(c.args ?? [])];
            if (c.name === "karmada-controller-manager" || line.some((a) => /(^|\/)karmada-controller-manager$/.test(a))) return c;
        }
    }
    return undefined;
}

/**
 * The real probe: the dry run goes to the Karmada API; the controller manager's command line is
 * read from the Deployment that runs it on the host cluster (any namespace), when the host's
 * kubeconfig is known.
 */
export function liveKarmadaProbe(karmadaKubeconfig: string, hostKubeconfig: string | undefined): KarmadaProbe {
    return {
        dryRunTaintPolicy: () =>
            kubeRequest(karmadaKubeconfig, "POST", `/apis/${ClusterTaintPolicy.apiVersion}/clustertaintpolicies?dryRun=All`, {
                apiVersion: ClusterTaintPolicy.apiVersion,
                kind: ClusterTaintPolicy.kind,
                metadata: { name: `${FAILOVER_TAINT_POLICY_NAME}-dry-run` },
                spec: failoverTaintPolicySpec(["kamino-dry-run"]),
            }),
        controllerManagerCommand: async () => {
            const c = await controllerManagerContainer(hostKubeconfig);
            return c ? [...(c.command ?? []), ...(c.args ?? [])] : undefined;
        },
        controllerManagerImage: async () => (await controllerManagerContainer(hostKubeconfig))?.image,
    };
}

/** True when the config needs the check: failover placement on a Karmada that Kamino did not install. */
export const needsFailoverReadiness = (plan: FleetPlan) => plan.karmada.source === "existing" && plan.failover;
