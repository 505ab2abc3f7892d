// The stack config every cluster test runs: the loopback fleet's clusters declared `existing`,
// the harness's Karmada, the stand-in IKO chart, and the dev stack's federated-iris placed on every
// member (or another stack file's IrisClusters as placed there), plus one synced Secret.
import * as fs from "fs";
import * as YAML from "yaml";
import { EngineSandbox } from "../support/engine";
import { LoopbackFleet } from "./harness";

export const LICENSE = "IRIS-LICENSE-FOR-TESTS";
/** The image the suites' own IrisClusters name (IKO is played: it is never pulled). */
export const IRIS_IMAGE = "containers.intersystems.com/intersystems/iris:2025.1";

/** How a loopback stack differs from the default. */
export interface LoopbackStackOptions {
    /** Kubeconfig of the host, if not its admin one. */
    hostKubeconfig?: string;
    runningTimeoutSeconds?: number;
    /**
     * Take the IrisClusters from this stack file with their placement as written (the fleet's
     * members must have the names it uses), e.g. Pulumi.dr.yaml's failover over ikoclone and ikodr.
     * Default: Pulumi.dev.yaml's, placed on every member.
     */
    irisClustersFrom?: string;
    /**
     * Member names of that stack file played by other members of the fleet, e.g. `{ ikodr: "ikoclone2" }`
     * on the shared two-member fleet: placements name the fleet's member instead.
     */
    playedBy?: Record<string, string>;
    /**
     * The IrisClusters name the synced Secret as their license (`licenseKeySecret`), so it is one
     * of their dependencies: it sits in their namespace and goes only where they go. Default: a
     * fleet-wide Secret in `iris` that no IrisCluster names.
     */
    licensed?: boolean;
    /** Members that join in another sync mode than Push, e.g. `{ ikoclone2: "Pull" }`. */
    syncModes?: Record<string, "Push" | "Pull">;
    /** `kamino:karmada.endpoint`: reach Karmada there (the harness's load balancer), not at its kubeconfig's 127.0.0.1. */
    karmadaEndpoint?: string;
    /** Members declared with another kubeconfig than their admin one, e.g. a MemberFront's: Kamino and Karmada dial it. */
    memberKubeconfigs?: Record<string, string>;
    /**
     * `kamino:karmada` in full, for a Karmada Kamino installs (its chart from a repository on loopback)
     * instead of the fleet's running one.
     */
    karmada?: Record<string, unknown>;
    /** Members' `apiEndpoint`: where Karmada's controllers reach them, when not at their kubeconfig's 127.0.0.1 (e.g. from a pod). */
    apiEndpoints?: Record<string, string>;
}

/** The synced license Secret of a loopback stack: `namespace/name`. */
export const licenseSecretId = (opts: Pick<LoopbackStackOptions, "licensed"> = {}) => `${opts.licensed ? "default" : "iris"}/iris-key-secret`;

/**
 * The clusters a loopback stack declares: a LoopbackFleet's, or its host and Karmada with other
 * members (real nodes'); no Karmada kubeconfig when the stack installs Karmada itself.
 */
export type StackClusters = Pick<LoopbackFleet, "hostKubeconfig"> & {
    host: { name: string };
    members: Array<{ name: string; kubeconfig: string }>;
    karmadaKubeconfig?: string;
};

/**
 * The keys that make a stack of a loopback fleet's API servers as existing clusters, Karmada's
 * existing control plane, the fixture IKO chart and no Helm waits (no pods run on loopback); a suite
 * adds its own objects.
 */
export function existingFleetKeys(fleet: StackClusters): Record<string, unknown> {
    return {
        "kamino:clusters": [
            { name: fleet.host.name, provider: "existing", karmadaHost: true, kubeconfigPath: fleet.hostKubeconfig },
            ...fleet.members.map((m) => ({ name: m.name, provider: "existing", kubeconfigPath: m.kubeconfig })),
        ],
        "kamino:karmada": { existingKubeconfigPath: fleet.karmadaKubeconfig },
        "kamino:iko": { chartPath: "./iris-operator", crdWaitSeconds: 120 },
        "kamino:testing": { skipAwait: true },
    };
}

/** A stack of the sandbox's project on the loopback fleet. */
export async function loopbackStack(sandbox: EngineSandbox, fleet: StackClusters, name: string, opts: LoopbackStackOptions = {}) {
    const dev = YAML.parse(fs.readFileSync(opts.irisClustersFrom ?? "Pulumi.dev.yaml", "utf8")).config;
    const [secretNamespace, secretName] = licenseSecretId(opts).split("/");
    const stack = await sandbox.stack(name, undefined, {
        "kamino:clusters": [
            { name: fleet.host.name, provider: "existing", karmadaHost: true, kubeconfigPath: opts.hostKubeconfig ?? fleet.hostKubeconfig },
            ...fleet.members.map((m) => ({
                name: m.name,
                provider: "existing",
                kubeconfigPath: opts.memberKubeconfigs?.[m.name] ?? m.kubeconfig,
                labels: { lab: "loopback" },
                ...(opts.syncModes?.[m.name] ? { syncMode: opts.syncModes[m.name] } : {}),
                ...(opts.apiEndpoints?.[m.name] ? { apiEndpoint: opts.apiEndpoints[m.name] } : {}),
            })),
        ],
        "kamino:karmada": opts.karmada ?? {
            existingKubeconfigPath: fleet.karmadaKubeconfig,
            ...(opts.karmadaEndpoint ? { endpoint: opts.karmadaEndpoint } : {}),
        },
        "kamino:iko": { chartPath: "./iris-operator", crdWaitSeconds: 120 },
        // No nodes run pods here: Helm must not wait for the operator's pod.
        "kamino:testing": { skipAwait: true },
        "kamino:irisClusters": dev["kamino:irisClusters"].map((i: Record<string, unknown>) => ({
            ...i,
            ...(opts.irisClustersFrom
                ? i.placement
                    ? { placement: playedBy(i.placement as Record<string, unknown>, opts.playedBy ?? {}) }
                    : {}
                : { placement: { clusterLabels: { lab: "loopback" } } }),
            runningTimeoutSeconds: opts.runningTimeoutSeconds ?? 180,
            ...(opts.licensed ? { licenseKeySecret: secretName } : {}),
        })),
        "kamino:secrets": [{ name: secretName, namespace: secretNamespace, fromConfig: "irisLicense" }],
    });
    await setLicense(stack, LICENSE);
    return stack;
}

/** A placement whose `clusterNames` name the fleet's members that play the stack file's clusters. */
function playedBy(placement: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
    const clusterNames = placement.clusterNames as string[] | undefined;
    return clusterNames ? { ...placement, clusterNames: clusterNames.map((n) => names[n] ?? n) } : placement;
}

/** Sets (or rotates) the synced license Secret's value. */
export async function setLicense(stack: Awaited<ReturnType<EngineSandbox["stack"]>>, value: string): Promise<void> {
    await stack.setConfig("kamino:irisLicense", { value: JSON.stringify({ "iris.key": value }), secret: true });
}
