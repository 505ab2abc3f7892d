// The program behind index.ts: config in, Fleet built, stack outputs out. A function, so tests
// can run the whole stack from a stack file with mocks.
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { CONFIG_NAMESPACE, ConfigEnvironment, ConfigError, DEFAULTS, FleetConfig, FleetPlan, loadFleetConfig, resolveFleetPlan } from "./config";
import { detectionFlags } from "./karmada/failover/detection";
import { imageTag } from "./karmada/members/pull-agent";
import { CrdReader } from "./karmada/control-plane/crd-mirror";
import { failoverReadiness, FailoverReadinessError, KarmadaProbe, liveKarmadaProbe, needsFailoverReadiness } from "./checks/failover-readiness";
import { forceFieldOwnership } from "./common/field-ownership";
import { Fleet, FleetArgs } from "./fleet";
import { KARMADA_KUBECTL, RunningWaiter } from "./live/iris-running";
import { DiscoveryLookup, liveDiscovery, ManifestKindError, manifestKindProblems, needsManifestKindCheck } from "./checks/manifest-kinds";
import { assertPreflight, PreflightEnvironment, PreflightError, systemPreflightEnvironment } from "./checks/preflight";
import { BackendSources, currentBackendUrl, stateBackendWarning, systemBackendSources } from "./checks/state-backend";

/** How the stack reaches the outside world; every field has a real default. */
export interface KaminoStackOptions extends ConfigEnvironment {
    /** Reads the live IrisCluster CRD; the default polls the host's API server. */
    crdReader?: CrdReader;
    /** Waits for IrisClusters to run on their members; the default polls the Karmada API. */
    runningWaiter?: RunningWaiter;
    /** How preflight reaches this machine (commands, ports, files); the default is the real one. */
    preflight?: Partial<PreflightEnvironment>;
    /** How an existing Karmada is asked whether it can fail over; the default asks the live API servers. */
    karmadaProbe?: (cfg: FleetConfig) => KarmadaProbe;
    /** How `up` reaches Karmada's Works to clean up removed manifests; the default asks its API. */
    karmadaWorks?: FleetArgs["karmadaWorks"];
    /** How an existing Karmada is asked which kinds it serves (for `kamino:manifests`); the default asks its API. */
    karmadaDiscovery?: (cfg: FleetConfig) => DiscoveryLookup;
    /**
     * The version of an existing Karmada, for Pull members' agent image; the default reads the
     * image tag of karmada-controller-manager's Deployment on the host cluster.
     */
    existingKarmadaVersion?: (cfg: FleetConfig) => Promise<string | undefined>;
    /** How `up` reads Karmada's members to refuse a sync-mode change; the default asks its API. */
    liveMembers?: FleetArgs["liveMembers"];
    /** How `up` waits for Pull members' agents; the default polls the Karmada API. */
    agentReadyWaiter?: FleetArgs["agentReadyWaiter"];
    /** Where the state backend's URL is read from; the default is this process's environment and files. */
    backendSources?: BackendSources;
}

/**
 * The program: `kaminoStack`, preceded on `up` by the checks that need live API servers. Errors
 * Kamino raises on purpose (config, preflight, an existing Karmada not set up for failover) end the
 * run as Pulumi RunErrors: their message once, without a stack trace.
 */
export async function kaminoProgram(raw: Record<string, string>, opts: KaminoStackOptions = {}) {
    try {
        const plan = checkedPlan(raw, opts);
        const config = plan.config;
        if (!pulumi.runtime.isDryRun() && needsFailoverReadiness(plan)) {
            const probe = (opts.karmadaProbe ?? liveProbe)(config);
            const { problems, notes } = await failoverReadiness(probe, detectionFlags(config.karmada.failureDetectionSeconds).controllerManager);
            if (problems.length > 0) throw new FailoverReadinessError(problems);
            for (const n of notes) pulumi.log.warn(n);
        }
        if (!pulumi.runtime.isDryRun() && needsManifestKindCheck(plan)) {
            const discover = (opts.karmadaDiscovery ?? ((c: FleetConfig) => liveDiscovery(fs.readFileSync(c.karmada.existingKubeconfigPath!, "utf8"))))(config);
            const problems = await manifestKindProblems(config.manifests, discover);
            if (problems.length > 0) throw new ManifestKindError(problems);
        }
        // Once per run, before anything: a cloud Karmada whose state sits in a file on this machine.
        const backendWarning = stateBackendWarning(currentBackendUrl(opts.backendSources ?? systemBackendSources()), plan.karmada.installsOn);
        if (backendWarning) pulumi.log.warn(backendWarning);
        const existingKarmadaVersion = needsExistingKarmadaVersion(plan)
            ? await (opts.existingKarmadaVersion ?? liveExistingKarmadaVersion)(config)
            : undefined;
        if (needsExistingKarmadaVersion(plan) && !existingKarmadaVersion) throw new ConfigError([agentImageProblem]);
        return buildStack(plan, { ...opts, knownKarmadaVersion: existingKarmadaVersion });
    } catch (e) {
        if (e instanceof ConfigError || e instanceof PreflightError || e instanceof FailoverReadinessError || e instanceof ManifestKindError)
            throw new pulumi.RunError(e.message);
        throw e;
    }
}

