// Removes what the real-node test clusters (test/cluster/nodes) made on this machine, by the run's
// tag that every one of their names carries: container processes and shims, mounts (overlay root
// filesystems, volumes, pinned network namespaces), network namespaces, the bridge and veth
// interfaces, cgroups, and the directories. Their iptables rules live in the nodes' network
// namespaces and go with them. Called by a cluster's own stop, and by the process reaper after a
// jest run and when jest is interrupted, so nothing is left even when a test never reached its
// teardown.
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The 5-hex-digit tag of a run id (KAMINO_TEST_RUN), or of this process where there is none. */
export function runTag(runId = process.env.KAMINO_TEST_RUN ?? `pid-${process.pid}`): string {
    return crypto.createHash("sha256").update(runId).digest("hex").slice(0, 5);
}

/** The directory every real-node cluster of a run keeps its files under. */
export const runRoot = (tag: string) => path.join(os.tmpdir(), `km${tag}`);

/** What was left, and removed. */
export interface SweepReport {
    killed: number;
    unmounted: number;
    netns: string[];
    links: string[];
    cgroups: number;
    /** Shim sockets removed from /run/containerd/s (a sweep only; a dry run does not look). */
    sockets?: number;
}

const quiet = (cmd: string, args: string[]) => {
    try {
        return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    } catch {
        return "";
    }
};

/**
 * Processes in a cgroup whose path holds `cgroup` (containers) or whose command line names a path
 * under `dir` (containerd, its shims, the kubelet): a run's, a network's or one node's.
 */
export function processesOf(cgroup: string, dir: string): number[] {
    const found: number[] = [];
    for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
        try {
            const cgroups = fs.readFileSync(`/proc/${name}/cgroup`, "utf8");
            const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8");
            if (cgroups.includes(cgroup) || cmdline.includes(`${dir}/`)) found.push(Number(name));
        } catch {
            // exited meanwhile
        }
    }
    return found;
}

/** Processes in a cgroup of the scope (containers) or naming its directory (containerd, shims). */
const runProcesses = (scope: string, root: string) => processesOf(`/kmb${scope}`, root);

/** SIGKILLs `find()`'s processes until it finds none (5 rounds at most); returns how many distinct ones were killed. */
export function killAll(find: () => number[]): number {
    const killed = new Set<number>();
    for (let round = 0; round < 5; round++) {
        const pids = find();
        if (!pids.length) break;
        for (const pid of pids) {
            try {
                process.kill(pid, "SIGKILL");
                killed.add(pid);
            } catch {
                // gone
            }
        }
        execFileSync("sleep", ["0.2"]);
    }
    return killed.size;
}

/** Mount points under the run's directory, deepest first. */
function runMounts(root: string): string[] {
    return fs
        .readFileSync("/proc/self/mountinfo", "utf8")
        .split("\n")
        .map((l) => l.split(" ")[4])
        .filter((m): m is string => !!m && (m === root || m.startsWith(`${root}/`)))
        .sort((a, b) => b.length - a.length);
}

/** Removes every cgroup directory under `dir`, deepest first; returns how many. */
function removeCgroupTree(dir: string): number {
    let n = 0;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) n += removeCgroupTree(path.join(dir, e.name));
    try {
        fs.rmdirSync(dir);
        return n + 1;
    } catch {
        return n;
    }
}

/**
 * Removes everything of run `tag`, or only of its network `network` (2 hex digits: NodeNetwork's
 * index), whose names all start with `km<tag><network>`. Never throws; says what it found.
 */
