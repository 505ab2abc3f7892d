// Whether a federated IrisCluster runs everywhere it is placed, and the wait `pulumi up` does for it.
import { KubeObject } from "../../components/live/kube-read";
import { KarmadaView, notRunningMessage, runningReport, waitUntilRunning } from "../../components/live/iris-running";

const template = (clusters?: unknown): KubeObject => ({ kind: "IrisCluster", status: clusters === undefined ? undefined : { phase: "x", clusters } });
/** What the waiter reads: the template, and (optionally) the members' Karmada Clusters. */
const view = (clusters?: unknown, members: Record<string, KubeObject | undefined> = {}): KarmadaView => ({ template: template(clusters), clusters: members });
const ready = (status: string, reason?: string, message?: string): KubeObject => ({
    kind: "Cluster",
    status: { conditions: [{ type: "Ready", status, reason, message }] },
});
const KARMADA = "kubectl --kubeconfig karmada.kubeconfig";

describe("runningReport", () => {
    test("running when every target member reports Running", () => {
        const r = runningReport(
            view([
                { name: "a", phase: "Running" },
                { name: "b", phase: "Running" },
            ]),
            ["a", "b"],
        );
        expect(r).toEqual({ running: true, notRunning: [], failed: false, runningOn: ["a", "b"] });
    });
    test("a member Karmada has not applied it to is NotApplied; one without a phase is Pending", () => {
        const r = runningReport(view([{ name: "a", phase: "Running" }, { name: "b" }]), ["a", "b", "c"]);
        expect(r.notRunning).toEqual([
            { name: "b", phase: "Pending" },
            { name: "c", phase: "NotApplied" },
        ]);
        expect(r.running).toBe(false);
        expect(r.failed).toBe(false);
    });
    test("members outside the placement do not count", () => {
        expect(
            runningReport(
                view([
                    { name: "a", phase: "Running" },
                    { name: "z", phase: "Failed" },
                ]),
                ["a"],
            ).running,
        ).toBe(true);
    });
    test("a Failed member is failed, with its condition", () => {
        const r = runningReport(view([{ name: "a", phase: "Failed", condition: "Ready=False: ImagePullBackOff" }]), ["a"]);
        expect(r).toEqual({
            running: false,
            failed: true,
            notRunning: [{ name: "a", phase: "Failed", condition: "Ready=False: ImagePullBackOff" }],
            runningOn: [],
        });
    });
    test("a member Karmada reports not Ready is ClusterNotReady and failed, whatever its last status said", () => {
        const r = runningReport(
            view(
                [
                    { name: "a", phase: "Running" },
                    { name: "b", phase: "Running" },
                ],
                { a: ready("True"), b: ready("False", "ClusterNotReachable", "cluster is not reachable") },
            ),
            ["a", "b"],
        );
        expect(r).toEqual({
            running: false,
            failed: true,
            notRunning: [{ name: "b", phase: "ClusterNotReady", condition: "Ready=False: ClusterNotReachable: cluster is not reachable" }],
            runningOn: ["a"],
        });
    });
    test("a member just joined (no Ready condition yet) or not joined is waited for, not failed", () => {
        const joining = runningReport(view([{ name: "a", phase: "Running" }], { a: { kind: "Cluster", status: {} } }), ["a"]);
        expect(joining).toEqual({ running: false, failed: false, notRunning: [{ name: "a", phase: "Joining" }], runningOn: [] });
        const missing = runningReport(view([{ name: "a", phase: "Running" }], { a: undefined }), ["a"]);
        expect(missing).toEqual({ running: false, failed: false, notRunning: [{ name: "a", phase: "NotJoined" }], runningOn: [] });
        expect(runningReport(view([], { a: ready("Unknown", "ClusterStatusUnknown") }), ["a"]).failed).toBe(true);
    });
    test("no status yet, and Lua's empty table ({}), mean nothing is applied", () => {
        expect(runningReport(view(), ["a"]).notRunning).toEqual([{ name: "a", phase: "NotApplied" }]);
        expect(runningReport(view({}), ["a"]).notRunning).toEqual([{ name: "a", phase: "NotApplied" }]);
        expect(runningReport({ clusters: {} }, ["a"]).running).toBe(false);
    });
});

