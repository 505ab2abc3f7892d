// npm run failback -- <namespace/name> [--stack <stack>]
//
// Moves a failover-placed IrisCluster back to the first member of its list, once that member is
// Ready again (components/karmada/failover/failback.ts says why Karmada needs to be told). The Karmada kubeconfig
// comes from the stack's secret output, read through `pulumi stack output --show-secrets` in this
// process (commands/pulumi-stack.ts): it never appears on a command line or on disk.
import { failback, FailbackError } from "../components/karmada/failover/failback";
import { kubeRequest } from "../components/live/kube-read";
import { parseCommandArgs, PulumiError, readStackOutputs, STACK_OPTION } from "./pulumi-stack";

function usage(message: string): never {
    process.stderr.write(`${message}\nusage: npm run failback -- <namespace/name> [--stack <stack>]\n`);
    process.exit(2);
}

async function main(): Promise<void> {
    const args = parseCommandArgs(process.argv.slice(2), { ...STACK_OPTION, positionals: true }, usage);
    const ids = args.positionals;
    if (ids.length !== 1) usage("name one IrisCluster");
    const stack = args.values.stack;
    const kubeconfig = (await readStackOutputs({ stack, command: "failback" })).karmadaKubeconfig;
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
    process.stderr.write(`failback: ${e instanceof FailbackError || e instanceof PulumiError ? e.message : ((e as Error).stack ?? String(e))}\n`);
    process.exit(1);
});
