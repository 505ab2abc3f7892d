// `npm run status`: reading and judging the fleet against a fake Karmada API that answers with the
// objects Karmada v1.18 keeps (Clusters, ResourceBindings, core/v1 events as its scheduler and
// eviction controllers record them), the verdict and exit code, the table (NO_COLOR, ages), the JSON
// shape, and the one-line messages. The real Karmada is in test/cluster/suites/failover.ts.
import * as fs from "fs";
import * as path from "path";
import {
    Binding,
    exitCodeOf,
    FleetStatus,
    irisClusterView,
    KarmadaGet,
    KubeEvent,
    memberView,
    movesOf,
    readFleetStatus,
    StatusError,
    Work,
} from "../../components/live/fleet-status";
import {
    ageOf,
    notBroughtUpMessage,
    noSuchStackMessage,
    renderStatus,
    table,
    unreachableMessage,
    useColor,
    verdicts,
    watchKey,
} from "../../components/live/status-view";
import { parseMirrors } from "../../components/mirror/mirror-state";
import { readMirrorViews } from "../../components/mirror/roles";

const NOW = Date.parse("2026-12-04T12:00:00Z");
const ago = (s: number) => new Date(NOW - s * 1000).toISOString().replace(".000", "");
const ID = "default/federated-iris";
const BINDINGS = "/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings";

const cluster = (
    name: string,
    ready: string | undefined,
    opts: { since?: number; taints?: Array<{ key: string; effect: string; timeAdded?: string }>; syncMode?: string } = {},
) => ({
    metadata: { name },
    spec: { syncMode: opts.syncMode ?? "Push", ...(opts.taints ? { taints: opts.taints } : {}) },
    status: {
        kubernetesVersion: "v1.36.3",
        ...(ready
            ? {
                  conditions: [
                      {
                          type: "Ready",
                          status: ready,
                          reason: ready === "True" ? "ClusterReady" : "ClusterNotReachable",
                          message: ready === "True" ? "cluster is healthy and ready to accept workloads" : "cluster is not reachable",
                          lastTransitionTime: ago(opts.since ?? 600),
                      },
                  ],
              }
            : {}),
    },
});
const TAINT = { key: "cluster.karmada.io/not-ready", effect: "NoExecute", timeAdded: ago(30) };

