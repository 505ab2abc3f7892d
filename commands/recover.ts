// npm run recover -- [--stack <stack>] [--destroy] [--force-unlock]
//
// After a `pulumi up` or `pulumi destroy` that was killed (SIGKILL, a laptop that died), or after a
// member that is gone for good left the config: brings the stack and the fleet back together, with
// no environment variable, kubectl or state surgery on the user's side.
//   0. A file backend's sidecar files that the kill left torn are removed (components/recovery/decisions.ts).
//   1. The stack lock: removed when the run that took it is over (never while it still runs; one
//      taken on another machine only with --force-unlock).
//   2. Helm: a release of this stack left pending by the kill is healed (components/recovery/decisions.ts).
//   3. Pending operations: `pulumi refresh --clear-pending-creates`. Objects the killed run had
//      created are taken over by the next apply (components/common/field-ownership.ts).
//   4. `pulumi up` (or, with --destroy, `pulumi destroy`) to the end. Objects on a cluster that is
//      unreachable and that the program no longer declares are forgotten, not waited for; then a
//      plain `up` puts the providers' settings back. A Pull member among them leaves Karmada first,
//      so that nothing waits for its lost agent.
// Secrets (the kubeconfigs in the state) stay in this process: never on a command line or on disk.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { deleteCluster } from "../components/karmada/members/agent-registration";
import { liveMembers } from "../components/karmada/members/join";
import { kubeRequest } from "../components/live/kube-read";
import {
    HELM_RELEASE_TYPE,
    PROVIDER_TYPE,
    JoinedCluster,
    helmHeal,
    helmRecordOf,
    karmadaProviderRef,
    lockOwner,
    lostPullMembers,
    providerKubeconfig,
    tornSidecars,
    StackLock,
    StateDeployment,
    stackReleases,
    undeletableReleaseNames,
    urnName,
} from "../components/recovery/decisions";
import { parseCommandArgs, pulumiJson, pulumiRun, pulumiShown, stackNameOf, StackRef } from "./pulumi-stack";

interface Options extends StackRef {
    destroy: boolean;
    /** Remove a lock taken on another machine (that run cannot be seen from here). */
    forceUnlock: boolean;
    cwd: string;
}

function usage(message: string): never {
    process.stderr.write(`${message}\nusage: npm run recover -- [--stack <stack>] [--destroy] [--force-unlock] [--cwd <project dir>]\n`);
    process.exit(2);
}

function parseArgs(argv: string[]): Options {
    const args = parseCommandArgs(
        argv,
        {
            values: { "--stack": "stack", "-s": "stack", "--cwd": "cwd" },
            valueNames: { stack: "a stack name", cwd: "a directory" },
            flags: { "--destroy": "destroy", "--force-unlock": "forceUnlock" },
        },
        usage,
    );
    return {
        stack: args.values.stack,
        cwd: args.values.cwd ?? process.cwd(),
        destroy: args.flags.has("destroy"),
        forceUnlock: args.flags.has("forceUnlock"),
        command: "recover",
    };
}

const say = (line: string) => process.stdout.write(`recover: ${line}\n`);

/** The folder of a file backend (`file://...`), or undefined for any other backend. */
function fileBackendRoot(o: Options): string | undefined {
    // The backend is the project's, not a stack's: whoami takes no --stack.
    const who = pulumiJson<{ url?: string }>({ cwd: o.cwd }, ["whoami", "--json"]);
    const url = (who.url ?? "").replace(/\?.*$/, "");
    return url.startsWith("file://") ? url.slice("file://".length).replace(/^~(?=$|\/)/, os.homedir()) : undefined;
}

/** Step 0. Sidecars torn by the kill: without this, every command says "failed to load checkpoint: EOF". */
function repairSidecars(root: string | undefined): void {
    if (!root) return;
    const sidecars = filesUnder(path.join(root, ".pulumi"), (p) => p.endsWith(".attrs")).map((p) => ({ path: p, content: fs.readFileSync(p, "utf8") }));
    for (const file of tornSidecars(sidecars)) {
        say(`the kill left ${path.relative(root, file)} torn: removed (the file it describes is whole)`);
        fs.rmSync(file, { force: true });
    }
}

/** Every file under `dir` (none if it does not exist) whose path `keep` accepts. */
function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
    if (!fs.existsSync(dir)) return [];
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        return e.isDirectory() ? filesUnder(p, keep) : keep(p) ? [p] : [];
    });
}