/** The live probe of an existing Karmada: its kubeconfig, and the host's when it is an existing cluster. */
function liveProbe(cfg: FleetConfig): KarmadaProbe {
    const host = cfg.clusters.find((c) => c.karmadaHost);
    return liveKarmadaProbe(
        fs.readFileSync(cfg.karmada.existingKubeconfigPath!, "utf8"),
        host?.provider === "existing" ? fs.readFileSync(host.kubeconfigPath, "utf8") : undefined,
    );
}

/**
 * Builds the whole stack from raw `kamino:*` config and returns the fleet, the stack outputs, and
 * a promise the program awaits: on `up`, that every federated IrisCluster runs on its members.
 */
export function kaminoStack(raw: Record<string, string>, opts: KaminoStackOptions = {}) {
    return buildStack(checkedPlan(raw, opts), opts);
}

/** The plan of the validated config, once this machine can run it; throws ConfigError or PreflightError. */
function checkedPlan(raw: Record<string, string>, opts: KaminoStackOptions): FleetPlan {
    const config = loadFleetConfig(raw, {
        pathExists: opts.pathExists ?? ((p) => fs.existsSync(p)),
        readFile: opts.readFile ?? ((p) => fs.readFileSync(p, "utf8")),
        isSecret: opts.isSecret ?? isSecretConfigKey,
    });
    // Before the Fleet, like config errors: a machine that cannot run the stack gets every fix at
    // once and nothing created. Checks that spawn processes wait for `up`.
    const plan = resolveFleetPlan(config);
    assertPreflight(plan, { ...systemPreflightEnvironment(), ...opts.preflight }, { dryRun: pulumi.runtime.isDryRun() });
    return plan;
}

/** True when Pull members need the version of an existing Karmada for their agent's image. */
const needsExistingKarmadaVersion = (plan: FleetPlan) =>
    plan.karmada.source === "existing" && plan.config.karmada.agentImage === undefined && plan.members.some((c) => c.syncMode === "Pull");

const agentImageProblem =
    "kamino:karmada.agentImage is missing: Kamino cannot tell the version of the existing Karmada (no karmada-controller-manager Deployment with a tagged image on the Karmada host), " +
    `and Pull members run its agent at that version; fix: set kamino:karmada.agentImage to the agent image of that version, e.g. ${DEFAULTS.karmadaAgentImage}:v1.18.2`;

/** The existing Karmada's version: the image tag of karmada-controller-manager on the host, when Kamino can read it. */
async function liveExistingKarmadaVersion(cfg: FleetConfig): Promise<string | undefined> {
    const host = cfg.clusters.find((c) => c.karmadaHost);
    if (host?.provider !== "existing") return undefined;
    const image = await liveKarmadaProbe("", fs.readFileSync(host.kubeconfigPath, "utf8")).controllerManagerImage();
    return image ? imageTag(image) : undefined;
}