describe("runningReport in failover mode: only the member Karmada chose counts", () => {
    const list = ["ikoclone", "ikodr"];
    test("running on the backup Karmada moved it to, whatever the first member's stale status says", () => {
        const r = runningReport(
            {
                ...view(
                    [
                        { name: "ikoclone", phase: "Running" },
                        { name: "ikodr", phase: "Running" },
                    ],
                    { ikoclone: ready("False", "ClusterNotReachable"), ikodr: ready("True") },
                ),
                scheduled: ["ikodr"],
            },
            list,
            "failover",
        );
        expect(r).toEqual({ running: true, failed: false, notRunning: [], runningOn: ["ikodr"] });
    });
    test("not yet scheduled: waited for, naming the list", () => {
        const r = runningReport({ ...view([]), scheduled: [] }, list, "failover");
        expect(r).toEqual({ running: false, failed: false, notRunning: [{ name: "ikoclone or ikodr", phase: "NotScheduled" }], runningOn: [] });
        expect(runningReport(view([]), list, "failover").running).toBe(false);
    });
    test("a failure on a member with a backup after it is waited for: Karmada moves the IrisCluster on", () => {
        const failed = runningReport({ ...view([{ name: "ikoclone", phase: "Failed" }]), scheduled: ["ikoclone"] }, list, "failover");
        expect(failed.running).toBe(false);
        expect(failed.failed).toBe(false);
        const unreachable = runningReport(
            { ...view([{ name: "ikoclone", phase: "Running" }], { ikoclone: ready("False") }), scheduled: ["ikoclone"] },
            list,
            "failover",
        );
        expect([unreachable.running, unreachable.failed]).toEqual([false, false]);
    });
    test("a failure on the last member of the list is final", () => {
        const r = runningReport({ ...view([{ name: "ikodr", phase: "Failed" }]), scheduled: ["ikodr"] }, list, "failover");
        expect(r.failed).toBe(true);
        expect(r.notRunning).toEqual([{ name: "ikodr", phase: "Failed" }]);
    });
    test("a member outside the list is ignored", () => {
        expect(runningReport({ ...view([{ name: "other", phase: "Running" }]), scheduled: ["other"] }, list, "failover").running).toBe(false);
    });
});

test("the message names the IrisCluster, each member not running with what it reports, and where to look", () => {
    const msg = notRunningMessage(
        "iris/federated-iris",
        runningReport(
            view([
                { name: "a", phase: "Creating" },
                { name: "b", phase: "Failed", condition: "Ready=False: X" },
            ]),
            ["a", "b"],
        ),
        "after 900s",
        KARMADA,
    );
    expect(msg.split("\n")).toEqual([
        "IrisCluster iris/federated-iris is not running on 2 member(s) after 900s:",
        "  a: Creating",
        "  b: Failed (Ready=False: X)",
        "See more: kubectl --kubeconfig karmada.kubeconfig get iriscluster federated-iris -n iris -o yaml (status.clusters), and on a member: kubectl describe iriscluster federated-iris -n iris",
        "Fix the member, then run `pulumi up` again: it waits again and changes nothing that already runs.",
    ]);
});

describe("waitUntilRunning", () => {
    const clock = () => {
        let t = 0;
        return { now: () => t, sleep: async (ms: number) => void (t += ms), elapsed: () => t / 1000 };
    };
    const reads = (...answers: Array<KarmadaView | Error>) => {
        const calls: number[] = [];
        return {
            calls,
            read: async () => {
                calls.push(1);
                const a = (answers.length > 1 ? answers.shift() : answers[0])!;
                if (a instanceof Error) throw a;
                return a;
            },
        };
    };
    test("returns once every member runs, retrying read errors", async () => {
        const c = clock();
        const r = reads(view([{ name: "a", phase: "Creating" }]), new Error("ECONNREFUSED"), view([{ name: "a", phase: "Running" }]));
        await expect(waitUntilRunning(r.read, "default/iris", ["a"], { timeoutSeconds: 60, karmadaCommand: KARMADA, ...c })).resolves.toMatchObject({
            running: true,
        });
        expect(r.calls).toHaveLength(3);
        expect(c.elapsed()).toBe(4);
    });
    test("fails at once when a member reports Failed, naming only that member", async () => {
        const c = clock();
        const r = reads(
            view([
                { name: "a", phase: "Creating" },
                { name: "b", phase: "Failed" },
            ]),
        );
        await expect(waitUntilRunning(r.read, "default/iris", ["a", "b"], { timeoutSeconds: 600, karmadaCommand: KARMADA, ...c })).rejects.toThrow(
            /^IrisCluster default\/iris is not running on 1 member\(s\) \(failed\):\n {2}b: Failed\n/,
        );
        expect(c.elapsed()).toBe(0);
    });
    test("times out naming every member not running", async () => {
        const c = clock();
        const r = reads(
            view([
                { name: "a", phase: "Running" },
                { name: "b", phase: "Creating" },
            ]),
        );
        await expect(
            waitUntilRunning(r.read, "default/iris", ["a", "b"], { timeoutSeconds: 30, intervalSeconds: 5, karmadaCommand: KARMADA, ...c }),
        ).rejects.toThrow(/^IrisCluster default\/iris is not running on 1 member\(s\) after 30s:\n {2}b: Creating\n/);
        expect(c.elapsed()).toBe(30);
    });
    test("a Karmada API that stays unreachable is said so at the deadline", async () => {
        const c = clock();
        const r = reads(new Error("connect ECONNREFUSED 127.0.0.1:5443"));
        await expect(waitUntilRunning(r.read, "default/iris", ["a"], { timeoutSeconds: 10, karmadaCommand: KARMADA, ...c })).rejects.toThrow(
            "after 10s (last read of the Karmada API failed: connect ECONNREFUSED 127.0.0.1:5443)",
        );
    });
});
