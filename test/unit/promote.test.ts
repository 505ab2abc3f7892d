// `npm run promote`: the refusals and decisions (components/mirror/promotion.ts, mirror-state.ts) as
// pure functions, and the steps (components/mirror/promote.ts) against a fake world: a Karmada API
// holding the member's Cluster and the pair's objects, a stack config, and a DR pod whose `iris
// session` answers as IRIS's mirror does (CONNECTED; PRIMARY after PromoteWithNoPartner(); BACKUP
// after Promote(), then PRIMARY once the pair is withdrawn). The real exec API is in
// test/cluster/mirror-promote-pod.test.ts.
import { spawnSync } from "child_process";
import * as path from "path";
import { exitCodeOf } from "../../components/live/pod-exec";
import {
    findMirror,
    memberKubeconfig,
    Mirror,
    mirrorConfigOf,
    MirrorConfig,
    MirrorError,
    parseMirrors,
    withMirrorField,
} from "../../components/mirror/mirror-state";
import { MirrorPorts, promote } from "../../components/mirror/promote";
import {
    checkPrimaryMember,
    memberStateOf,
    parseSession,
    planPromotion,
    policyNameOf,
    promoteScript,
    sessionContainer,
    STATUS_SCRIPT,
} from "../../components/mirror/promotion";