/** Step 1. A DIY backend's lock names its process and machine: removed only once that run is over. */
async function unlock(o: Options, root: string | undefined): Promise<void> {
    if (root) {
        for (const file of lockFiles(path.join(root, ".pulumi", "locks"), await stackNameOf(o))) {
            const lock = JSON.parse(fs.readFileSync(file, "utf8")) as StackLock;
            const owner = lockOwner(lock, { hostname: os.hostname(), programOf });
            if (owner === "running") {
                throw new Error(
                    `a pulumi command (pid ${lock.pid}, started ${lock.timestamp}) still runs on this stack: let it finish or stop it, then run recover again`,
                );
            }
            if (owner === "elsewhere" && !o.forceUnlock) {
                throw new Error(
                    `the stack is locked by a run on ${lock.hostname} (pid ${lock.pid}, started ${lock.timestamp}), which cannot be seen from here: once you know it is over, run recover again with --force-unlock`,
                );
            }
            say(`the stack is locked by pid ${lock.pid} on ${lock.hostname}, which is over: unlocking`);
        }
    }
    // The cloud backend knows its own updates; for a DIY one this removes the dead run's lock files.
    // Nothing to cancel is not an error here: a lock that remains shows in the next command.
    try {
        pulumiRun(o, ["cancel", "--yes"], "ignore");
    } catch {
        /* not locked */
    }
}

/** The lock files of a stack: `.pulumi/locks/<org>/<project>/<stack>/<id>.json`. */
function lockFiles(locksDir: string, stackName: string | undefined): string[] {
    const stack = stackName?.split("/").pop();
    return stack ? filesUnder(locksDir, (p) => p.endsWith(".json") && path.basename(path.dirname(p)) === stack) : [];
}

/** The program a pid runs (Linux: /proc/<pid>/comm), "" if it runs but cannot be told, undefined if none. */
function programOf(pid: number): string | undefined {
    try {
        process.kill(pid, 0);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EPERM") return undefined;
    }
    try {
        return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
        return "";
    }
}

/** Step 2. Helm records of this stack's releases that a killed run left pending. */
async function healHelm(deployment: StateDeployment): Promise<void> {
    for (const release of stackReleases(deployment)) {
        const access = providerKubeconfig(deployment, release.provider);
        if (!access) continue;
        const list = `/api/v1/namespaces/${release.namespace}/secrets?labelSelector=${encodeURIComponent(`owner=helm,name=${release.name}`)}`;
        let items: Array<Parameters<typeof helmRecordOf>[0]>;
        try {
            const res = await kubeRequest(access.kubeconfig, "GET", list, undefined, { context: access.context });
            if (res.status !== 200) continue;
            items = (JSON.parse(res.body) as { items?: typeof items }).items ?? [];
        } catch {
            continue; // Its cluster is unreachable: nothing to heal there now.
        }
        const heal = helmHeal(
            release,
            items.map(helmRecordOf).filter((r) => r !== undefined),
        );
        if (heal.reason) say(heal.reason);
        for (const secret of heal.deleteSecrets) {
            const res = await kubeRequest(access.kubeconfig, "DELETE", `/api/v1/namespaces/${release.namespace}/secrets/${secret}`, undefined, {
                context: access.context,
            });
            if (res.status !== 200 && res.status !== 404) throw new Error(`could not remove Helm record ${release.namespace}/${secret}: HTTP ${res.status}`);
        }
    }
}

/** The Kubernetes providers of the state whose API server does not answer (any HTTP answer counts). */
async function unreachableClusters(deployment: StateDeployment): Promise<string[]> {
    const out: string[] = [];
    for (const p of (deployment.resources ?? []).filter((r) => r.type === PROVIDER_TYPE && r.id)) {
        const access = providerKubeconfig(deployment, `${p.urn}::${p.id}`);
        if (!access) continue;
        const answered = await Promise.race([
            kubeRequest(access.kubeconfig, "GET", "/version", undefined, { context: access.context }).then(
                () => true,
                () => false,
            ),
            new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
        ]);
        if (!answered) out.push(urnName(p.urn));
    }
    return out;
}

/**
 * Pull members lost for good (lostPullMembers): their Cluster is deleted from Karmada first, and
 * Karmada releases their Works (a Pull Cluster that is not Ready and terminating). Otherwise the
 * run below would wait forever: it deletes every synced namespace in the foreground before the
 * member's registration, and each waits for a Work whose finalizer only the lost agent removes.
 */
