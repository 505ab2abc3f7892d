// npm run failback -- <namespace/name> [--stack <stack>]
//
// Moves a failover-placed IrisCluster back to the first member of its list, once that member is
// Ready again (components/karmada/failover/failback.ts says why Karmada needs to be told). For an
// IRIS mirror promoted with `npm run promote`, it is the planned way back instead
// (components/mirror/failback.ts): step 1, once the old primary's member is Ready, records
// `mirror.rejoin: true` and runs `pulumi up`, so the pair comes back and rejoins as DR async; a
// second run reads each pair member's mirror status and prints step 2, the switch back, which is not
// automated. Exit code: 0 done (or step 2 printed), 1 failed, 2 usage error, 3 refused before any
// change (for a mirror: not promoted, or its old member not Ready).
// The Karmada and member kubeconfigs come from the stack's secret outputs, read through `pulumi stack
// output --show-secrets` in this process (commands/pulumi-stack.ts): never on a command line or on disk.
import { failback, FailbackError } from "../components/karmada/failover/failback";
import { kubeRequest } from "../components/live/kube-read";
import { mirrorFailback, switchBackInstructions } from "../components/mirror/failback";
import { Mirror, MirrorError, parseMirrors } from "../components/mirror/mirror-state";
import { mirrorPorts, setMirrorField } from "./mirror-ports";
import { parseCommandArgs, PulumiError, pulumiShown, readStackOutputs, STACK_OPTION, stackNameOf, StackRef } from "./pulumi-stack";

function usage(message: string): never {
    process.stderr.write(`${message}\nusage: npm run failback -- <namespace/name> [--stack <stack>]\n`);
    process.exit(2);
}

/** The mirror way back (see the header). */
async function failbackMirror(ref: StackRef, outputs: Record<string, unknown>, m: Mirror): Promise<void> {
    const stack = await stackNameOf(ref);
    const say = (line: string) => process.stdout.write(`  ${line}\n`);
    const ports = {
        ...mirrorPorts(ref, outputs, () => m, say),
        setRejoin: async () => {
            await setMirrorField(ref, m, "rejoin", true);
        },
        up: async () => (await pulumiShown(ref, ["up", "--yes", "--skip-preview"])).code,
    };
    const t0 = Date.now();
    const result = await mirrorFailback(ports, m);
    const took = ((Date.now() - t0) / 1000).toFixed(1);
    if (result.step === "rejoin") {
        process.stdout.write(
            `Step 1 done in ${took} s: the pair ${m.id} is declared again on ${m.primary} and rejoins mirror ${m.name} as DR async. ` +
                `When it has caught up, run npm run failback -- ${m.id} -s ${stack} again for step 2.\n`,
        );
        return;
    }
    const config = await ports.readConfig();
    process.stdout.write(`Mirror ${m.id}: the pair on ${m.primary} rejoins; each member's mirror status (${took} s):\n`);
    for (const s of result.statuses ?? []) process.stdout.write(`  ${s.pod}: ${s.status}\n`);
    process.stdout.write(`${switchBackInstructions(m, config.promoted!, stack)}\n`);
}

async function main(): Promise<void> {
    const args = parseCommandArgs(process.argv.slice(2), { ...STACK_OPTION, positionals: true }, usage);
    const ids = args.positionals;
    if (ids.length !== 1) usage("name one IrisCluster");
    const stack = args.values.stack;
    const ref: StackRef = { stack, command: "failback" };
    const outputs = await readStackOutputs(ref);
    const mirror = parseMirrors(outputs.mirrors).find((m) => m.id === ids[0]);
    if (mirror) return failbackMirror(ref, outputs, mirror);
    const kubeconfig = outputs.karmadaKubeconfig;
    if (typeof kubeconfig !== "string")
        throw new PulumiError(`stack ${stack ?? "(selected)"} has no karmadaKubeconfig output: run pulumi up${stack ? ` -s ${stack}` : ""} first`);
    const t0 = Date.now();
    const result = await failback((method, path, body, contentType) => kubeRequest(kubeconfig, method, path, body, { contentType }), ids[0]);
    const took = ((Date.now() - t0) / 1000).toFixed(1);
    process.stdout.write(
        result.moved
            ? `IrisCluster ${ids[0]} moved from ${result.from.join(", ") || "nowhere"} to ${result.member} in ${took} s. Run \`pulumi up\` to wait until IKO runs it there (it changes nothing).\n`
            : `IrisCluster ${ids[0]} already runs on ${result.member}, the first member of its list: nothing to do.\n`,
    );
}

main().catch((e: unknown) => {
    const known = e instanceof FailbackError || e instanceof PulumiError || e instanceof MirrorError;
    process.stderr.write(`failback: ${known ? (e as Error).message : ((e as Error).stack ?? String(e))}\n`);
    process.exit(e instanceof MirrorError ? e.code : 1);
});
