// `npm run status` for IRIS mirrors (components/mirror/roles.ts, live/status-view.ts): each member's
// role by the config beside IKO's mirrorRole label on its pod, members Karmada does not report Ready
// not asked, a failed read said on its row, and the table and verdict lines.
import { MemberView, MirrorView } from "../../components/live/fleet-status";
import { mirrorVerdict, renderStatus } from "../../components/live/status-view";
import { parseMirrors } from "../../components/mirror/mirror-state";
import { mirrorInstances, readMirrorViews, MemberPodGet } from "../../components/mirror/roles";

const OUT = { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr", ikodr2: "iris-ikodr2" }, configIndex: 0 };
const mirror = (extra: Record<string, unknown> = {}) => parseMirrors({ "default/iris": { ...OUT, ...extra } })[0];
const member = (name: string, state: MemberView["state"] = "Ready"): MemberView => ({
    name,
    syncMode: "Push",
    state,
    since: null,
    reason: null,
    taints: [],
    kubernetesVersion: null,
});

/** Pods as IKO labels them: the pair's primary and backup; the DR pods without a labeler. */
const PODS: Record<string, { labels?: Record<string, string>; phase: string }> = {
    "ikoclone/iris-data-0-0": { labels: { "intersystems.com/mirrorRole": "primary" }, phase: "Running" },
    "ikoclone/iris-data-0-1": { labels: { "intersystems.com/mirrorRole": "backup" }, phase: "Running" },
    "ikodr/iris-ikodr-data-0": { phase: "Running" },
    "ikodr2/iris-ikodr2-data-0": { labels: { "intersystems.com/mirrorRole": "backup" }, phase: "Pending" },
};
const asked: string[] = [];
const getPod: MemberPodGet = async (m, ns, name) => {
    asked.push(`${m}/${name}`);
    if (m === "ikodr2" && name === "boom") throw new Error("HTTP 403: forbidden");
    const p = PODS[`${m}/${name}`];
    return p && { metadata: { name, labels: p.labels }, status: { phase: p.phase } };
};

test("the roles by the config: the pair's failover pods and a DR pod per member; promoted, fenced and rejoining", () => {
    expect(mirrorInstances(mirror()).map((i) => `${i.member} ${i.pod} ${i.role}`)).toEqual([
        "ikoclone iris-data-0-0 failover",
        "ikoclone iris-data-0-1 failover",
        "ikodr iris-ikodr-data-0 drasync",
        "ikodr2 iris-ikodr2-data-0 drasync",
    ]);
    expect(mirrorInstances(mirror({ promoted: "ikodr" })).map((i) => i.role)).toEqual(["fenced", "fenced", "promoted", "drasync"]);
    expect(mirrorInstances(mirror({ promoted: "ikodr", rejoin: true })).map((i) => i.role)).toEqual(["rejoining", "rejoining", "promoted", "drasync"]);
});

test("IKO's label is shown as IKO set it; a member not Ready is not asked; a missing pod is said", async () => {
    asked.length = 0;
    const views = await readMirrorViews([mirror({ promoted: "ikodr" })], [member("ikoclone", "NotReady"), member("ikodr"), member("ikodr2")], getPod);
    expect(views).toEqual([
        {
            id: "default/iris",
            name: "IRISMIRROR1",
            primary: "ikoclone",
            promoted: "ikodr",
            members: [
                { member: "ikoclone", irisCluster: "iris", pod: "iris-data-0-0", role: "fenced", label: null, podState: "not read: ikoclone is NotReady" },
                { member: "ikoclone", irisCluster: "iris", pod: "iris-data-0-1", role: "fenced", label: null, podState: "not read: ikoclone is NotReady" },
                { member: "ikodr", irisCluster: "iris-ikodr", pod: "iris-ikodr-data-0", role: "promoted", label: null, podState: "Running" },
                { member: "ikodr2", irisCluster: "iris-ikodr2", pod: "iris-ikodr2-data-0", role: "drasync", label: "backup", podState: "Pending" },
            ],
        },
    ]);
    expect(asked).toEqual(["ikodr/iris-ikodr-data-0", "ikodr2/iris-ikodr2-data-0"]);
});

test("a pod that cannot be read is said on its row, the others still read", async () => {
    const failing: MemberPodGet = async (m, ns, name) => (m === "ikodr" ? Promise.reject(new Error("HTTP 403: forbidden")) : getPod(m, ns, name));
    const [v] = await readMirrorViews(
        [mirror()],
        ["ikoclone", "ikodr", "ikodr2"].map((n) => member(n)),
        failing,
    );
    expect(v.members.map((x) => `${x.pod} ${x.label} ${x.podState}`)).toEqual([
        "iris-data-0-0 primary Running",
        "iris-data-0-1 backup Running",
        "iris-ikodr-data-0 null unreadable: HTTP 403: forbidden",
        "iris-ikodr2-data-0 backup Pending",
    ]);
});

test("the table and the verdict lines", async () => {
    const [plain] = await readMirrorViews(
        [mirror()],
        ["ikoclone", "ikodr", "ikodr2"].map((n) => member(n)),
        getPod,
    );
    const text = renderStatus(
        { version: 1, stack: "dr", readAt: "2026-12-05T12:00:00.000Z", ok: true, members: [], irisClusters: [], moves: [], mirrors: [plain] },
        { color: false, now: Date.parse("2026-12-05T12:00:00Z") },
    );
    expect(text).toContain(
        [
            "MIRROR                       MEMBER     POD                  ROLE       IKO LABEL   POD STATE",
            "default/iris (IRISMIRROR1)   ikoclone   iris-data-0-0        failover   primary     Running",
            "                             ikoclone   iris-data-0-1        failover   backup      Running",
            "                             ikodr      iris-ikodr-data-0    drasync    -           Running",
            "                             ikodr2     iris-ikodr2-data-0   drasync    backup      Pending",
            "default/iris: mirror IRISMIRROR1, primary pair on ikoclone",
        ].join("\n"),
    );
    const view = (promoted: string | null, role: "fenced" | "rejoining"): MirrorView => ({
        ...plain,
        promoted,
        members: plain.members.map((x) => (x.member === "ikoclone" ? { ...x, role } : x)),
    });
    expect(mirrorVerdict(view("ikodr", "fenced"))).toBe("default/iris: mirror IRISMIRROR1 promoted to ikodr; the pair on ikoclone is fenced");
    expect(mirrorVerdict(view("ikodr", "rejoining"))).toMatch(/the pair on ikoclone rejoins as DR async \(npm run failback for the next step\)$/);
    expect(
        renderStatus(
            { version: 1, stack: "dr", readAt: "2026-12-05T12:00:00.000Z", ok: true, members: [], irisClusters: [], moves: [] },
            { color: false, now: 0 },
        ),
    ).not.toContain("MIRROR");
});
