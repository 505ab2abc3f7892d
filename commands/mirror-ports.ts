// The mirror commands' ports (components/mirror/promote.ts MirrorPorts) on a real stack: the
// Karmada API and the members' API servers through the kubeconfigs of the stack's secret outputs
// (kept in this process, never printed), the stack config through the pulumi CLI, and IRIS
// sessions through the exec API. Used by commands/promote.ts and commands/failback.ts.
import { describeError, kubeRequest } from "../components/live/kube-read";
import { podExec } from "../components/live/pod-exec";
import { memberKubeconfig, Mirror, mirrorConfigOf, mirrorConfigPath, MirrorError } from "../components/mirror/mirror-state";
import { MirrorPorts, PodLike } from "../components/mirror/promote";
import { pulumiCaptured, StackRef } from "./pulumi-stack";

/** The mirror's entry in the stack config now (`pulumi config get kamino:irisClusters --json`). */
export async function readMirrorConfig(ref: StackRef, m: Mirror) {
    const got = JSON.parse(await pulumiCaptured(ref, ["config", "get", "kamino:irisClusters", "--json"])) as { value?: string; objectValue?: unknown };
    return mirrorConfigOf(got.objectValue ?? JSON.parse(got.value ?? "[]"), m);
}

/** The ports of the promotion, on the stack's outputs (kept in this process). */
export function mirrorPorts(ref: StackRef, outputs: Record<string, unknown>, mirror: () => Mirror, say: (line: string) => void): MirrorPorts {
    const karmada = outputs.karmadaKubeconfig;
    if (typeof karmada !== "string") throw new MirrorError(`the stack has no karmadaKubeconfig output: run pulumi up first`, 1);
    return {
        karmada: (method, path, body, contentType) => kubeRequest(karmada, method, path, body, { contentType }),
        readConfig: () => readMirrorConfig(ref, mirror()),
        setPromoted: async (member) => {
            await pulumiCaptured(ref, ["config", "set", "--path", mirrorConfigPath(mirror(), "promoted"), member, "--type", "string"]);
        },
        getPod: async (member, namespace, name) => {
            const res = await kubeRequest(memberKubeconfig(outputs.kubeconfigs, member), "GET", `/api/v1/namespaces/${namespace}/pods/${name}`);
            if (res.status === 404) return undefined;
            if (res.status !== 200)
                throw new MirrorError(`reading pod ${namespace}/${name} on ${member} failed: ${describeError({ code: res.status, body: res.body })}`, 1);
            return JSON.parse(res.body) as PodLike;
        },
        exec: (member, target, command, stdin) => podExec(memberKubeconfig(outputs.kubeconfigs, member))(target, command, stdin, 120_000),
        say,
    };
}
