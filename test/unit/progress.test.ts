// What `up` shows while it waits: a line each time what it waits on changes (with the time waited),
// nothing for a poll that saw the same, and one line when the wait ends.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KarmadaView, waitUntilRunning } from "../../components/live/iris-running";
import { waitForObject } from "../../components/live/kube-read";
import { formatAge, WaitProgress } from "../../components/live/progress";
import { FederatedIrisCluster } from "../../components/federation/federated-iris";
import { CrdMirror } from "../../components/karmada/control-plane/crd-mirror";
import { removeDroppedObjects } from "../../components/federation/manifest-cleanup";
import { MockRun } from "../support/mocks";

/** A fake clock whose sleep moves it on. */
const clock = () => {
    let t = 0;
    return { now: () => t, sleep: async (ms: number) => void (t += ms) };
};
/** Answers in turn, the last one repeated; an Error is thrown. */
const answers =
    <T>(...list: Array<T | Error>) =>
    async (): Promise<T> => {
        const a = (list.length > 1 ? list.shift() : list[0])!;
        if (a instanceof Error) throw a;
        return a;
    };
const view = (clusters: Array<{ name: string; phase?: string; condition?: string }>): KarmadaView => ({
    template: { kind: "IrisCluster", status: { clusters } },
    clusters: {},
});
const CREATING = { phase: "Creating", condition: "Ready=False: IRISStarting" };

test("ages read as kubectl prints them", () => {
    expect([0, 9.9, 60, 125, 3600, 3720].map(formatAge)).toEqual(["0s", "9s", "1m", "2m5s", "1h", "1h2m"]);
});

test("a state is reported once, with the time waited; the same state again is not", () => {
    const c = clock();
    const lines: string[] = [];
    const p = new WaitProgress((l) => lines.push(l), c.now);
    p.update("a Pending");
    void c.sleep(5000);
    p.update("a Pending");
    void c.sleep(40_000);
    p.update("a Creating");
    expect(lines).toEqual(["a Pending (waited 0s)", "a Creating (waited 45s)"]);
});

describe("the running-wait's progress", () => {
    test("each member's phase and condition when they change, in placement order; unchanged polls and the final Running say nothing", async () => {
        const c = clock();
        const lines: string[] = [];
        const read = answers(
            view([]),
            view([{ name: "b", ...CREATING }]),
            view([{ name: "b", ...CREATING }]),
            view([
                { name: "a", ...CREATING },
                { name: "b", ...CREATING },
            ]),
            view([
                { name: "a", phase: "Running" },
                { name: "b", ...CREATING },
            ]),
            view([
                { name: "a", phase: "Running" },
                { name: "b", phase: "Running" },
            ]),
        );
        await waitUntilRunning(read, "default/iris", ["a", "b"], { timeoutSeconds: 60, karmadaCommand: "kubectl", onProgress: (l) => lines.push(l), ...c });
        expect(lines).toEqual([
            "waiting for IRIS to run: a NotApplied, b NotApplied (waited 0s)",
            "waiting for IRIS to run: a NotApplied, b Creating (Ready=False: IRISStarting) (waited 2s)",
            "waiting for IRIS to run: a Creating (Ready=False: IRISStarting), b Creating (Ready=False: IRISStarting) (waited 6s)",
            "waiting for IRIS to run: a Running, b Creating (Ready=False: IRISStarting) (waited 8s)",
        ]);
    });

    test("an unreachable Karmada API is said once while it stays so", async () => {
        const c = clock();
        const lines: string[] = [];
        const down = new Error("connect ECONNREFUSED 127.0.0.1:5443");
        const read = answers<KarmadaView>(down, down, down, view([{ name: "a", phase: "Running" }]));
        await waitUntilRunning(read, "default/iris", ["a"], { timeoutSeconds: 60, karmadaCommand: "kubectl", onProgress: (l) => lines.push(l), ...c });
        expect(lines).toEqual(["waiting for IRIS to run: cannot read the Karmada API (connect ECONNREFUSED 127.0.0.1:5443) (waited 0s)"]);
    });

    test("in failover mode, the list until Karmada chose a member, then that member", async () => {
        const c = clock();
        const lines: string[] = [];
        const read = answers<KarmadaView>(
            { ...view([]), scheduled: [] },
            { ...view([{ name: "b", ...CREATING }]), scheduled: ["b"] },
            { ...view([{ name: "b", phase: "Running" }]), scheduled: ["b"] },
        );
        await waitUntilRunning(read, "default/iris", ["a", "b"], {
            timeoutSeconds: 60,
            karmadaCommand: "kubectl",
            mode: "failover",
            onProgress: (l) => lines.push(l),
            ...c,
        });
        expect(lines).toEqual([
            "waiting for IRIS to run: a or b NotScheduled (waited 0s)",
            "waiting for IRIS to run: b Creating (Ready=False: IRISStarting) (waited 2s)",
        ]);
    });
});

