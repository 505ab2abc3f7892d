// Running a command in a pod through the Kubernetes exec API (`pods/exec` over a WebSocket), as
// `kubectl exec -i` does, with @kubernetes/client-node's Exec: the kubeconfig's credentials work as
// in kube-read.ts, and nothing goes on a command line. stdin is sent whole and then closed (the
// v5.channel.k8s.io protocol of Kubernetes 1.30+ can close it; on older servers the program must end
// by itself, as an IRIS session does at `halt`). Used by `npm run promote` (components/mirror/).
import type * as KubeClient from "@kubernetes/client-node";
import { Readable, Writable } from "stream";

/** Where to run: a pod and one of its containers. */
export interface ExecTarget {
    namespace: string;
    pod: string;
    container: string;
}

/** What the command did: its output, and the exit code the API reported (null when it reported none). */
export interface ExecResult {
    stdout: string;
    stderr: string;
    exitCode: number | null;
}

/** Runs one command with `stdin` in a pod; rejects when the exec cannot start or does not end within `timeoutMs`. */
export type PodExec = (target: ExecTarget, command: string[], stdin: string, timeoutMs?: number) => Promise<ExecResult>;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadClient = () => Promise.resolve().then(() => require("@kubernetes/client-node") as typeof KubeClient);

/** A sink that keeps what is written to it. */
function collector(): { stream: Writable; text: () => string } {
    const chunks: Buffer[] = [];
    const stream = new Writable({
        write(chunk: Buffer, _enc, done) {
            chunks.push(Buffer.from(chunk));
            done();
        },
    });
    return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

/** The exit code in the status the exec API ends with: 0 on Success, the ExitCode cause on failure. */
export function exitCodeOf(status: { status?: string; details?: { causes?: Array<{ reason?: string; message?: string }> } } | undefined): number | null {
    if (!status) return null;
    if (status.status === "Success") return 0;
    const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
    const code = cause?.message === undefined ? NaN : Number(cause.message);
    return Number.isInteger(code) ? code : null;
}

/** An exec through a kubeconfig (the member's, from the stack's secret output; it never leaves this process). */
export function podExec(kubeconfigText: string): PodExec {
    return async (target, command, stdin, timeoutMs = 60_000) => {
        const k = await loadClient();
        const kc = new k.KubeConfig();
        kc.loadFromString(kubeconfigText);
        const out = collector();
        const err = collector();
        let status: Parameters<typeof exitCodeOf>[0];
        // The library rejects with a WebSocket ErrorEvent (not an Error) when the connection fails.
        const ws = await new k.Exec(kc)
            .exec(target.namespace, target.pod, target.container, command, out.stream, err.stream, Readable.from([Buffer.from(stdin)]), false, (s) => {
                status = s as typeof status;
            })
            .catch((e: unknown) => {
                throw new Error(`exec in ${target.namespace}/${target.pod}: ${(e as { message?: string }).message ?? String(e)}`);
            });
        await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => {
                ws.close();
                reject(new Error(`${command[0]} in ${target.namespace}/${target.pod} did not end within ${Math.round(timeoutMs / 1000)} s`));
            }, timeoutMs);
            ws.on("close", () => {
                clearTimeout(timer);
                resolve();
            });
            ws.on("error", (e: Error) => {
                clearTimeout(timer);
                reject(e);
            });
        });
        return { stdout: out.text(), stderr: err.text(), exitCode: exitCodeOf(status) };
    };
}
