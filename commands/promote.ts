// npm run promote -- <namespace/name> --to <member> [--planned] [--timeout <seconds>] [--stack <stack>]
//
// Makes the DR async IrisCluster of an IRIS mirror on <member> the mirror's primary, after its
// primary's member is lost (or, with --planned, as a switch while both run), and fences the old
// primary so that it cannot come back as a second primary: `mirror.promoted` is recorded in the
// stack config and the pair's IrisCluster and PropagationPolicy are withdrawn from the Karmada API
// at once (Karmada removes the pair from the old member, now or when it returns; a later `pulumi up`
// finds them gone and drops them from its state). IRIS is promoted inside the DR pod through the
// Kubernetes exec API (`iris session IRIS -U %SYS`, the ObjectScript on stdin). The steps and their
// order: components/mirror/promote.ts; the decisions: components/mirror/promotion.ts;
// docs/disaster-recovery.md#data-dr-with-an-iris-mirror.
//
// Exit code: 0 when the DR member reports PRIMARY (also when it already did: a second run says so),
// 1 when it could not finish (the line says what was done and what to do; run it again to resume),
// 2 on a usage error, 3 when it refused before changing anything (not a mirror, not one of its DR
// members, the primary's member still Ready without --planned, another promotion recorded).
// The stack's outputs, the Karmada and member kubeconfigs among them, are read through `pulumi stack
// output --show-secrets` in this process (commands/pulumi-stack.ts): never on a command line, on disk or in output.
import { findMirror, MirrorError, parseMirrors } from "../components/mirror/mirror-state";
import { promote } from "../components/mirror/promote";
import { mirrorPorts } from "./mirror-ports";
import { parseCommandArgs, PulumiError, readStackOutputs, STACK_OPTION, stackNameOf, StackRef } from "./pulumi-stack";

const USAGE = "usage: npm run promote -- <namespace/name> --to <member> [--planned] [--timeout <seconds>] [--stack <stack>]";

function usage(message: string): never {
    process.stderr.write(`${message}\n${USAGE}\n`);
    process.exit(2);
}

async function main(): Promise<void> {
    const args = parseCommandArgs(
        process.argv.slice(2),
        {
            values: { ...STACK_OPTION.values, "--to": "to", "--timeout": "timeout" },
            valueNames: { ...STACK_OPTION.valueNames, to: "a DR async member", timeout: "a number of seconds" },
            flags: { "--planned": "planned" },
            positionals: true,
        },
        usage,
    );
    if (args.positionals.length !== 1) usage("name one mirror, as namespace/name");
    const to = args.values.to ?? usage("--to <member> is required: the DR async member to make primary");
    const timeoutSeconds = args.values.timeout === undefined ? 300 : Number(args.values.timeout);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) usage("--timeout needs a whole number of seconds");
    const [id] = args.positionals;
    const ref: StackRef = { stack: args.values.stack, command: "promote" };
    const t0 = Date.now();
    const stack = await stackNameOf(ref);
    const outputs = await readStackOutputs(ref);
    const mirrors = parseMirrors(outputs.mirrors);
    const say = (line: string) => process.stdout.write(`  ${line}\n`);
    const ports = mirrorPorts(ref, outputs, () => findMirror(mirrors, id, stack), say);
    const planned = args.flags.has("planned");
    process.stdout.write(`Promoting ${to} in mirror ${id} of stack ${stack}${planned ? " (planned)" : ""}:\n`);
    const result = await promote(ports, mirrors, stack, { id, to, planned }, { timeoutSeconds });
    const took = ((Date.now() - t0) / 1000).toFixed(1);
    const m = findMirror(mirrors, id, stack);
    process.stdout.write(
        (result.promoted
            ? `${to} is the primary of mirror ${m.name} (${id}) now, after ${took} s.\n`
            : `${to} already reports PRIMARY for mirror ${m.name} (${id}): nothing to promote; the fence is in place (${took} s).\n`) +
            `Next: pulumi up -s ${stack} drops the withdrawn pair from its state (it finds it gone); once ${m.primary} is back, npm run failback -- ${id} -s ${stack}.\n`,
    );
}

main().catch((e: unknown) => {
    const known = e instanceof MirrorError || e instanceof PulumiError;
    process.stderr.write(`promote: ${known ? (e as Error).message : ((e as Error).stack ?? String(e))}\n`);
    process.exit(e instanceof MirrorError ? e.code : 1);
});
