// Checks of `syncMode`: which clusters may join by Pull, and whether a Pull member's agent can reach
// the Karmada API at all. The agent dials Karmada from inside the member, so an address that only
// this machine can reach (a loopback address, a kind node on the local Docker network) is a config
// error, not a timeout half-way through `up`.
import { serverOf } from "../common/kubeconfig";
import type { CheckContext, CheckedConfig } from "./context";
import { parseEndpoint } from "./karmada-host";
import { Problem } from "./problems";

/** Host names that name the machine itself: reachable from a process here, never from a cluster elsewhere. */
export function isLoopbackHost(host: string): boolean {
    const h = host.replace(/^\[|\]$/g, "").toLowerCase();
    return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The API server host of a kubeconfig's current context, or undefined when the file does not say. */
export function kubeconfigServerHost(text: string): string | undefined {
    try {
        return new URL(serverOf(text)).hostname;
    } catch {
        return undefined;
    }
}

/** `syncMode` is for members; and a Pull member must be able to reach the Karmada API it is given. */
export function checkSyncModes(cfg: CheckedConfig, { input, env }: CheckContext): Problem[] {
    const problems: Problem[] = [];
    const host = cfg.clusters.find((c) => c.karmadaHost);
    const existingPath = cfg.karmada?.existingKubeconfigPath;
    const existingText = existingPath && env.readFile ? safeRead(env.readFile, existingPath) : undefined;
    // The address agents are given: the endpoint when set (karmada-host.ts), else the existing Karmada's kubeconfig server.
    const endpoint = cfg.karmada?.endpoint !== undefined ? parseEndpoint(cfg.karmada.endpoint) : undefined;
    const existingHost = typeof endpoint === "object" ? endpoint.host : existingText ? kubeconfigServerHost(existingText) : undefined;
    const raw = (i: number) => (input.clusters as { syncMode?: unknown }[] | undefined)?.[i]?.syncMode;
    cfg.clusters.forEach((c, i) => {
        const at: Problem["path"] = ["clusters", i, "syncMode"];
        if (c.karmadaHost) {
            if (raw(i) !== undefined)
                problems.push({ path: at, reason: `'${c.name}' hosts Karmada and does not join it`, fix: "remove syncMode from the Karmada host" });
            return;
        }
        if (c.syncMode !== "Pull") return;
        if (existingPath === undefined && host?.provider === "kind" && c.provider === "gke") {
            problems.push({
                path: at,
                reason: `the agent on '${c.name}' (gke) could not reach Karmada: its API runs on the kind cluster '${host.name}' of this machine, reachable only from here and the local Docker network`,
                fix: `join '${c.name}' by Push (Karmada calls it), or host Karmada where the member can reach it (see docs/security.md, "Push and Pull")`,
            });
        }
        if (existingHost !== undefined && isLoopbackHost(existingHost) && c.provider !== "existing") {
            problems.push({
                path: at,
                reason: `the agent on '${c.name}' (${c.provider}) could not reach Karmada at ${existingHost}: that is a loopback address of this machine (kamino:karmada.${cfg.karmada?.endpoint !== undefined ? "endpoint" : "existingKubeconfigPath"})`,
                fix: `give a Karmada kubeconfig whose server the member can reach, or join '${c.name}' by Push`,
            });
        }
    });
    return problems;
}

function safeRead(read: (p: string) => string | undefined, path: string): string | undefined {
    try {
        return read(path);
    } catch {
        return undefined;
    }
}
