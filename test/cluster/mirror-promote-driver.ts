// Runs `npm run promote`'s code in a process of its own for test/cluster/mirror-promote-pod.test.ts:
// @kubernetes/client-node 2 is an ES module, which Node's require loads and jest's runtime does not,
// so the exec path runs here, under Node, as the command runs it. Reads one JSON request on stdin,
// prints one JSON answer: the command's own ports (commands/mirror-ports.ts: the pod read and exec
// through the member kubeconfig), with the Karmada API and the stack config as fakes it is handed.
import * as fs from "fs";
import { mirrorPorts } from "../../commands/mirror-ports";
import { podExec } from "../../components/live/pod-exec";
import { MirrorConfig, MirrorError, parseMirrors } from "../../components/mirror/mirror-state";
import { MirrorPorts, promote } from "../../components/mirror/promote";

/** What the test asks for. */
export interface DriverRequest {
    kubeconfigPath: string;
    /** `exec`: one command in the pod; `promote`: the promotion of ikodr in default/iris. */
    action: "exec" | "promote";
    command?: string[];
    stdin?: string;
    primaryReady?: string;
    config?: MirrorConfig;
    pairPresent?: boolean;
    /** `npm run promote --planned`. */
    planned?: boolean;
}

/** What it answers. */
export interface DriverAnswer {
    exec?: { stdout: string; stderr: string; exitCode: number | null };
    result?: { promoted: boolean; status: string };
    error?: { code: number | string; message: string };
    changes: string[];
    said: string[];
    config: MirrorConfig;
    pairPresent: boolean;
    ms: number;
}

export const MIRRORS = parseMirrors({
    "default/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 0 },
});
export const TARGET = { namespace: "default", pod: "iris-ikodr-data-0", container: "iris" };

async function main(req: DriverRequest): Promise<DriverAnswer> {
    const kubeconfig = fs.readFileSync(req.kubeconfigPath, "utf8");
    const a: DriverAnswer = { changes: [], said: [], config: { ...(req.config ?? {}) }, pairPresent: req.pairPresent ?? true, ms: 0 };
    const t0 = Date.now();
    if (req.action === "exec") {
        a.exec = await podExec(kubeconfig)(TARGET, req.command ?? [], req.stdin ?? "");
    } else {
        const real = mirrorPorts(
            { stack: "unused" },
            { karmadaKubeconfig: "unused", kubeconfigs: { ikodr: kubeconfig } },
            () => MIRRORS[0],
            (l) => a.said.push(l),
        );
        let policy = a.pairPresent;
        const karmada: MirrorPorts["karmada"] = async (method, path) => {
            if (method === "GET" && path.endsWith("/clusters/ikoclone"))
                return { status: 200, body: JSON.stringify({ status: { conditions: [{ type: "Ready", status: req.primaryReady ?? "False" }] } }) };
            if (path.endsWith("/irisclusters/iris") && a.pairPresent) {
                if (method === "DELETE") {
                    a.pairPresent = false;
                    a.changes.push("DELETE IrisCluster iris");
                    // What Karmada's deletion does to a running pair: its primary stops (the stand-in's mark).
                    await podExec(kubeconfig)(TARGET, ["sh", "-c", "echo 1 > /irissys/pair-gone"], "");
                }
                return { status: 200, body: JSON.stringify({ metadata: { name: "iris" } }) };
            }
            if (method === "DELETE" && path.endsWith("/propagationpolicies/iris-propagate") && policy) {
                policy = false;
                a.changes.push("DELETE policy");
                return { status: 200, body: "{}" };
            }
            return { status: 404, body: "{}" };
        };
        const ports: MirrorPorts = {
            ...real,
            karmada,
            readConfig: async () => ({ ...a.config }),
            setPromoted: async (m) => void ((a.config.promoted = m), a.changes.push(`config promoted=${m}`)),
        };
        try {
            a.result = await promote(
                ports,
                MIRRORS,
                "dr",
                { id: "default/iris", to: "ikodr", planned: req.planned ?? false },
                { intervalSeconds: 1, timeoutSeconds: 60 },
            );
        } catch (e) {
            a.error = { code: e instanceof MirrorError ? e.code : "unexpected", message: (e as Error).message };
        }
    }
    a.ms = Date.now() - t0;
    return a;
}

if (require.main === module) {
    main(JSON.parse(fs.readFileSync(0, "utf8")) as DriverRequest).then(
        (a) => process.stdout.write(JSON.stringify(a)),
        (e: unknown) => {
            process.stderr.write(`driver: ${(e as Error).stack ?? String(e)}\n`);
            process.exit(1);
        },
    );
}
