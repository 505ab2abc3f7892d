// The bench's peak-memory figure: the RSS of its whole process tree, nothing outside it.
import { parseStatus, treeRssKib } from "../bench/memory";

test("sums the root and every descendant, not its parent or siblings", () => {
    const procs = [
        { pid: 1, ppid: 0, rssKib: 5000 }, // init: above the root
        { pid: 10, ppid: 1, rssKib: 100 }, // the bench
        { pid: 11, ppid: 10, rssKib: 20 }, // an API server
        { pid: 12, ppid: 11, rssKib: 3 }, // its child
        { pid: 13, ppid: 10, rssKib: 7 },
        { pid: 20, ppid: 1, rssKib: 999 }, // another run on the machine
    ];
    expect(treeRssKib(procs, 10)).toBe(130);
    expect(treeRssKib(procs, 11)).toBe(23);
});

test("a root that has ended counts its remaining children only", () => {
    expect(treeRssKib([{ pid: 11, ppid: 10, rssKib: 20 }], 10)).toBe(20);
});

test("reads PPid and VmRSS from /proc/<pid>/status; a kernel thread has no VmRSS", () => {
    expect(parseStatus(42, "Name:\tnode\nPPid:\t7\nVmRSS:\t  123456 kB\n")).toEqual({ pid: 42, ppid: 7, rssKib: 123456 });
    expect(parseStatus(2, "Name:\tkthreadd\nPPid:\t0\n")).toEqual({ pid: 2, ppid: 0, rssKib: 0 });
    expect(parseStatus(3, "garbage")).toBeUndefined();
});
