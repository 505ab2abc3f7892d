// Failback: move a failover-placed IrisCluster back to the first member of its list once that member
// is Ready again. Karmada never does this by itself: its scheduler resumes at the affinity group it
// last observed (the backup's), and a WorkloadRebalancer alone reschedules within that group. So the
// binding's observed group is reset to the first one, then a WorkloadRebalancer asks for a reschedule.
// Not part of `pulumi up`, which must not fight Karmada's placement: a command run on purpose
// (commands/failback.ts, `npm run failback`).
import { ClusterAffinity } from "../../crds";
import { FAILOVER_TAINT } from "./failover";
import { bindingPath } from "../../live/iris-running";
import { describeError, KubeObject } from "../../live/kube-read";
import { poll } from "../../live/poll";
import { IRIS_CLUSTER_API_VERSION, KARMADA_API_VERSIONS, KARMADA_KINDS, KARMADA_PATHS } from "../../crds/karmada-api";

/** How failback talks to the Karmada API; the real one is kubeRequest with the Karmada kubeconfig. */
export type KarmadaRequest = (method: string, path: string, body?: unknown, contentType?: string) => Promise<{ status: number; body: string }>;

/** The parts of a ResourceBinding that failback reads. */
interface Binding extends KubeObject {
    spec?: {
        clusters?: Array<{ name: string }>;
        placement?: { clusterAffinities?: Array<ClusterAffinity & { affinityName: string }> };
        gracefulEvictionTasks?: Array<{ fromCluster: string; creationTimestamp?: string }>;
    };
    status?: { schedulerObservingAffinityName?: string };
}

interface Cluster extends KubeObject {
    spec?: { taints?: Array<{ key: string; effect: string }> };
    status?: { conditions?: Array<{ type: string; status: string }> };
}

/** What failback did. */
export interface FailbackResult {
    /** The first member of the list, where the IrisCluster runs now. */
    member: string;
    /** Where it ran before (the same member when there was nothing to do). */
    from: string[];
    /** False when it already ran on the first member. */
    moved: boolean;
}

/** Failback's own errors: what is not ready yet, and what to do. */
export class FailbackError extends Error {}

async function read<T>(request: KarmadaRequest, path: string, what: string): Promise<T> {
    const res = await request("GET", path);
    if (res.status === 404) throw new FailbackError(`${what} not found in the Karmada API`);
    if (res.status !== 200) throw new FailbackError(`reading ${what}: ${describeError({ code: res.status, body: res.body })}`);
    return JSON.parse(res.body) as T;
}

async function write(request: KarmadaRequest, method: string, path: string, body: unknown, what: string, contentType?: string): Promise<void> {
    const res = await request(method, path, body, contentType);
    if (res.status >= 300) throw new FailbackError(`${what}: ${describeError({ code: res.status, body: res.body })}`);
}

/**
 * Moves the IrisCluster `namespace/name` back to the first member of its failover list, and waits
 * until Karmada has placed it there. Refuses, saying why, while that member is not Ready, still
 * tainted, or still being evicted from.
 */
export async function failback(
    request: KarmadaRequest,
    id: string,
    opts: { timeoutSeconds?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<FailbackResult> {
    const [namespace, name] = id.split("/");
    if (!namespace || !name) throw new FailbackError(`give the IrisCluster as namespace/name, e.g. default/federated-iris (got '${id}')`);
    const path = bindingPath(namespace, name);
    const binding = await read<Binding>(request, path, `the ResourceBinding of IrisCluster ${id}`);
    const first = binding.spec?.placement?.clusterAffinities?.[0];
    const member = first?.clusterNames?.[0];
    if (!first || !member) throw new FailbackError(`IrisCluster ${id} is not placed in failover mode (its policy has no ordered member list)`);
    const from = (binding.spec?.clusters ?? []).map((c) => c.name);
    if (from.length === 1 && from[0] === member) return { member, from, moved: false };

    const cluster = await read<Cluster>(request, KARMADA_PATHS.cluster(member), `Cluster ${member}`);
    const ready = cluster.status?.conditions?.find((c) => c.type === "Ready")?.status;
    if (ready !== "True") throw new FailbackError(`${member} is not Ready in Karmada (Ready=${ready ?? "unknown"}); fail back once it is`);
    if (cluster.spec?.taints?.some((t) => t.key === FAILOVER_TAINT.key && t.effect === FAILOVER_TAINT.effect)) {
        throw new FailbackError(
            `${member} still has the failover taint ${FAILOVER_TAINT.key}:${FAILOVER_TAINT.effect}; Karmada lifts it seconds after the member is Ready, try again then`,
        );
    }
    const evicting = binding.spec?.gracefulEvictionTasks?.find((t) => t.fromCluster === member);
    if (evicting) {
        throw new FailbackError(
            `Karmada is still evicting IrisCluster ${id} from ${member} (since ${evicting.creationTimestamp ?? "?"}); it ends when the old copy there is gone ` +
                "(or after karmada-controller-manager's --graceful-eviction-timeout, 10 min by default): try again then",
        );
    }

    // 1. Resume scheduling at the first group; 2. ask for a reschedule.
    await write(
        request,
        "PATCH",
        `${path}/status`,
        { status: { schedulerObservingAffinityName: first.affinityName } },
        "resetting the binding's affinity group",
        "application/merge-patch+json",
    );
    await write(
        request,
        "POST",
        KARMADA_PATHS.workloadRebalancers,
        {
            apiVersion: KARMADA_API_VERSIONS.apps,
            kind: KARMADA_KINDS.workloadRebalancer,
            metadata: { generateName: `kamino-failback-${name}-` },
            spec: { workloads: [{ apiVersion: IRIS_CLUSTER_API_VERSION, kind: "IrisCluster", namespace, name }], ttlSecondsAfterFinished: 300 },
        },
        "creating the WorkloadRebalancer",
    );
    await poll(
        async () => {
            const now = await read<Binding>(request, path, `the ResourceBinding of IrisCluster ${id}`);
            const clusters = (now.spec?.clusters ?? []).map((c) => c.name);
            return clusters.length === 1 && clusters[0] === member ? true : undefined;
        },
        {
            timeoutSeconds: opts.timeoutSeconds ?? 120,
            intervalSeconds: 1,
            now: opts.now,
            sleep: opts.sleep,
            timeoutError: () =>
                new FailbackError(
                    `Karmada did not move IrisCluster ${id} to ${member} within ${opts.timeoutSeconds ?? 120}s; see kubectl get resourcebinding ${name}-iriscluster -n ${namespace} -o yaml`,
                ),
        },
    );
    return { member, from, moved: true };
}
