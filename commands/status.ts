// npm run status -- [--stack <stack>] [--watch] [--json]
//
// One screen of the fleet, read live from the Karmada API: each member (sync mode, Ready since when,
// taints, Kubernetes version), each IrisCluster of the stack (placement, where Karmada scheduled it,
// IKO's phase on each member, its dependencies there) and Karmada's recent moves. `--watch` redraws
// when something changes (a read every 2 s); `--json` prints FleetStatus (components/live/fleet-status.ts).
// Exit code: 0 when every IrisCluster runs where its placement wants it, 1 otherwise or when the fleet
// cannot be read (one line saying why, with the fix), 2 on a usage error or a stack that does not exist.
// The stack's outputs, the Karmada kubeconfig among them, are read through `pulumi stack output
// --show-secrets` in this process: never on a command line or on disk.
import { execFile } from "child_process";
import * as YAML from "yaml";
import { exitCodeOf, FleetStatus, readFleetStatus, StackOutputs, StatusError } from "../components/live/fleet-status";
import { kubeRequest } from "../components/live/kube-read";
import { noSuchStackMessage, notBroughtUpMessage, renderStatus, STATUS_USAGE, unreachableMessage, useColor, watchKey } from "../components/live/status-view";

interface Options {
    stack?: string;
    watch: boolean;
    json: boolean;
}

/** A failure that ends the command with one line and an exit code. */
class Stop extends Error {
    constructor(
        message: string,
        readonly code: 1 | 2,
    ) {
        super(message);
    }
}

function parseArgs(argv: string[]): Options {
    const o: Options = { watch: false, json: false };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === "--stack" || a === "-s") {
            o.stack = argv[++i];
            if (!o.stack || o.stack.startsWith("-")) throw new Stop(`--stack needs a stack name\n${STATUS_USAGE}`, 2);
        } else if (a === "--watch" || a === "-w") o.watch = true;
        else if (a === "--json") o.json = true;
        else throw new Stop(`unknown argument ${a}\n${STATUS_USAGE}`, 2);
    }
    return o;
}

/** Runs pulumi with its output captured (never shown: it holds secrets); rejects with its first error line. */
function pulumi(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
        execFile("pulumi", [...args, "--non-interactive"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
            if (!err) return resolve(stdout);
            const line = stderr.split("\n").find((l) => l.startsWith("error:")) ?? stderr.trim().split("\n")[0] ?? "";
            reject(new Error((err as NodeJS.ErrnoException).code === "ENOENT" ? "the pulumi CLI is not on PATH (npm ci installs it: run through npm run status)" : line.replace(/^error: /, "") || err.message));
        });
    });
}

/** What status needs of the stack: its name, its outputs, and the Karmada kubeconfig. */
async function readStack(o: Options): Promise<{ stack: string; outputs: StackOutputs & { karmadaHost?: string }; kubeconfig: string }> {
    const stackArgs = o.stack ? ["--stack", o.stack] : [];
    let raw: string;
    let stack = o.stack ?? "";
    try {
        if (!o.stack) stack = (await pulumi(["stack", "--show-name"])).trim();
        raw = await pulumi(["stack", "output", "--json", "--show-secrets", ...stackArgs]);
    } catch (e) {
        const message = (e as Error).message;
        if (/no stack named|could not find stack|no stack selected/i.test(message)) throw new Stop(o.stack ? noSuchStackMessage(o.stack) : `${message}\n${STATUS_USAGE}`, 2);
        throw new Stop(`reading the outputs of stack ${stack || "(selected)"} failed: ${message}`, 1);
    }
    const out = JSON.parse(raw || "{}") as Record<string, unknown>;
    if (typeof out.karmadaKubeconfig !== "string") throw new Stop(notBroughtUpMessage(stack), 1);
    return {
        stack,
        outputs: { members: (out.members as string[] | undefined) ?? [], irisClusters: (out.irisClusters as Record<string, string[]> | undefined) ?? {}, karmadaHost: out.karmadaHost as string | undefined },
        kubeconfig: out.karmadaKubeconfig,
    };
}

/** The API server a kubeconfig's current context names. */
function serverOf(kubeconfig: string): string {
    try {
        const kc = YAML.parse(kubeconfig) as { "current-context"?: string; contexts?: Array<{ name: string; context?: { cluster?: string } }>; clusters?: Array<{ name: string; cluster?: { server?: string } }> };
        const cluster = kc.contexts?.find((c) => c.name === kc["current-context"])?.context?.cluster ?? kc.clusters?.[0]?.name;
        return kc.clusters?.find((c) => c.name === cluster)?.cluster?.server ?? "its server";
    } catch {
        return "its server";
    }
}

/** Reads the fleet once; a failure is a Stop with its one line. */
async function readOnce(stack: Awaited<ReturnType<typeof readStack>>): Promise<FleetStatus> {
    const get = (path: string) =>
        kubeRequest(stack.kubeconfig, "GET", path).catch((e: unknown) => {
            throw new Stop(unreachableMessage(stack.stack, serverOf(stack.kubeconfig), stack.outputs.karmadaHost, (e as Error).message), 1);
        });
    try {
        return await readFleetStatus(get, stack.stack, stack.outputs);
    } catch (e) {
        if (e instanceof Stop) throw e;
        if (e instanceof StatusError) throw new Stop(e.message, 1);
        throw new Stop(`reading the fleet failed: ${(e as Error).message}`, 1);
    }
}

function show(status: FleetStatus, o: Options, redraw: boolean): void {
    if (o.json) {
        process.stdout.write(`${JSON.stringify(status, null, o.watch ? undefined : 2)}\n`);
        return;
    }
    const text = renderStatus(status, { color: useColor(process.stdout.isTTY, process.env), now: Date.now() }) + (o.watch ? "(watching: redrawn when something changes; Ctrl-C ends it)\n" : "");
    // On a terminal the screen is redrawn in place; elsewhere (a log) each change follows the last.
    process.stdout.write(redraw && process.stdout.isTTY ? `\x1b[H\x1b[2J${text}` : redraw ? `\n${text}` : text);
}

/** Reads every 2 s and redraws when what it read changed; runs until interrupted, then exits with the last verdict. */
async function watch(stack: Awaited<ReturnType<typeof readStack>>, o: Options): Promise<never> {
    let last = "";
    let code: number = 1;
    process.on("SIGINT", () => process.exit(code));
    for (let first = true; ; first = false) {
        let key: string;
        try {
            const status = await readOnce(stack);
            key = watchKey(status);
            code = exitCodeOf(status);
            if (key !== last) show(status, o, !first);
        } catch (e) {
            // Karmada may come back: the line is the screen until it does.
            key = (e as Error).message;
            code = 1;
            if (key !== last) process.stdout.write(o.json ? `${JSON.stringify({ error: key })}\n` : `${first ? "" : "\n"}status: ${key}\n`);
        }
        last = key;
        await new Promise((r) => setTimeout(r, 2_000));
    }
}

async function main(): Promise<void> {
    const o = parseArgs(process.argv.slice(2));
    const stack = await readStack(o);
    if (o.watch) await watch(stack, o);
    const status = await readOnce(stack);
    show(status, o, false);
    process.exitCode = exitCodeOf(status);
}

main().catch((e: unknown) => {
    process.stderr.write(`status: ${e instanceof Stop ? e.message : `unexpected failure: ${(e as Error).message ?? String(e)}`}\n`);
    process.exit(e instanceof Stop ? e.code : 1);
});
