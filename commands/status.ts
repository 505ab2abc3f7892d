// npm run status -- [--stack <stack>] [--watch] [--json]
//
// One screen of the fleet, read live from the Karmada API: each member (sync mode, Ready since when,
// taints, Kubernetes version), each IrisCluster of the stack (placement, where Karmada scheduled it,
// IKO's phase on each member, its dependencies there), Karmada's recent moves, and each IRIS mirror's
// members with their roles (components/mirror/roles.ts: read from the members' pods). `--watch` redraws
// when something changes (a read every 2 s); `--json` prints FleetStatus (components/live/fleet-status.ts).
// Exit code: 0 when every IrisCluster runs where its placement wants it, 1 otherwise or when the fleet
// cannot be read (one line saying why, with the fix), 2 on a usage error or a stack that does not exist.
// The stack's outputs, the Karmada kubeconfig among them, are read through `pulumi stack output
// --show-secrets` in this process (commands/pulumi-stack.ts): never on a command line or on disk.
import { serverOf } from "../components/common/kubeconfig";
import { exitCodeOf, FleetStatus, readFleetStatus, StackOutputs, StatusError } from "../components/live/fleet-status";
import { describeError, kubeRequest } from "../components/live/kube-read";
import { noSuchStackMessage, notBroughtUpMessage, renderStatus, STATUS_USAGE, unreachableMessage, useColor, watchKey } from "../components/live/status-view";
import { memberKubeconfig, Mirror, parseMirrors } from "../components/mirror/mirror-state";
import type { PodLike } from "../components/mirror/promote";
import { readMirrorViews } from "../components/mirror/roles";
import { parseCommandArgs, readStackOutputs, STACK_OPTION, stackNameOf } from "./pulumi-stack";

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
    const usage = (message: string): never => {
        throw new Stop(`${message}\n${STATUS_USAGE}`, 2);
    };
    const args = parseCommandArgs(argv, { ...STACK_OPTION, flags: { "--watch": "watch", "-w": "watch", "--json": "json" } }, usage);
    return { stack: args.values.stack, watch: args.flags.has("watch"), json: args.flags.has("json") };
}

/** What status needs of the stack: its name, its outputs, the Karmada kubeconfig, and for mirrors the members' kubeconfigs. */
async function readStack(
    o: Options,
): Promise<{ stack: string; outputs: StackOutputs & { karmadaHost?: string }; kubeconfig: string; mirrors: Mirror[]; kubeconfigs: unknown }> {
    const ref = { stack: o.stack, command: "status" };
    let out: Record<string, unknown>;
    let stack = o.stack ?? "";
    try {
        stack = await stackNameOf(ref);
        out = await readStackOutputs(ref);
    } catch (e) {
        const message = (e as Error).message;
        if (/no stack named|could not find stack|no stack selected/i.test(message))
            throw new Stop(o.stack ? noSuchStackMessage(o.stack) : `${message}\n${STATUS_USAGE}`, 2);
        throw new Stop(`reading the outputs of stack ${stack || "(selected)"} failed: ${message}`, 1);
    }
    if (typeof out.karmadaKubeconfig !== "string") throw new Stop(notBroughtUpMessage(stack), 1);
    return {
        stack,
        outputs: {
            members: (out.members as string[] | undefined) ?? [],
            irisClusters: (out.irisClusters as Record<string, string[]> | undefined) ?? {},
            karmadaHost: out.karmadaHost as string | undefined,
        },
        kubeconfig: out.karmadaKubeconfig,
        mirrors: parseMirrors(out.mirrors),
        kubeconfigs: out.kubeconfigs,
    };
}

/** A pod on a member, through the member's kubeconfig from the stack's secret output. */
function memberPod(kubeconfigs: unknown) {
    return async (member: string, namespace: string, name: string): Promise<PodLike | undefined> => {
        const res = await kubeRequest(memberKubeconfig(kubeconfigs, member), "GET", `/api/v1/namespaces/${namespace}/pods/${name}`);
        if (res.status === 404) return undefined;
        if (res.status !== 200) throw new Error(describeError({ code: res.status, body: res.body }));
        return JSON.parse(res.body) as PodLike;
    };
}

/** The API server a kubeconfig's current context names, for a message: "its server" when it cannot be told. */
function serverNamed(kubeconfig: string): string {
    try {
        return serverOf(kubeconfig) || "its server";
    } catch {
        return "its server";
    }
}

/** Reads the fleet once; a failure is a Stop with its one line. */
async function readOnce(stack: Awaited<ReturnType<typeof readStack>>): Promise<FleetStatus> {
    const get = (path: string) =>
        kubeRequest(stack.kubeconfig, "GET", path).catch((e: unknown) => {
            throw new Stop(unreachableMessage(stack.stack, serverNamed(stack.kubeconfig), stack.outputs.karmadaHost, (e as Error).message), 1);
        });
    try {
        const status = await readFleetStatus(get, stack.stack, stack.outputs);
        if (stack.mirrors.length > 0) status.mirrors = await readMirrorViews(stack.mirrors, status.members, memberPod(stack.kubeconfigs));
        return status;
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
    const text =
        renderStatus(status, { color: useColor(process.stdout.isTTY, process.env), now: Date.now() }) +
        (o.watch ? "(watching: redrawn when something changes; Ctrl-C ends it)\n" : "");
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
