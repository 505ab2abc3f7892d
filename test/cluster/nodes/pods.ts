// Running a pod to its end on a real-node cluster and reading what it printed (through the API
// server and the node's kubelet, as `kubectl logs` does).
import { KubeClient, KubeObject, resourcePath } from "../harness/kube-client";
import { waitFor } from "../harness/wait";

export interface PodStatus {
    phase?: string;
    podIP?: string;
    hostIP?: string;
    initContainerStatuses?: { name: string; state?: Record<string, unknown>; restartCount?: number }[];
    containerStatuses?: { name: string; ready?: boolean; state?: Record<string, unknown>; restartCount?: number }[];
}
export type Pod = KubeObject & { spec?: { nodeName?: string }; status?: PodStatus };

/** The pod, or undefined. */
export const getPod = (client: KubeClient, namespace: string, name: string) => client.get<Pod>(resourcePath("v1", "pods", { namespace, name }));

/** Waits until the pod's phase is one of `phases`; returns the pod. */
export async function waitForPodPhase(client: KubeClient, namespace: string, name: string, phases: string[], timeoutMs: number): Promise<Pod> {
    return waitFor(
        `pod ${namespace}/${name} ${phases.join(" or ")}`,
        async () => {
            const pod = await getPod(client, namespace, name);
            if (pod && phases.includes(pod.status?.phase ?? "")) return pod;
            throw new Error(
                `phase ${pod?.status?.phase ?? "(no pod)"}: ${JSON.stringify(pod?.status?.containerStatuses ?? pod?.status?.initContainerStatuses ?? [])}`.slice(
                    0,
                    400,
                ),
            );
        },
        { timeoutMs, intervalMs: 500 },
    );
}

/** A container's log (its last `tailLines`, if given). */
export async function podLogs(client: KubeClient, namespace: string, name: string, container?: string): Promise<string> {
    const q = container ? `?container=${encodeURIComponent(container)}` : "";
    const res = await client.request("GET", `${resourcePath("v1", "pods", { namespace, name, subresource: "log" })}${q}`);
    if (res.status !== 200) throw new Error(`logs of ${namespace}/${name}: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
    return res.body;
}