/** Kamino's failover placement over ikoclone then ikodr, as the binding copies it from the policy. */
const FAILOVER_PLACEMENT = {
    clusterAffinities: [
        { affinityName: "1-ikoclone", clusterNames: ["ikoclone"] },
        { affinityName: "2-ikodr", clusterNames: ["ikodr"] },
    ],
    spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }],
    clusterTolerations: [{ key: "cluster.karmada.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }],
};
const running = (clusterName: string, phase = "Running") => ({
    clusterName,
    applied: true,
    health: phase === "Failed" ? "Unhealthy" : "Healthy",
    status: {
        phase,
        conditions: [
            {
                type: "Ready",
                status: phase === "Running" ? "True" : "False",
                ...(phase === "Running" ? {} : { reason: "IRISStarting", message: "data node starting" }),
            },
        ],
    },
});
const irisBinding = (
    on: string[],
    opts: { aggregated?: unknown[]; evicting?: Array<{ fromCluster: string; creationTimestamp?: string; reason?: string }>; placement?: unknown } = {},
): Binding =>
    ({
        metadata: { name: "federated-iris-iriscluster", labels: { "resourcebinding.karmada.io/permanent-id": "pid-1" } },
        spec: {
            resource: { kind: "IrisCluster", name: "federated-iris" },
            clusters: on.map((name) => ({ name })),
            placement: opts.placement ?? FAILOVER_PLACEMENT,
            gracefulEvictionTasks: opts.evicting,
        },
        status: { aggregatedStatus: (opts.aggregated ?? on.map((m) => running(m))) as never },
    }) as Binding;
const secretBinding = (on: string[]): Binding => ({
    metadata: { name: "iris-key-secret-secret" },
    spec: { resource: { kind: "Secret", name: "iris-key-secret" }, clusters: [], requiredBy: [{ namespace: "default", name: "federated-iris-iriscluster" }] },
    status: { aggregatedStatus: on.map((clusterName) => ({ clusterName, applied: true })) },
});
/** Events as Karmada's scheduler and graceful-eviction controller record them on the binding. */
const scheduled = (members: string, first: number, last = first, count = 1): KubeEvent => ({
    metadata: { name: `federated-iris-iriscluster.${first}` },
    reason: "ScheduleBindingSucceed",
    message: `Binding has been scheduled successfully. Result: {${members}}`,
    count,
    firstTimestamp: ago(first),
    lastTimestamp: ago(last),
});
/** The Work of the IrisCluster for a member; `deleting`: Karmada is deleting it (the member was unreachable). */
const work = (member: string, deleting = false): Work => ({
    metadata: { namespace: `karmada-es-${member}`, ...(deleting ? { deletionTimestamp: ago(40) } : {}) },
});
const evicted = (member: string, at: number): KubeEvent => ({
    reason: "EvictWorkloadFromClusterSucceed",
    message: `Evict from cluster ${member} succeed.`,
    count: 1,
    firstTimestamp: ago(at),
    lastTimestamp: ago(at),
});

/** A fake Karmada API answering GETs from a table of paths; records what was asked. */
function fakeKarmada(objects: { clusters: unknown[]; bindings: Binding[]; events?: KubeEvent[]; works?: Work[] }) {
    const asked: string[] = [];
    const get: KarmadaGet = async (p) => {
        asked.push(p);
        const ok = (o: unknown) => ({ status: 200, body: JSON.stringify(o) });
        if (p === "/apis/cluster.karmada.io/v1alpha1/clusters") return ok({ items: objects.clusters });
        if (p === BINDINGS) return ok({ items: objects.bindings });
        if (p.startsWith("/api/v1/namespaces/default/events?fieldSelector=")) {
            expect(decodeURIComponent(p.split("=").slice(1).join("="))).toBe(
                "involvedObject.kind=ResourceBinding,involvedObject.name=federated-iris-iriscluster",
            );
            return ok({ items: objects.events ?? [] });
        }
        if (p === `/apis/work.karmada.io/v1alpha1/works?labelSelector=${encodeURIComponent("resourcebinding.karmada.io/permanent-id=pid-1")}`)
            return ok({ items: objects.works ?? [] });
        return { status: 404, body: "" };
    };
    return { get, asked };
}
const OUTPUTS = { members: ["ikoclone", "ikodr"], irisClusters: { [ID]: ["ikoclone", "ikodr"] } };
const read = (objects: Parameters<typeof fakeKarmada>[0]) => readFleetStatus(fakeKarmada(objects).get, "dr", OUTPUTS, () => new Date(NOW));

describe("judging: exit 0 only when every IrisCluster runs where its placement wants it", () => {
    test("failover, running on the first member: as placed, exit 0, the backup a standby", async () => {
        const s = await read({
            clusters: [cluster("ikoclone", "True"), cluster("ikodr", "True")],
            bindings: [irisBinding(["ikoclone"]), secretBinding(["ikoclone"])],
        });
        expect(s.irisClusters[0]).toMatchObject({
            id: ID,
            mode: "failover",
            placement: ["ikoclone", "ikodr"],
            scheduled: ["ikoclone"],
            runningOn: ["ikoclone"],
            asPlaced: true,
            problem: null,
        });
        expect(s.irisClusters[0].members.map((m) => [m.name, m.scheduled, m.phase, m.dependencies])).toEqual([
            ["ikoclone", true, "Running", [{ kind: "Secret", name: "iris-key-secret", present: true }]],
            ["ikodr", false, null, []],
        ]);
        expect([s.ok, exitCodeOf(s)]).toEqual([true, 0]);
    });

    test("failover, the first member down and tainted but not yet evicted: the member shows as down, exit 1", async () => {
        const s = await read({
            clusters: [cluster("ikoclone", "False", { since: 20, taints: [TAINT] }), cluster("ikodr", "True")],
            bindings: [irisBinding(["ikoclone"])],
        });
        expect(s.members[0]).toEqual({
            name: "ikoclone",
            syncMode: "Push",
            state: "NotReady",
            since: ago(20),
            reason: "ClusterNotReachable: cluster is not reachable",
            taints: [{ key: TAINT.key, effect: "NoExecute", since: ago(30) }],
            kubernetesVersion: "v1.36.3",
        });
        expect(s.irisClusters[0]).toMatchObject({ asPlaced: false, problem: "not running on ikoclone is NotReady", runningOn: [] });
        expect(exitCodeOf(s)).toBe(1);
    });

    test("failover, moved to the backup (the eviction from the first member still open): as placed, exit 0", async () => {
        const b = irisBinding(["ikodr"], {
            aggregated: [running("ikoclone"), running("ikodr")],
            evicting: [{ fromCluster: "ikoclone", creationTimestamp: ago(40), reason: "TaintUntolerated" }],
        });
        const s = await read({
            clusters: [cluster("ikoclone", "False", { taints: [TAINT] }), cluster("ikodr", "True")],
            bindings: [b, secretBinding(["ikodr"])],
            works: [work("ikoclone", true), work("ikodr")],
        });
        expect(s.irisClusters[0]).toMatchObject({
            scheduled: ["ikodr"],
            runningOn: ["ikodr"],
            asPlaced: true,
            evicting: [{ member: "ikoclone", since: ago(40), reason: "TaintUntolerated" }],
        });
        expect(s.irisClusters[0].members.find((m) => m.name === "ikoclone")).toMatchObject({
            scheduled: false,
            evicting: true,
            deleting: true,
            dependencies: [{ name: "iris-key-secret", present: false }],
        });
        expect(s.irisClusters[0].members.find((m) => m.name === "ikodr")).toMatchObject({ scheduled: true, evicting: false, deleting: false });
        expect(exitCodeOf(s)).toBe(0);
    });

    test.each([
        [
            "scheduled but IKO still creating it",
            irisBinding(["ikoclone"], { aggregated: [running("ikoclone", "Creating")] }),
            "not running on ikoclone: Creating (Ready=False: IRISStarting: data node starting)",
        ],
        ["scheduled, not applied yet", irisBinding(["ikoclone"], { aggregated: [] }), "not running on ikoclone: not applied yet"],
        ["on two members at once", irisBinding(["ikoclone", "ikodr"]), "scheduled on ikoclone, ikodr: failover placement wants exactly one member"],
        ["scheduled nowhere", irisBinding([]), "Karmada has not scheduled it on any member"],
    ])("failover, %s: not as placed, exit 1", async (_, binding, problem) => {
        const s = await read({ clusters: [cluster("ikoclone", "True"), cluster("ikodr", "True")], bindings: [binding] });
        expect([s.irisClusters[0].problem, exitCodeOf(s)]).toEqual([problem, 1]);
    });

    test("no binding yet: mode unknown, exit 1; a member with no Cluster is NotJoined", async () => {
        const s = await read({ clusters: [cluster("ikoclone", "True")], bindings: [] });
        expect(s.irisClusters[0]).toMatchObject({ mode: "unknown", problem: "Karmada has no ResourceBinding for it (not propagated yet)" });
        expect(s.members[1]).toMatchObject({ name: "ikodr", state: "NotJoined", syncMode: null, kubernetesVersion: null });
        expect(exitCodeOf(s)).toBe(1);
    });

    test("mode all: every scheduled member Ready and Running; one member down is not as placed", () => {
        const all = irisBinding(["ikoclone", "ikodr"], { placement: { clusterAffinity: { clusterNames: ["ikoclone", "ikodr"] } } });
        const up = [memberView("ikoclone", cluster("ikoclone", "True")), memberView("ikodr", cluster("ikodr", "True"))];
        expect(irisClusterView(ID, ["ikoclone", "ikodr"], all, [], up)).toMatchObject({ mode: "all", asPlaced: true, runningOn: ["ikoclone", "ikodr"] });
        const down = [up[0], memberView("ikodr", cluster("ikodr", "Unknown"))];
        expect(irisClusterView(ID, ["ikoclone", "ikodr"], all, [], down)).toMatchObject({
            asPlaced: false,
            problem: "not running on ikodr is Unknown",
            runningOn: ["ikoclone"],
        });
    });
});

describe("moves, from Karmada's events on the binding and its open eviction tasks", () => {
    test("scheduled, eviction begun, rescheduled, evicted, failback: in time order, repeats of the same result dropped", () => {
        const events = [
            // Karmada's recorder counts a repeated event: the first schedule's event last happened at the failback.
            scheduled("ikoclone:0", 900, 60, 3),
            scheduled("ikodr:0", 300),
            evicted("ikoclone", 120),
        ];
        const b = irisBinding(["ikoclone"], { evicting: [{ fromCluster: "ikodr", creationTimestamp: ago(50), reason: "ApplicationFailure" }] });
        expect(movesOf(ID, events, b, ["ikoclone", "ikodr"]).map((m) => [m.kind, m.members, m.at])).toEqual([
            ["scheduled", ["ikoclone"], ago(900)],
            ["rescheduled", ["ikodr"], ago(300)],
            ["evicted", ["ikoclone"], ago(120)],
            ["failback", ["ikoclone"], ago(60)],
            ["eviction", ["ikodr"], ago(50)],
        ]);
    });

    test("placement mode all: back to an earlier set is a reschedule, not a failback; failures are moves too", () => {
        const failedSchedule: KubeEvent = { reason: "ScheduleBindingFailed", message: "0/2 clusters are available", lastTimestamp: ago(10) };
        const moves = movesOf(ID, [scheduled("a:0, b:0", 100), scheduled("a:0", 50), scheduled("a:0, b:0", 20), failedSchedule], undefined, undefined);
        expect(moves.map((m) => [m.kind, m.members])).toEqual([
            ["scheduled", ["a", "b"]],
            ["rescheduled", ["a"]],
            ["rescheduled", ["a", "b"]],
            ["schedule-failed", []],
        ]);
    });

    test("readFleetStatus keeps the moves of this binding only (not of an earlier one of the same name), oldest first", async () => {
        const binding = { ...irisBinding(["ikoclone"]), metadata: { name: "federated-iris-iriscluster", uid: "now" } };
        const of = (uid: string, e: KubeEvent): KubeEvent => ({ ...e, involvedObject: { uid } });
        const events = [
            of("now", scheduled("ikodr:0", 300)),
            of("now", scheduled("ikoclone:0", 900)),
            of("earlier", scheduled("ikoclone:0", 1800)),
            of("earlier", evicted("ikodr", 1700)),
        ];
        const s = await read({ clusters: [cluster("ikoclone", "True"), cluster("ikodr", "True")], bindings: [binding], events });
        expect(s.moves.map((m) => [m.kind, m.at])).toEqual([
            ["scheduled", ago(900)],
            ["rescheduled", ago(300)],
        ]);
    });
});

describe("what it prints", () => {
    const status = (): Promise<FleetStatus> =>
        read({
            clusters: [cluster("ikoclone", "False", { since: 125, taints: [TAINT] }), cluster("ikodr", "True", { since: 3720 })],
            bindings: [
                irisBinding(["ikodr"], {
                    aggregated: [running("ikoclone"), running("ikodr")],
                    evicting: [{ fromCluster: "ikoclone", creationTimestamp: ago(40), reason: "TaintUntolerated" }],
                }),
                secretBinding(["ikodr"]),
            ],
            events: [scheduled("ikoclone:0", 900), scheduled("ikodr:0", 35)],
            works: [work("ikoclone", true), work("ikodr")],
        });

    test("the table without colour: members, IrisClusters, moves and the verdict, times as ages", async () => {
        const text = renderStatus(await status(), { color: false, now: NOW });
        expect(text).toBe(
            [
                "Stack dr, read from the Karmada API at 12:00:00 UTC",
                "",
                "MEMBER     SYNC   STATE      SINCE   TAINTS                                         VERSION",
                "ikoclone   Push   NotReady   2m5s    cluster.karmada.io/not-ready:NoExecute (30s)   v1.36.3",
                "ikodr      Push   Ready      1h2m    -                                              v1.36.3",
                "",
                "IRISCLUSTER              PLACEMENT                 MEMBER     KARMADA     APPLIED   PHASE             CONDITION   DEPENDENCIES",
                "default/federated-iris   failover ikoclone>ikodr   ikoclone   deleting    yes       Running (stale)   -           0/1 missing Secret/iris-key-secret",
                "                                                   ikodr      scheduled   yes       Running           -           1/1",
                "",
                "AGE   IRISCLUSTER              MOVE          MEMBERS    MESSAGE",
                "15m   default/federated-iris   scheduled     ikoclone   Binding has been scheduled successfully. Result: {ikoclone:0}",
                "40s   default/federated-iris   eviction      ikoclone   TaintUntolerated",
                "35s   default/federated-iris   rescheduled   ikodr      Binding has been scheduled successfully. Result: {ikodr:0}",
                "",
                "default/federated-iris: as placed, runs on ikodr",
                "",
            ].join("\n"),
        );
        expect(text).not.toContain("\x1b[");
    });

    test("colour only on a terminal and never with NO_COLOR; colour does not shift the columns", async () => {
        expect([useColor(true, {}), useColor(true, { NO_COLOR: "1" }), useColor(false, {}), useColor(undefined, {}), useColor(true, { NO_COLOR: "" })]).toEqual(
            [true, false, false, false, true],
        );
        const s = await status();
        const coloured = renderStatus(s, { color: true, now: NOW });
        expect(coloured).toContain("\x1b[31mNotReady");
        expect(coloured).toContain("\x1b[32mRunning");
        expect(coloured.replace(/\x1b\[\d*m/g, "")).toBe(renderStatus(s, { color: false, now: NOW }));
        expect(verdicts({ ...s, irisClusters: [{ ...s.irisClusters[0], asPlaced: false, problem: "x" }] }, false)).toEqual([
            "default/federated-iris: NOT as placed: x",
        ]);
    });

    test("ages as kubectl prints them, '-' when there is no time", () => {
        expect([ageOf(ago(0), NOW), ageOf(ago(40), NOW), ageOf(ago(185), NOW), ageOf(ago(7260), NOW), ageOf(null, NOW), ageOf("garbage", NOW)]).toEqual([
            "0s",
            "40s",
            "3m5s",
            "2h1m",
            "-",
            "-",
        ]);
        expect(table(["A", "LONG HEADER"], [[{ text: "wide cell" }, { text: "x" }]], false)).toEqual(["A           LONG HEADER", "wide cell   x"]);
    });

    test("the JSON shape: every documented field, and nothing else", async () => {
        const s = JSON.parse(JSON.stringify(await status())) as FleetStatus;
        expect(Object.keys(s)).toEqual(["version", "stack", "readAt", "ok", "members", "irisClusters", "moves"]);
        expect(s.version).toBe(1);
        expect(Object.keys(s.members[0])).toEqual(["name", "syncMode", "state", "since", "reason", "taints", "kubernetesVersion"]);
        expect(Object.keys(s.irisClusters[0])).toEqual(["id", "mode", "placement", "scheduled", "runningOn", "evicting", "members", "asPlaced", "problem"]);
        expect(Object.keys(s.irisClusters[0].members[0])).toEqual([
            "name",
            "scheduled",
            "evicting",
            "deleting",
            "applied",
            "phase",
            "condition",
            "health",
            "dependencies",
        ]);
        expect(Object.keys(s.moves[0])).toEqual(["at", "irisCluster", "kind", "members", "message"]);
        // A stack with an IRIS mirror adds `mirrors` (components/mirror/roles.ts).
        const mirrorOutput = { "default/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 0 } };
        const [mirror] = await readMirrorViews(parseMirrors(mirrorOutput), s.members, async () => ({ status: { phase: "Running" } }));
        expect(Object.keys(mirror)).toEqual(["id", "name", "primary", "promoted", "members"]);
        expect(Object.keys(mirror.members[0])).toEqual(["member", "irisCluster", "pod", "role", "label", "podState"]);
        // The example in the docs has the same fields, and no other.
        const example = fs.readFileSync(path.join(__dirname, "../../docs/status.md"), "utf8").split("```jsonc\n")[1].split("```")[0];
        const documented = new Set([...example.matchAll(/"(\w+)":/g)].map((m) => m[1]));
        const fields = [
            s,
            s.members[0],
            s.irisClusters[0],
            s.irisClusters[0].members[0],
            s.irisClusters[0].members[0].dependencies[0] ?? s.irisClusters[0].members[1].dependencies[0],
            s.moves[0],
            { mirrors: [] },
            mirror,
            mirror.members[0],
        ].flatMap((o) => Object.keys(o));
        expect([...documented].sort()).toEqual([...new Set(fields)].sort());
    });

    test("--watch redraws only on a change: the time read is not one", async () => {
        const a = await status();
        expect(watchKey({ ...a, readAt: "2030-01-01T00:00:00Z" })).toBe(watchKey(a));
        expect(watchKey({ ...a, ok: false })).not.toBe(watchKey(a));
    });
});

describe("when it cannot show the fleet: one line, with the fix", () => {
    test("Karmada unreachable, a stack never brought up, a stack that does not exist", () => {
        const lines = [
            unreachableMessage("dev", "https://127.0.0.1:5443", "ikofett", "connect ECONNREFUSED 127.0.0.1:5443"),
            notBroughtUpMessage("dev"),
            noSuchStackMessage("nope"),
        ];
        for (const l of lines) expect(l).not.toContain("\n");
        expect(lines[0]).toBe(
            "the Karmada API on ikofett (https://127.0.0.1:5443) cannot be reached: connect ECONNREFUSED 127.0.0.1:5443. Fix: start its host cluster ikofett (kind: docker start <its control-plane container>, see docker ps -a), or free the port if another program holds it; then run status again (npm run recover -- --stack dev rebuilds a fleet whose clusters are gone)",
        );
        expect(lines[1]).toBe("stack dev has not been brought up (it has no karmadaKubeconfig output): run pulumi up -s dev first");
        expect(lines[2]).toBe("there is no stack nope in this project's backend: see pulumi stack ls");
    });

    test("an API error other than not-found is a StatusError naming what was read, with Karmada's message", async () => {
        const get: KarmadaGet = async () => ({
            status: 403,
            body: JSON.stringify({ message: 'clusters.cluster.karmada.io is forbidden: User "x" cannot list resource' }),
        });
        await expect(readFleetStatus(get, "dev", OUTPUTS)).rejects.toThrow(StatusError);
        await expect(readFleetStatus(get, "dev", OUTPUTS)).rejects.toThrow(
            'reading the member clusters from the Karmada API failed: HTTP 403: clusters.cluster.karmada.io is forbidden: User "x" cannot list resource',
        );
    });
});