export function sweepRealNodes(tag: string, network = "", opts: { dryRun?: boolean } = {}): SweepReport {
    if (opts.dryRun) return findRealNodes(tag, network);
    const scope = `${tag}${network}`;
    const root = network ? path.join(runRoot(tag), network) : runRoot(tag);
    const report: SweepReport = { killed: 0, unmounted: 0, netns: [], links: [], cgroups: 0 };
    report.killed = killAll(() => runProcesses(scope, root));
    for (const m of runMounts(root)) {
        quiet("umount", ["-l", m]);
        report.unmounted++;
    }
    for (const ns of quiet("ip", ["netns", "list"])
        .split("\n")
        .map((l) => l.split(" ")[0])) {
        if (ns.startsWith(`km${scope}`)) {
            quiet("ip", ["netns", "delete", ns]);
            report.netns.push(ns);
        }
    }
    for (const line of quiet("ip", ["-o", "link", "show"]).split("\n")) {
        const name = /^\d+:\s+([^:@]+)/.exec(line)?.[1];
        if (name && (name.startsWith(`kmb${scope}`) || name.startsWith(`kmv${scope}`))) {
            quiet("ip", ["link", "delete", name]);
            report.links.push(name);
        }
    }
    for (const h of fs
        .readFileSync("/proc/self/mounts", "utf8")
        .split("\n")
        .map((l) => l.split(" "))) {
        if (h[2] !== "cgroup" && h[2] !== "cgroup2") continue;
        for (const e of fs.existsSync(h[1]) ? fs.readdirSync(h[1]) : [])
            if (e.startsWith(`kmb${scope}`)) report.cgroups += removeCgroupTree(path.join(h[1], e));
    }
    report.sockets = removeShimSockets(root);
    fs.rmSync(root, { recursive: true, force: true });
    return report;
}

/** Where containerd's shims put their sockets, whatever the daemon's state directory (containerd's defaults.DefaultStateDir). */
export const SHIM_SOCKET_DIR = "/run/containerd/s";

/**
 * The socket of the shim of task `id` in namespace `ns` of the containerd listening at `address`:
 * containerd names it by a hash of the three (pkg/shim SocketAddress), `debug` for its debug socket.
 */
export function shimSocketPath(address: string, ns: string, id: string, debug = false): string {
    const joined = path.join(address, ns, id, ...(debug ? ["debug"] : []));
    return path.join(SHIM_SOCKET_DIR, createHash("sha256").update(joined).digest("hex"));
}

/** Every task of the nodes under `root`, as containerd's state directories hold them: its id, and the socket of its shim if it is there. */
export function nodeTasks(root: string): { id: string; socket?: string }[] {
    const tasks: { id: string; socket?: string }[] = [];
    const visit = (dir: string, depth: number) => {
        for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
            if (!e.isDirectory()) continue;
            const here = path.join(dir, e.name);
            if (e.name !== "io.containerd.runtime.v2.task") {
                if (depth < 6) visit(here, depth + 1);
                continue;
            }
            const address = path.join(here, "..", "..", "containerd.sock");
            for (const ns of fs.readdirSync(here))
                for (const id of fs.readdirSync(path.join(here, ns)))
                    tasks.push({ id, socket: [shimSocketPath(address, ns, id), shimSocketPath(address, ns, id, true)].find((p) => fs.existsSync(p)) });
        }
    };
    visit(root, 0);
    return tasks;
}

/** Removes the shim sockets of every task under `root`'s nodes (the shims are dead by now); returns how many. */
export function removeShimSockets(root: string): number {
    const sockets = nodeTasks(root).flatMap((t) => (t.socket ? [t.socket] : []));
    for (const s of sockets) fs.rmSync(s, { force: true });
    return sockets.length;
}

/** What a sweep would find, removing nothing. */
export function findRealNodes(tag: string, network = ""): SweepReport {
    const scope = `${tag}${network}`;
    const root = network ? path.join(runRoot(tag), network) : runRoot(tag);
    const netns = quiet("ip", ["netns", "list"])
        .split("\n")
        .map((l) => l.split(" ")[0])
        .filter((ns) => ns.startsWith(`km${scope}`));
    const links = quiet("ip", ["-o", "link", "show"])
        .split("\n")
        .map((line) => /^\d+:\s+([^:@]+)/.exec(line)?.[1])
        .filter((n): n is string => !!n && (n.startsWith(`kmb${scope}`) || n.startsWith(`kmv${scope}`)));
    let cgroups = 0;
    for (const h of fs
        .readFileSync("/proc/self/mounts", "utf8")
        .split("\n")
        .map((l) => l.split(" "))) {
        if ((h[2] === "cgroup" || h[2] === "cgroup2") && fs.existsSync(h[1])) cgroups += fs.readdirSync(h[1]).filter((e) => e.startsWith(`kmb${scope}`)).length;
    }
    return { killed: runProcesses(scope, root).length, unmounted: runMounts(root).length, netns, links, cgroups };
}

/** True when the report found nothing at all. */
export const sweptNothing = (r: SweepReport) => r.killed + r.unmounted + r.netns.length + r.links.length + r.cgroups === 0;
