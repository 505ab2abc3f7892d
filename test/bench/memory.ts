// Peak memory of the bench's process tree: the harness's processes (etcd, API servers, controllers,
// Karmada), the Pulumi CLI, its providers and the program, and the bench itself. Sampled from
// /proc (Linux), so that a scale's figures say whether its fleet fits the machine.
import * as fs from "fs";

/** One process as /proc shows it. */
export interface ProcEntry {
    pid: number;
    ppid: number;
    /** Resident set size, KiB. */
    rssKib: number;
}

/** The summed RSS (KiB) of `root` and every process below it. */
export function treeRssKib(entries: ProcEntry[], root: number): number {
    const children = new Map<number, ProcEntry[]>();
    for (const e of entries) children.set(e.ppid, [...(children.get(e.ppid) ?? []), e]);
    const self = entries.find((e) => e.pid === root);
    let total = self?.rssKib ?? 0;
    const stack = [root];
    const seen = new Set<number>([root]);
    while (stack.length > 0) {
        for (const c of children.get(stack.pop()!) ?? []) {
            if (seen.has(c.pid)) continue;
            seen.add(c.pid);
            total += c.rssKib;
            stack.push(c.pid);
        }
    }
    return total;
}

/** Parses /proc/<pid>/status: its PPid and VmRSS (absent for kernel threads and zombies: 0). */
export function parseStatus(pid: number, status: string): ProcEntry | undefined {
    const ppid = /^PPid:\s+(\d+)/m.exec(status);
    if (!ppid) return undefined;
    const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return { pid, ppid: Number(ppid[1]), rssKib: rss ? Number(rss[1]) : 0 };
}

function readProcs(): ProcEntry[] {
    const out: ProcEntry[] = [];
    for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        try {
            const e = parseStatus(Number(name), fs.readFileSync(`/proc/${name}/status`, "utf8"));
            if (e) out.push(e);
        } catch {
            // The process ended between the listing and the read.
        }
    }
    return out;
}

/** Samples this process's tree every `intervalMs` until stopped; resolves the peak in MiB. */
export function peakMemorySampler(intervalMs = 500): { stop: () => number } {
    if (!fs.existsSync("/proc/self/status")) return { stop: () => 0 };
    let peak = 0;
    const sample = () => {
        peak = Math.max(peak, treeRssKib(readProcs(), process.pid));
    };
    sample();
    const timer = setInterval(sample, intervalMs);
    return {
        stop: () => {
            clearInterval(timer);
            sample();
            return Math.round(peak / 1024);
        },
    };
}