test("the wait for an object says when it is not there yet and when the error changes, once each", async () => {
    const c = clock();
    const lines: string[] = [];
    const forbidden = Object.assign(new Error("x"), { code: 403, body: JSON.stringify({ message: "crds is forbidden" }) });
    const read = answers<unknown>(undefined, undefined, forbidden, forbidden, { kind: "CustomResourceDefinition" });
    await waitForObject(read as never, "CRD irisclusters.intersystems.com", { timeoutSeconds: 60, intervalSeconds: 5, onProgress: (l) => lines.push(l), ...c });
    expect(lines).toEqual([
        "waiting for CRD irisclusters.intersystems.com: not there yet (waited 0s)",
        "waiting for CRD irisclusters.intersystems.com: HTTP 403: crds is forbidden (waited 10s)",
    ]);
});

describe("on the waiting component in Pulumi's display", () => {
    let run: MockRun;
    let info: jest.SpyInstance;
    beforeEach(async () => {
        run = new MockRun(false);
        await run.install();
        info = jest.spyOn(pulumi.log, "info").mockImplementation(async () => undefined);
    });
    afterEach(() => info.mockRestore());

    const config = {
        name: "iris",
        namespace: "ha",
        image: "iris:1",
        placement: { mode: "all" as const, clusterNames: ["a", "b"] },
        failoverAfterSeconds: 10,
        overrides: [],
        waitForRunning: true,
        runningTimeoutSeconds: 120,
        spec: {},
    };
    const provider = () => new k8s.Provider("karmada", { kubeconfig: "unused", clusterIdentifier: "karmada" });

    test("the running-wait: its progress as the FederatedIrisCluster's status (ephemeral), then where it runs", async () => {
        const waiter = async (_kc: string, _id: string, targets: string[], _t: number, _m?: string, onProgress?: (l: string) => void) => {
            onProgress?.("waiting for IRIS to run: a Creating, b NotApplied (waited 0s)");
            onProgress?.("waiting for IRIS to run: a Running, b Creating (waited 4s)");
            return targets;
        };
        const f = new FederatedIrisCluster("f", {
            config,
            karmada: { provider: provider(), kubeconfig: "kc" },
            targetClusters: ["a", "b"],
            waitForRunning: waiter,
        });
        expect(await f.running).toEqual(["a", "b"]);
        await run.settle();
        const calls = info.mock.calls.filter((c) => c[1] === f);
        expect(calls.map((c) => [c[0], c[3]])).toEqual([
            ["waiting for IRIS to run: a Creating, b NotApplied (waited 0s)", true],
            ["waiting for IRIS to run: a Running, b Creating (waited 4s)", true],
            [expect.stringMatching(/^IrisCluster ha\/iris runs on a, b \(waited \d+s\)$/), undefined],
        ]);
    });

    test("the CRD wait: where it waits and what it gets, on the CrdMirror, then one line when found", async () => {
        const reader = async (_kc: string, _crd: string, _t: number, onProgress?: (l: string) => void) => {
            onProgress?.("waiting for CRD irisclusters.intersystems.com: not there yet (waited 0s)");
            return { kind: "CustomResourceDefinition", spec: { names: { kind: "IrisCluster", plural: "irisclusters" }, scope: "Namespaced", versions: [] } };
        };
        const m = new CrdMirror("iris-crd", {
            crdName: "irisclusters.intersystems.com",
            identity: { kind: "IrisCluster", plural: "irisclusters", scope: "Namespaced" },
            sourceKubeconfig: "kc",
            sourceName: "ikofett",
            sourceReady: "ok",
            timeoutSeconds: 60,
            targetProvider: provider(),
            reader,
        });
        await run.settle();
        const calls = info.mock.calls.filter((c) => c[1] === m);
        expect(calls.map((c) => [c[0], c[3]])).toEqual([
            ["on ikofett: waiting for CRD irisclusters.intersystems.com: not there yet (waited 0s)", true],
            [expect.stringMatching(/^CRD irisclusters\.intersystems\.com found on ikofett \(waited \d+s\)$/), undefined],
        ]);
    });
});

test("the clean-up of removed manifest objects says how many Works still hold them, when that changes", async () => {
    const c = clock();
    const lines: string[] = [];
    const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "iris", labels: { "kamino.io/manifest": "true" } } };
    const works = answers<(typeof svc)[]>([svc, svc], [svc, svc], [svc, svc], [svc], []);
    const karmada = { workObjects: works, deleteTemplate: async () => undefined };
    const removed = await removeDroppedObjects(karmada, new Set(), { onProgress: (l) => lines.push(l), ...c });
    expect(removed).toEqual(["Service iris/web"]);
    expect(lines).toEqual([
        "waiting for Karmada to take Service iris/web off the members: 2 Work(s) left (waited 0s)",
        "waiting for Karmada to take Service iris/web off the members: 1 Work(s) left (waited 2s)",
    ]);
});
