// The mirror commands' ports (components/mirror/promote.ts MirrorPorts) on a real stack: the
// Karmada API and the members' API servers through the kubeconfigs of the stack's secret outputs
// (kept in this process, never printed), the stack config through the pulumi CLI, and IRIS
// sessions through the exec API. Used by commands/promote.ts and commands/failback.ts.
import { describeError, kubeRequest } from "../components/live/kube-read";
import { podExec } from "../components/live/pod-exec";
import { memberKubeconfig, Mirror, mirrorConfigOf, mirrorConfigPath, MirrorError, withMirrorField } from "../components/mirror/mirror-state";
import { MirrorPorts, PodLike } from "../components/mirror/promote";
import { pulumiCaptured, StackRef } from "./pulumi-stack";

/** `kamino:irisClusters` as `pulumi config get --json` gives it: `objectValue` when the key is YAML, only `value` when it is one JSON string. */
async function irisClustersConfig(ref: StackRef): Promise<{ list: unknown; yaml: boolean }> {
    const got = JSON.parse(await pulumiCaptured(ref, ["config", "get", "kamino:irisClusters", "--json"])) as { value?: string; objectValue?: unknown };
    return got.objectValue !== undefined ? { list: got.objectValue, yaml: true } : { list: JSON.parse(got.value ?? "[]"), yaml: false };
}

/** The mirror's entry in the stack config now (`pulumi config get kamino:irisClusters --json`). */
export async function readMirrorConfig(ref: StackRef, m: Mirror) {
    return mirrorConfigOf((await irisClustersConfig(ref)).list, m);
}

/**
 * Sets one field of the mirror's entry in the stack config, in the form the key is stored in: `--path`
 * where it is YAML; where it is one JSON string, the whole list written back with the field changed
 * (`--path` would replace that string by the path alone, losing every other entry).
 */
export async function setMirrorField(ref: StackRef, m: Mirror, field: "promoted" | "rejoin", value: string | boolean): Promise<void> {
    const { list, yaml } = await irisClustersConfig(ref);
    if (yaml) {
        mirrorConfigOf(list, m); // still the same entry
        await pulumiCaptured(ref, [
            "config",
            "set",
            "--path",
            mirrorConfigPath(m, field),
            String(value),
            "--type",
            typeof value === "boolean" ? "bool" : "string",
        ]);
    } else {
        await pulumiCaptured(ref, ["config", "set", "kamino:irisClusters", JSON.stringify(withMirrorField(list, m, field, value))]);
    }
}

/** The ports of the promotion, on the stack's outputs (kept in this process). */
export function mirrorPorts(ref: StackRef, outputs: Record<string, unknown>, mirror: () => Mirror, say: (line: string) => void): MirrorPorts {
    const karmada = outputs.karmadaKubeconfig;
    if (typeof karmada !== "string") throw new MirrorError(`the stack has no karmadaKubeconfig output: run pulumi up first`, 1);
    return {
        karmada: (method, path, body, contentType) => kubeRequest(karmada, method, path, body, { contentType }),
        readConfig: () => readMirrorConfig(ref, mirror()),
        setPromoted: async (member) => {
            await setMirrorField(ref, mirror(), "promoted", member);
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