function buildStack(plan: FleetPlan, opts: KaminoStackOptions & { knownKarmadaVersion?: string }) {
    const config = plan.config;
    const fleet = new Fleet(
        "kamino",
        {
            plan,
            secretValues: secretConfigValues(config, new pulumi.Config(CONFIG_NAMESPACE)),
            crdReader: opts.crdReader,
            runningWaiter: opts.runningWaiter,
            karmadaWorks: opts.karmadaWorks,
            existingKarmadaVersion: opts.knownKarmadaVersion,
            liveMembers: opts.liveMembers,
            agentReadyWaiter: opts.agentReadyWaiter,
        },
        // Kamino's config is the truth for the objects it declares: after a killed run or a hand
        // edit, `pulumi up` takes their fields back (components/common/field-ownership.ts).
        { transforms: [forceFieldOwnership] },
    );
    const outputs = {
        clusters: fleet.clusterSummaries,
        kubeconfigs: fleet.kubeconfigs,
        karmadaKubeconfig: fleet.karmada.kubeconfig,
        karmadaEndpoint: fleet.karmada.server,
        karmadaHost: fleet.hostName,
        members: Object.keys(fleet.members),
        irisClusters: Object.fromEntries(Object.entries(fleet.irisClusters).map(([id, f]) => [id, f.targetClusters])),
        syncedSecrets: fleet.secretSync?.targets ?? {},
        configMaps: fleet.configMaps?.targets ?? {},
        manifests: fleet.manifests?.targets ?? {},
        mirrors: mirrorOutputs(plan),
        commands: checkCommands(plan),
    };
    return { config, plan, fleet, outputs, running: fleet.running };
}

/** Each IRIS mirror (`namespace/name`): its members' roles and IrisClusters, for `npm run promote`, `failback` and `status`. */
export function mirrorOutputs(plan: FleetPlan) {
    return Object.fromEntries(
        plan.irisClusters.flatMap((ic) =>
            ic.mirror
                ? [
                      [
                          ic.id,
                          {
                              name: ic.mirror.name,
                              primary: ic.mirror.pair.member,
                              pair: ic.mirror.pair.irisClusterName,
                              drAsync: Object.fromEntries(ic.mirror.drAsync.map((d) => [d.member, d.irisClusterName])),
                              ...(ic.mirror.config.promoted ? { promoted: ic.mirror.config.promoted } : {}),
                              ...(ic.mirror.config.rejoin ? { rejoin: true } : {}),
                              configIndex: ic.mirror.configIndex,
                          },
                      ],
                  ]
                : [],
        ),
    );
}

/** Reads every secret config key the fleet config references, as secret outputs. */
export function secretConfigValues(cfg: FleetConfig, config: pulumi.Config): Record<string, pulumi.Output<Record<string, string>>> {
    const keys = new Set([...cfg.secrets.map((s) => s.fromConfig), ...(cfg.iko.imagePullSecretFromConfig ? [cfg.iko.imagePullSecretFromConfig] : [])]);
    return Object.fromEntries([...keys].map((k) => [k, config.requireSecretObject<Record<string, string>>(k)]));
}

/** Commands (kubectl, kind, pulumi) a user can paste to see what the stack did. */
export function checkCommands(plan: FleetPlan): Record<string, string> {
    const kubeconfigOf = (name: string) => {
        const c = plan.clusters.find((x) => x.name === name)!;
        return c.kind
            ? `kind get kubeconfig --name ${c.kind.clusterName} > ${name}.kubeconfig`
            : `pulumi stack output kubeconfigs --show-secrets --json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8"))["${name}"])' > ${name}.kubeconfig`;
    };
    const karmada = KARMADA_KUBECTL;
    const members = plan.members;
    const out: Record<string, string> = {
        "1-karmada-kubeconfig": "pulumi stack output karmadaKubeconfig --show-secrets > karmada.kubeconfig",
        "2-members-ready": `${karmada} get clusters`,
        "3-templates": `${karmada} get irisclusters -A`,
        "4-placement-and-health": `${karmada} get resourcebindings -A -o custom-columns=NAME:.metadata.name,CLUSTERS:.spec.clusters[*].name,HEALTH:.status.aggregatedStatus[*].health`,
    };
    members.forEach((m, i) => {
        out[`${5 + i}-on-${m.name}`] = `${kubeconfigOf(m.name)} && kubectl --kubeconfig ${m.name}.kubeconfig get irisclusters -A`;
    });
    return out;
}

/**
 * True when a config key holds a Pulumi secret. The SDK knows (runtime.isConfigSecret) but
 * marks the function internal, so it is reached through a narrow cast.
 */
export function isSecretConfigKey(key: string): boolean {
    const runtime = pulumi.runtime as unknown as { isConfigSecret?: (k: string) => boolean };
    // An SDK without the function cannot tell; then the check is skipped rather than failing every stack.
    return runtime.isConfigSecret ? runtime.isConfigSecret(key) : true;
}
