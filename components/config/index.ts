// The stack configuration: one typed, validated FleetConfig. Pure: no Pulumi resources, no I/O
// except the optional `pathExists` probe passed in by the caller. The parts live beside this file.
import { CheckedConfig, ConfigEnvironment, CROSS_CHECKS } from "./checks";
import { CONFIG_NAMESPACE } from "./defaults";
import { karmadaTopology } from "./karmada-host";
import { ConfigError, Problem, problemsOfIssue, renderProblems } from "./problems";
import { FleetConfig, KEY_SCHEMAS } from "./schema";
import { readManifests } from "./manifests";
import { secretKeysOf } from "./secrets";
import { z } from "zod";

export { CONFIG_NAMESPACE, DEFAULTS, KAMINO_FEATURE_GATES, MAX_CLUSTER_NAME_LENGTH } from "./defaults";
export type {
    CiliumConfig,
    ClusterConfig,
    ConfigMapConfig,
    ExistingClusterConfig,
    FleetConfig,
    GkeClusterConfig,
    IkoConfig,
    IrisClusterConfig,
    KarmadaConfig,
    KindClusterConfig,
    ManifestConfig,
    ManifestEntryConfig,
    ManifestObject,
    MirrorConfig,
    OverrideConfig,
    IrisPlacementConfig,
    PlacementConfig,
    SecretConfig,
} from "./schema";
export { ConfigError, configKey, describeIssue, lookup, MAX_SHOWN_VALUE, SECRET_PLACEHOLDER, showValue } from "./problems";
export type { ConfigPath, Problem } from "./problems";
export { resolvePlacement } from "./placement";
export { kindNames, resolveFleetPlan } from "./plan";
export type { ClusterPlan, DependencyPlan, FleetPlan, IrisClusterPlan, KarmadaPlan, KindNames, MirrorMemberPlan, MirrorPlan } from "./plan";
export { checkMirrors, drIrisClusterName, MAX_ASYNC_MEMBERS, mirrorNetwork } from "./mirror";
export { checkSyncModes, isLoopbackHost, kubeconfigServerHost } from "./sync-mode";
export { checkKarmadaHost, gkePrivateNodes, karmadaTopology, parseEndpoint } from "./karmada-host";
export type { KarmadaTopology } from "./karmada-host";
export { cidrFamily, isAnyNetwork, isCidr } from "./cidr";
export { checkEtcdBackup, checkEtcdZones, gkeNodeZones, GKE_DEFAULT_REGIONAL_ZONES } from "./karmada-etcd";
export type { Endpoint } from "./karmada-host";
export { checkFailoverPlacements, failoverIrisClusters, failoverMembers } from "./failover";
export { SECRET_KEYS } from "./secrets";
export {
    checkFilesExist,
    checkGkeClusters,
    checkHasMember,
    checkHostCount,
    checkIrisClusters,
    checkKindNameLength,
    checkNamesUnique,
    checkPlacements,
    checkUnknownKeys,
} from "./checks";
export { checkSecrets, checkFollowingSecrets } from "./followers/secrets";
export { checkConfigMaps } from "./followers/config-maps";
export { FOLLOWERS } from "./followers";
export type { DependencyLookup, Follower, FollowerObjects, KarmadaObject, OwnComponent, PropagatedObject } from "./followers";
export {
    checkFollowerObjectsInManifests,
    dependencyLookups,
    describedObjects,
    followerMetadata,
    followerRights,
    forDrMember,
    propagatedObject,
    registry,
} from "./followers/derived";
export type { CheckContext, CheckedConfig, ConfigCheck, ConfigEnvironment } from "./checks";
export {
    checkDependencyReferences,
    dependencyKey,
    dependencyPlacement,
    hasOwnPlacement,
    irisDependencies,
    irisTargets,
    mirrorTargets,
    pairDeclared,
    namedBy,
} from "./dependencies";
export type { DependencyRef } from "./dependencies";
export { apiGroup, BUILT_IN_KINDS, checkManifests, guessResource, kindFacts, manifestObjectId, readManifests } from "./manifests";
export type { KindFacts } from "./manifests";

/**
 * Parses and validates the `kamino:*` stack config.
 *
 * @param raw every config value of the stack, keyed `kamino:<key>` (as `pulumi.runtime.allConfig()`
 *            returns them: JSON text for objects and lists).
 * @throws ConfigError listing every problem found, before any resource exists.
 */
export function loadFleetConfig(raw: Record<string, string>, env: ConfigEnvironment = {}): FleetConfig {
    const input = configInput(raw);
    const problems: Problem[] = [];
    const parsed: Record<string, unknown> = {};
    for (const [short, schema] of Object.entries(KEY_SCHEMAS)) {
        const result = (schema as z.ZodTypeAny).safeParse(input[short]);
        if (result.success) {
            parsed[short] = result.data;
        } else {
            problems.push(...result.error.issues.flatMap((issue) => problemsOfIssue(short, issue)));
        }
    }
    // Cross-key checks need the cluster list; without it, report what the schemas found.
    if (parsed.clusters !== undefined) {
        const cfg = parsed as CheckedConfig;
        problems.push(...CROSS_CHECKS.flatMap((check) => check(cfg, { input, env })));
    }
    if (problems.length > 0) {
        throw new ConfigError(renderProblems(problems, { input, parsed, secretKeys: secretKeysOf(input, env) }));
    }
    const cfg = parsed as unknown as FleetConfig;
    // Where Karmada's state is worth keeping (a highly available Karmada), it is protected unless the
    // stack says otherwise; kind stacks and a single Karmada destroy freely.
    const host = cfg.clusters.find((c) => c.karmadaHost)!;
    cfg.protect = (input.protect as boolean | undefined) ?? karmadaTopology(cfg.karmada, host) === "highlyAvailable";
    if (cfg.manifests.length > 0) {
        // The checks read the files already; this keeps what they read, so the Fleet never reads them.
        if (!env.readFile) throw new Error(`loadFleetConfig needs env.readFile to read ${CONFIG_NAMESPACE}:manifests`);
        cfg.manifests = readManifests(cfg.manifests, env).manifests;
    }
    return cfg;
}

/** Every `kamino:` key of the stack (prefix dropped), its value parsed from JSON where it is JSON. */
function configInput(raw: Record<string, string>): Record<string, unknown> {
    const prefix = `${CONFIG_NAMESPACE}:`;
    // No prototype: keys are user input, and `constructor` or `__proto__` must not look set.
    const input: Record<string, unknown> = Object.create(null);
    for (const [key, text] of Object.entries(raw)) {
        if (!key.startsWith(prefix)) continue;
        try {
            input[key.slice(prefix.length)] = JSON.parse(text);
        } catch {
            input[key.slice(prefix.length)] = text; // plain strings such as kindNamePrefix
        }
    }
    return input;
}