async function removeLostPullMembers(o: Options, deployment: StateDeployment, unreachable: string[]): Promise<void> {
    const ref = karmadaProviderRef(deployment);
    const access = ref ? providerKubeconfig(deployment, ref) : undefined;
    if (!access || unreachable.length === 0) return;
    let clusters: JoinedCluster[];
    try {
        clusters = await liveMembers(access.kubeconfig);
    } catch {
        return; // Karmada itself cannot be reached: the run below says so.
    }
    const lost = lostPullMembers(clusters, unreachable, o.destroy ? [] : declaredClusters(o), o.destroy);
    for (const name of lost) {
        say(
            `${name} joins by Pull and cannot be reached: deleting its Cluster from Karmada first, so that nothing waits for its agent (what Karmada placed on ${name} stays there)`,
        );
        await deleteCluster((method, p, body, contentType) => kubeRequest(access.kubeconfig, method, p, body, { contentType }), {
            clusterName: name,
            timeoutSeconds: 180,
        });
        say(`Karmada let ${name} go`);
    }
}

/** The names in the stack's `kamino:clusters` (an object, or a JSON string as the Automation API sets it). */
function declaredClusters(o: Options): string[] {
    const got = pulumiJson<{ value?: string; objectValue?: unknown }>(o, ["config", "get", "kamino:clusters", "--json"]);
    const list = (got.objectValue ?? JSON.parse(got.value ?? "[]")) as Array<{ name?: string }>;
    return list.map((c) => c.name ?? "").filter((n) => n !== "");
}

async function main(): Promise<void> {
    const o = parseArgs(process.argv.slice(2));
    const t0 = Date.now();
    const root = fileBackendRoot(o);
    repairSidecars(root);
    await unlock(o, root);

    const deployment = pulumiJson<{ deployment?: StateDeployment }>(o, ["stack", "export", "--show-secrets"]).deployment ?? {};
    await healHelm(deployment);

    const pending = deployment.pending_operations ?? [];
    if (pending.length > 0) {
        say(`the killed run left ${pending.length} operation(s) unfinished: ${pending.map((p) => `${p.type} ${urnName(p.resource.urn)}`).join(", ")}`);
        const refresh = await pulumiShown(o, ["refresh", "--yes", "--skip-preview", "--clear-pending-creates"]);
        if (refresh.code !== 0) throw new Error("pulumi refresh failed (above); fix what it names and run recover again");
    }

    // A cluster of the state that cannot be reached (a member lost for good, which left the
    // config): what Kamino had there is forgotten rather than waited for. Only deletes are affected
    // (no refresh runs with this), and only in this run: the provider would keep the setting in
    // its state, so a plain run writes it back afterwards.
    const unreachable = await unreachableClusters(deployment);
    if (unreachable.length > 0) say(`cannot reach ${unreachable.join(", ")}: what the program no longer declares there is forgotten, not waited for`);
    await removeLostPullMembers(o, deployment, unreachable);
    const forgetUnreachable: Record<string, string> = unreachable.length > 0 ? { PULUMI_K8S_DELETE_UNREACHABLE: "true" } : {};
    const run = o.destroy ? ["destroy", "--yes", "--skip-preview"] : ["up", "--yes", "--skip-preview"];
    for (let attempt = 1; ; attempt++) {
        const result = await pulumiShown(o, run, forgetUnreachable);
        if (result.code === 0) break;
        // The provider forgets objects on an unreachable cluster, but not a Helm release there.
        const names = undeletableReleaseNames(result.output);
        if (names.length === 0 || attempt > 2) throw new Error(`pulumi ${run[0]} failed (above); fix what it names and run recover again`);
        const state = pulumiJson<{ deployment?: StateDeployment }>(o, ["stack", "export"]).deployment ?? {};
        const urns = (state.resources ?? []).filter((r) => r.type === HELM_RELEASE_TYPE && names.includes(urnName(r.urn))).map((r) => r.urn);
        say(`forgetting ${urns.length} Helm release(s) on a cluster that is unreachable and left the config: ${names.join(", ")}`);
        pulumiRun(o, ["state", "delete", ...urns, "--yes"], "inherit");
    }
    if (unreachable.length > 0 && !o.destroy) {
        say("putting the providers' settings back (the forget setting was for the run above only)");
        const reset = await pulumiShown(o, run);
        if (reset.code !== 0) throw new Error("pulumi up failed (above); fix what it names and run recover again");
    }
    say(`${o.destroy ? "destroyed" : "converged"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e: unknown) => {
    process.stderr.write(`recover: ${(e as Error).message ?? String(e)}\n`);
    process.exit(1);
});