const ID = "default/iris";
const OUTPUT = { "default/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 0 } };
const MIRRORS = parseMirrors(OUTPUT);
const CLUSTER_PATH = "/apis/cluster.karmada.io/v1alpha1/clusters/ikoclone";
const IRIS_PATH = "/apis/intersystems.com/v1alpha1/namespaces/default/irisclusters/iris";
const POLICY_PATH = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies/${name}`;

const code = (e: unknown) => (e instanceof MirrorError ? e.code : `not a MirrorError: ${String(e)}`);
/** What a call threw (undefined when it returned). */
function thrown(f: () => unknown): MirrorError | undefined {
    try {
        f();
    } catch (x) {
        return x as MirrorError;
    }
    return undefined;
}
const failure = async (p: Promise<unknown>) =>
    p.then(
        () => new Error("resolved"),
        (e: unknown) => e as Error,
    );

describe("the stack output and config of a mirror", () => {
    test("the output is read as the contract writes it; an absent output is no mirror", () => {
        expect(MIRRORS).toEqual([
            { id: ID, namespace: "default", name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 0 },
        ]);
        expect(parseMirrors(undefined)).toEqual([]);
        expect(() => parseMirrors({ "default/iris": { primary: "ikoclone" } })).toThrow(/is not a mirror as Kamino writes it: run pulumi up/);
    });

    test("a name that is no mirror is refused with the stack's mirrors", () => {
        const e = thrown(() => findMirror(MIRRORS, "default/other", "dr"));
        expect(e?.message).toMatch(/^default\/other is not a mirror of stack dr \(its mirrors are default\/iris\)\. Fix: /);
        expect(e?.code).toBe(3);
    });

    test("the config entry must still be the mirror the output's index names", () => {
        const m = MIRRORS[0];
        expect(mirrorConfigOf([{ name: "iris", mirror: { primary: "ikoclone", promoted: "ikodr" } }], m)).toEqual({ promoted: "ikodr" });
        expect(mirrorConfigOf([{ name: "iris", namespace: "default", mirror: { rejoin: true, promoted: "ikodr" } }], m)).toEqual({
            promoted: "ikodr",
            rejoin: true,
        });
        expect(() => mirrorConfigOf([{ name: "other", mirror: {} }], m)).toThrow(/kamino:irisClusters\[0\] is not the mirror default\/iris any more/);
        expect(() => mirrorConfigOf([{ name: "iris" }], m)).toThrow(/not the mirror/);
        expect(() => mirrorConfigOf([], m)).toThrow(/run pulumi up so that/);
    });

    test("one field of the entry set or removed, every other entry and field as it was; a moved entry refused", () => {
        const m = MIRRORS[0];
        const list = [{ name: "iris", image: "i", mirror: { primary: "ikoclone", drAsync: ["ikodr"] } }, { name: "other" }];
        const promoted = withMirrorField(list, m, "promoted", "ikodr");
        expect(promoted).toEqual([{ name: "iris", image: "i", mirror: { primary: "ikoclone", drAsync: ["ikodr"], promoted: "ikodr" } }, { name: "other" }]);
        expect(list[0].mirror).toEqual({ primary: "ikoclone", drAsync: ["ikodr"] }); // not changed in place
        expect(withMirrorField(withMirrorField(promoted, m, "rejoin", true), m, "promoted", undefined)).toEqual([
            { name: "iris", image: "i", mirror: { primary: "ikoclone", drAsync: ["ikodr"], rejoin: true } },
            { name: "other" },
        ]);
        expect(() => withMirrorField([{ name: "other" }, list[0]], m, "promoted", "ikodr")).toThrow(/kamino:irisClusters\[0\] is not the mirror/);
    });

    test("a member without a kubeconfig in the outputs is a failure that never shows the others", () => {
        expect(memberKubeconfig({ ikodr: "apiVersion: v1 SECRET" }, "ikodr")).toContain("SECRET");
        const e = thrown(() => memberKubeconfig({ ikoclone: "apiVersion: v1 SECRET" }, "ikodr"));
        expect(e?.message).toMatch(/has no kubeconfig for member ikodr/);
        expect(e?.message).not.toContain("SECRET");
    });
});

describe("the decisions before anything changes", () => {
    const req = (to = "ikodr", planned = false) => ({ id: ID, to, planned });

    test("--to must be one of the mirror's DR async members", () => {
        expect(() => planPromotion(MIRRORS, "dr", req("ikoclone"), {})).toThrow(
            /ikoclone is not a DR async member of mirror default\/iris \(its DR async members: ikodr\)\. Fix: --to ikodr/,
        );
    });

    test("a promotion recorded for another member, or a failback under way, is refused", () => {
        const two = parseMirrors({ [ID]: { ...OUTPUT[ID], drAsync: { ikodr: "iris-ikodr", ikodr2: "iris-ikodr2" } } });
        expect(() => planPromotion(two, "dr", req("ikodr2"), { promoted: "ikodr" })).toThrow(/already promoted to ikodr .*fail back first/);
        expect(() => planPromotion(MIRRORS, "dr", req(), { promoted: "ikodr", rejoin: true })).toThrow(/a failback of default\/iris is under way/);
    });

    test("the plan names the DR pod by IKO's non-mirrored naming, and knows an earlier run recorded the promotion", () => {
        expect(planPromotion(MIRRORS, "dr", req(), {})).toMatchObject({ drCluster: "iris-ikodr", drPod: "iris-ikodr-data-0", recorded: false });
        expect(planPromotion(MIRRORS, "dr", req(), { promoted: "ikodr" }).recorded).toBe(true);
    });

    test.each([
        [false, "Ready", /ikoclone, the member running the primary of default\/iris, is Ready in Karmada: promoting ikodr now would make two primaries/],
        [true, "NotReady", /--planned needs the pair running, but ikoclone is NotReady in Karmada/],
        [true, "NoCluster", /is NoCluster/],
    ])("planned=%s with the primary's member %s is refused", (planned, state, message) => {
        const plan = planPromotion(MIRRORS, "dr", req("ikodr", planned), {});
        expect(() => checkPrimaryMember(plan, state as "Ready")).toThrow(message);
    });

    test.each([
        [false, "NotReady"],
        [false, "Unknown"],
        [false, "NoCluster"],
        [true, "Ready"],
    ])("planned=%s with the primary's member %s may go ahead", (planned, state) => {
        expect(() => checkPrimaryMember(planPromotion(MIRRORS, "dr", req("ikodr", planned), {}), state as "Ready")).not.toThrow();
    });

    test("a member's state is its Karmada Cluster's Ready condition", () => {
        const c = (status?: string) => ({ status: { conditions: status ? [{ type: "Ready", status }] : [] } });
        expect([c("True"), c("False"), c("Unknown"), c(), undefined].map(memberStateOf)).toEqual(["Ready", "NotReady", "Unknown", "Unknown", "NoCluster"]);
    });
});

describe("the IRIS sessions", () => {
    test("the promotion writes its %Status on marked lines and halts; planned calls Promote()", () => {
        expect(promoteScript(false)).toBe(
            [
                "set sc=##class(SYS.Mirror).PromoteWithNoPartner()",
                'write "KAMINO-RESULT:",$SYSTEM.Status.IsOK(sc),!',
                'write:\'$SYSTEM.Status.IsOK(sc) "KAMINO-ERROR:",$SYSTEM.Status.GetErrorText(sc),!',
                "halt",
                "",
            ].join("\n"),
        );
        expect(promoteScript(true)).toContain("set sc=##class(SYS.Mirror).Promote()\n");
        expect(STATUS_SCRIPT).toBe('write "KAMINO-STATUS:",$SYSTEM.Mirror.GetStatus(),!\nhalt\n');
    });

    test("only marked lines count: after a prompt, not an echoed input line", () => {
        const echoed = '%SYS>write "KAMINO-RESULT:",$SYSTEM.Status.IsOK(sc),!\r\nKAMINO-RESULT:1\r\n%SYS>halt\r\n';
        expect(parseSession(echoed)).toEqual({ ok: true });
        expect(parseSession("\nNode: iris-ikodr-data-0, Instance: IRIS\n\n%SYS>KAMINO-STATUS:primary\n")).toEqual({ status: "PRIMARY" });
        expect(parseSession("KAMINO-RESULT:0\nKAMINO-ERROR:ERROR #2079: Mirror not configured\n")).toEqual({
            ok: false,
            error: "ERROR #2079: Mirror not configured",
        });
        expect(parseSession('Username: \nPassword: \nAccess Denied\nwrite "KAMINO-STATUS:",$SYSTEM.Mirror.GetStatus(),!')).toEqual({});
        expect(parseSession("KAMINO-RESULT:yes\nKAMINO-STATUS:\n")).toEqual({});
    });

    test("the session container is iris when there is one, else the first", () => {
        expect(sessionContainer({ spec: { containers: [{ name: "sidecar" }, { name: "iris" }] } })).toBe("iris");
        expect(sessionContainer({ spec: { containers: [{ name: "main" }, { name: "x" }] } })).toBe("main");
        expect(sessionContainer({ spec: { containers: [] } })).toBeUndefined();
    });

    test("the pair's policy is the one Karmada annotated on the template, else Kamino's default name", () => {
        expect(policyNameOf({ metadata: { annotations: { "propagationpolicy.karmada.io/name": "iriscluster-propagate" } } }, "iris")).toBe(
            "iriscluster-propagate",
        );
        expect(policyNameOf({ metadata: { labels: { "propagationpolicy.karmada.io/name": "old-label" } } }, "iris")).toBe("old-label");
        expect(policyNameOf(undefined, "iris")).toBe("iris-propagate");
    });

    test("the exec API's closing status gives the exit code", () => {
        expect(exitCodeOf({ status: "Success" })).toBe(0);
        expect(exitCodeOf({ status: "Failure", details: { causes: [{ reason: "ExitCode", message: "3" }] } })).toBe(3);
        expect(exitCodeOf({ status: "Failure" })).toBeNull();
        expect(exitCodeOf(undefined)).toBeNull();
    });
});

interface WorldOptions {
    primaryReady?: "True" | "False";
    config?: MirrorConfig;
    drStatus?: string;
    pod?: boolean;
    pairPresent?: boolean;
    promoteError?: string;
    /** What `iris session` prints instead of answering (a login prompt). */
    noAnswer?: string;
    /** Stays at this status whatever happens. */
    stuck?: boolean;
}

/** A fake world: Karmada, the stack config and the DR pod's IRIS; `log` is every change and session, in order. */
function world(o: WorldOptions = {}) {
    const s = { config: { ...(o.config ?? {}) }, status: o.drStatus ?? "CONNECTED", pair: o.pairPresent ?? true, policy: o.pairPresent ?? true };
    const log: string[] = [];
    const ok = (x: unknown) => ({ status: 200, body: JSON.stringify(x) });
    const gone = { status: 404, body: '{"message":"not found"}' };
    let t = 0;
    const ports: MirrorPorts = {
        karmada: async (method, path) => {
            if (method !== "GET") log.push(`${method} ${path}`);
            if (method === "GET" && path === CLUSTER_PATH)
                return o.primaryReady ? ok({ status: { conditions: [{ type: "Ready", status: o.primaryReady }] } }) : gone;
            if (path === IRIS_PATH) {
                if (!s.pair) return gone;
                if (method === "DELETE") s.pair = false;
                return ok({ metadata: { name: "iris", annotations: { "propagationpolicy.karmada.io/name": "iriscluster-propagate" } } });
            }
            if (method === "DELETE" && path === POLICY_PATH("iriscluster-propagate")) {
                if (!s.policy) return gone;
                s.policy = false;
                return ok({});
            }
            return gone;
        },
        readConfig: async () => ({ ...s.config }),
        setPromoted: async (member) => {
            log.push(`config promoted=${member}`);
            s.config.promoted = member;
        },
        getPod: async (member, namespace, name) =>
            o.pod === false || member !== "ikodr" || name !== "iris-ikodr-data-0"
                ? undefined
                : { metadata: { name }, spec: { containers: [{ name: "iris" }] } },
        exec: async (member, target, command, stdin) => {
            expect([member, target, command]).toEqual([
                "ikodr",
                { namespace: "default", pod: "iris-ikodr-data-0", container: "iris" },
                ["iris", "session", "IRIS", "-U", "%SYS"],
            ]);
            const prompt = "\nNode: iris-ikodr-data-0, Instance: IRIS\n\n%SYS>";
            if (o.noAnswer) return { stdout: o.noAnswer, stderr: "", exitCode: 1 };
            if (stdin.includes("GetStatus")) {
                if (!o.stuck && s.status === "BACKUP" && !s.pair) s.status = "PRIMARY";
                return { stdout: `${prompt}KAMINO-STATUS:${s.status}\n%SYS>`, stderr: "", exitCode: 0 };
            }
            const method = /SYS\.Mirror\)\.(\w+)\(/.exec(stdin)![1];
            log.push(`session ${method}`);
            if (o.promoteError) return { stdout: `${prompt}KAMINO-RESULT:0\nKAMINO-ERROR:${o.promoteError}\n`, stderr: "", exitCode: 0 };
            if (!o.stuck) s.status = method === "Promote" ? "BACKUP" : "PRIMARY";
            return { stdout: `${prompt}KAMINO-RESULT:1\n%SYS>`, stderr: "", exitCode: 0 };
        },
        say: (line) => said.push(line),
        now: () => t,
        sleep: async (ms) => void (t += ms),
    };
    const said: string[] = [];
    return { ports, log, said, s };
}

const run = (w: ReturnType<typeof world>, planned = false, mirrors: Mirror[] = MIRRORS) =>
    promote(w.ports, mirrors, "dr", { id: ID, to: "ikodr", planned }, { timeoutSeconds: 60, intervalSeconds: 5 });
const FENCE = [`config promoted=ikodr`, `DELETE ${POLICY_PATH("iriscluster-propagate")}`, `DELETE ${IRIS_PATH}`];

describe("promote, step by step", () => {
    test("unplanned, the primary's member lost: fence first (config, policy, template), then PromoteWithNoPartner, then PRIMARY", async () => {
        const w = world({ primaryReady: "False" });
        expect(await run(w)).toEqual({ promoted: true, status: "PRIMARY" });
        expect(w.log).toEqual([...FENCE, "session PromoteWithNoPartner"]);
        expect(w.said.map((l) => l.replace(/ \(\d+\.\d s\)$/, ""))).toEqual([
            "reading the mirror's entry in the stack config: not promoted",
            "asking Karmada about ikoclone, the primary's member: NotReady",
            "finding pod iris-ikodr-data-0 on ikodr: container iris",
            "asking iris-ikodr-data-0 its mirror status: CONNECTED",
            "recording kamino:irisClusters[0].mirror.promoted = ikodr in the stack config: set",
            "withdrawing the pair default/iris from ikoclone (Karmada API): IrisCluster iris deleted, PropagationPolicy iriscluster-propagate deleted",
            "PromoteWithNoPartner() in iris-ikodr-data-0: %Status OK",
            "waiting until iris-ikodr-data-0 reports PRIMARY: PRIMARY",
        ]);
        expect(w.said.every((l) => / \(\d+\.\d s\)$/.test(l))).toBe(true);
    });

    test("a member Karmada no longer has a Cluster for counts as lost", async () => {
        const w = world({});
        expect((await run(w)).status).toBe("PRIMARY");
        expect(w.log).toEqual([...FENCE, "session PromoteWithNoPartner"]);
    });

    test("unplanned while the primary's member is Ready: refused (3), nothing changed, no session", async () => {
        const w = world({ primaryReady: "True" });
        const e = await failure(run(w));
        expect(code(e)).toBe(3);
        expect(e.message).toMatch(/is Ready in Karmada: promoting ikodr now would make two primaries\. Fix: .*--planned/);
        expect(w.log).toEqual([]);
    });

    test("run twice: the second finds the promotion recorded and the DR PRIMARY, sets nothing, says the pair is gone", async () => {
        const w = world({ primaryReady: "False" });
        await run(w);
        w.log.length = 0;
        w.said.length = 0;
        expect(await run(w)).toEqual({ promoted: false, status: "PRIMARY" });
        expect(w.log).toEqual([`DELETE ${POLICY_PATH("iris-propagate")}`]);
        expect(w.said.join("\n")).toMatch(/mirror.promoted = ikodr is already in the stack config: not set again/);
        expect(w.said.join("\n")).toMatch(/IrisCluster iris already gone, PropagationPolicy iris-propagate already gone/);
        expect(w.said.join("\n")).not.toMatch(/asking Karmada about/);
    });

    test("a second run after the old member came back (Ready) still finishes: the recorded fence answers the Ready check", async () => {
        const w = world({ primaryReady: "True", config: { promoted: "ikodr" }, pairPresent: false });
        expect(await run(w)).toEqual({ promoted: true, status: "PRIMARY" });
        expect(w.log).toEqual([`DELETE ${POLICY_PATH("iris-propagate")}`, "session PromoteWithNoPartner"]);
    });

    test("planned: Promote() while the pair runs, BACKUP, then the fence, then PRIMARY once the pair is gone", async () => {
        const w = world({ primaryReady: "True" });
        expect(await run(w, true)).toEqual({ promoted: true, status: "PRIMARY" });
        expect(w.log).toEqual(["session Promote", ...FENCE]);
        expect(w.said.map((l) => l.replace(/ \(\d+\.\d s\)$/, ""))).toContain("waiting until iris-ikodr-data-0 reports BACKUP: BACKUP");
    });

    test("planned while the primary's member is not Ready: refused (3) before any change", async () => {
        const w = world({ primaryReady: "False" });
        expect(code(await failure(run(w, true)))).toBe(3);
        expect(w.log).toEqual([]);
    });

    test("planned, second run after the fence with the DR still a DR async: told to promote without --planned", async () => {
        const w = world({ primaryReady: "True", config: { promoted: "ikodr" }, pairPresent: false });
        const e = await failure(run(w, true));
        expect([code(e), e.message]).toEqual([1, expect.stringMatching(/reports CONNECTED, not BACKUP.*Fix: run again without --planned/)]);
        expect(w.log).toEqual([]);
    });

    test("the DR pod missing: a failure (1) before the fence, nothing changed", async () => {
        const w = world({ primaryReady: "False", pod: false });
        const e = await failure(run(w));
        expect([code(e), e.message]).toEqual([1, expect.stringMatching(/pod default\/iris-ikodr-data-0 is not on ikodr: nothing was changed\. Fix: /)]);
        expect(w.log).toEqual([]);
    });

    test("IRIS refuses the promotion: a failure (1) with its error, saying the old primary is fenced", async () => {
        const w = world({ primaryReady: "False", promoteError: "ERROR #2096: not a DR async member" });
        const e = await failure(run(w));
        expect(code(e)).toBe(1);
        expect(e.message).toMatch(
            /PromoteWithNoPartner\(\) in iris-ikodr-data-0 on ikodr returned an error: ERROR #2096: not a DR async member\. The old primary is fenced/,
        );
        expect(e.message).toMatch(/by hand: kubectl --kubeconfig ikodr.kubeconfig exec -i -n default iris-ikodr-data-0 -- iris session IRIS -U %SYS/);
    });

    test("not PRIMARY within the timeout: a failure (1) naming the last status and how to resume", async () => {
        const w = world({ primaryReady: "False", stuck: true });
        const e = await failure(run(w));
        expect(code(e)).toBe(1);
        expect(e.message).toMatch(/did not report PRIMARY within 60 s \(last: CONNECTED\)\. The old primary is fenced.*run this command again to keep waiting/);
    });

    test("a session that prints no marked line (a login prompt) is a failure, not a success by exit code", async () => {
        const w = world({ primaryReady: "False", noAnswer: "Username: \nPassword: \nAccess Denied\n" });
        const e = await failure(run(w));
        expect(code(e)).toBe(1);
        expect(e.message).toMatch(/printed no KAMINO-STATUS line \(exit code 1; its last lines: Username: \| Password: \| Access Denied\)/);
        expect(e.message).toMatch(/^asking iris-ikodr-data-0 its mirror status failed: iris session .*ask for a login\?\. Nothing was changed\. Fix: /);
        expect(w.log).toEqual([]);
    });

    test("an unexpected error (the member unreachable, the exec failing) is a failure (1) saying what was done so far", async () => {
        const unreachable = world({ primaryReady: "False" });
        unreachable.ports.getPod = () => Promise.reject(new Error("connect ECONNREFUSED 172.18.0.4:6443"));
        const e1 = await failure(run(unreachable));
        expect([code(e1), e1.message]).toEqual([
            1,
            "finding pod iris-ikodr-data-0 on ikodr failed: connect ECONNREFUSED 172.18.0.4:6443. Nothing was changed. Fix: what the error names, then run this again",
        ]);

        const w = world({ primaryReady: "False" });
        const exec = w.ports.exec;
        w.ports.exec = (m, t, c, stdin) =>
            stdin.includes("PromoteWithNoPartner") ? Promise.reject(new Error("WebSocket closed: 1006")) : exec(m, t, c, stdin);
        const e2 = await failure(run(w));
        expect(code(e2)).toBe(1);
        expect(e2.message).toMatch(
            /^PromoteWithNoPartner\(\) in iris-ikodr-data-0 failed: WebSocket closed: 1006\. The old primary is fenced \(mirror.promoted = ikodr/,
        );
        expect(w.log).toEqual(FENCE);
    });

    test("a Karmada API that cannot be read stops it before any change", async () => {
        const w = world({});
        const karmada = w.ports.karmada;
        w.ports.karmada = async (method, path, body) =>
            path === CLUSTER_PATH ? { status: 503, body: '{"message":"unavailable"}' } : karmada(method, path, body);
        const e = await failure(run(w));
        expect([code(e), e.message]).toEqual([1, "reading Cluster ikoclone from the Karmada API failed (HTTP 503: unavailable); nothing was changed"]);
    });
});

describe("the command line", () => {
    const promoteCommand = (...args: string[]) =>
        spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "commands/promote.ts", ...args], {
            cwd: path.resolve(__dirname, "../.."),
            encoding: "utf8",
            env: { ...process.env, PATH: "/nonexistent" },
        });

    test.each([
        [[], /^name one mirror, as namespace\/name\n/],
        [["default/iris"], /^--to <member> is required: the DR async member to make primary\n/],
        [["default/iris", "--to", "ikodr", "--timeout", "soon"], /^--timeout needs a whole number of seconds\n/],
        [["default/iris", "--to"], /^--to needs a DR async member\n/],
        [["default/iris", "--to", "ikodr", "--force"], /^unknown option --force\n/],
    ])("%j is a usage error (2), before pulumi is asked anything", (args, message) => {
        const r = promoteCommand(...args);
        expect([r.status, r.stderr]).toEqual([2, expect.stringMatching(message)]);
        expect(r.stderr).toContain("usage: npm run promote -- <namespace/name> --to <member> [--planned] [--timeout <seconds>] [--stack <stack>]");
    });
});
