// `npm run failback` on a promoted IRIS mirror (components/mirror/failback.ts): which step the config
// calls for, the refusals, step 1 (rejoin recorded before pulumi up; a failed up said), and step 2's
// read-only status of the pair members and its printed instructions, against fakes.
import { mirrorFailback, mirrorFailbackStep, FailbackPorts, switchBackInstructions } from "../../components/mirror/failback";
import { MirrorConfig, MirrorError, parseMirrors } from "../../components/mirror/mirror-state";

const M = parseMirrors({ "default/iris": { name: "IRISMIRROR1", primary: "ikoclone", pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 2 } })[0];

describe("which step", () => {
    test("not promoted: refused (3), nothing to fail back", () => {
        expect(() => mirrorFailbackStep(M, {}, "Ready")).toThrow(/mirror default\/iris is not promoted .*nothing to fail back/);
    });

    test.each(["NotReady", "Unknown", "NoCluster"] as const)("promoted, the old member %s: refused (3) until it is Ready", (state) => {
        let e: unknown;
        try {
            mirrorFailbackStep(M, { promoted: "ikodr" }, state);
        } catch (x) {
            e = x;
        }
        expect(e).toBeInstanceOf(MirrorError);
        expect([(e as MirrorError).code, (e as Error).message]).toEqual([
            3,
            expect.stringMatching(new RegExp(`ikoclone, where the pair comes back, is ${state} in Karmada`)),
        ]);
    });

    test("promoted and the old member Ready: step 1; rejoin recorded: step 2 whatever the member", () => {
        expect(mirrorFailbackStep(M, { promoted: "ikodr" }, "Ready")).toBe("rejoin");
        expect(mirrorFailbackStep(M, { promoted: "ikodr", rejoin: true }, undefined)).toBe("switch-back");
    });
});

function fakes(config: MirrorConfig, opts: { ready?: string; upCode?: number; pods?: Record<string, string> } = {}) {
    const log: string[] = [];
    const ports: FailbackPorts = {
        karmada: async (method, path) => {
            log.push(`${method} ${path}`);
            return { status: 200, body: JSON.stringify({ status: { conditions: [{ type: "Ready", status: opts.ready ?? "True" }] } }) };
        },
        readConfig: async () => config,
        setPromoted: async () => void log.push("setPromoted"),
        setRejoin: async () => void log.push("config rejoin=true"),
        up: async () => (log.push("pulumi up"), opts.upCode ?? 0),
        getPod: async (member, _ns, name) => (opts.pods?.[name] && member === "ikoclone" ? { spec: { containers: [{ name: "iris" }] } } : undefined),
        exec: async (_member, target, _command, stdin) => {
            log.push(`exec ${target.pod}: ${stdin.split("\n")[0]}`);
            return { stdout: `%SYS>KAMINO-STATUS:${opts.pods![target.pod]}\n`, stderr: "", exitCode: 0 };
        },
        say: (l) => void log.push(`say ${l}`),
    };
    return { ports, log };
}

test("step 1: rejoin is recorded, then pulumi up runs", async () => {
    const f = fakes({ promoted: "ikodr" });
    expect(await mirrorFailback(f.ports, M)).toEqual({ step: "rejoin" });
    expect(f.log).toEqual([
        "GET /apis/cluster.karmada.io/v1alpha1/clusters/ikoclone",
        "config rejoin=true",
        "say recorded kamino:irisClusters[2].mirror.rejoin = true in the stack config; running pulumi up to declare the pair again on ikoclone",
        "pulumi up",
    ]);
});

test("step 1 refused while the old member is not Ready: neither config nor up", async () => {
    const f = fakes({ promoted: "ikodr" }, { ready: "False" });
    await expect(mirrorFailback(f.ports, M)).rejects.toThrow(/is NotReady in Karmada: fail back once it is Ready/);
    expect(f.log.filter((l) => !l.startsWith("GET"))).toEqual([]);
});

test("step 1 with a failed pulumi up: a failure (1) saying rejoin stays set", async () => {
    const f = fakes({ promoted: "ikodr" }, { upCode: 255 });
    const e = (await mirrorFailback(f.ports, M).then(
        () => undefined,
        (x: unknown) => x,
    )) as MirrorError;
    expect([e.code, e.message]).toEqual([1, expect.stringMatching(/pulumi up failed \(above, exit code 255\); mirror.rejoin stays set/)]);
});

test("step 2 reads each pair member's status (read only: no change, no promotion) and a missing pod is said", async () => {
    const f = fakes({ promoted: "ikodr", rejoin: true }, { pods: { "iris-data-0-0": "CONNECTED" } });
    expect(await mirrorFailback(f.ports, M)).toEqual({
        step: "switch-back",
        statuses: [
            { pod: "iris-data-0-0", status: "CONNECTED" },
            { pod: "iris-data-0-1", status: "no such pod" },
        ],
    });
    expect(f.log).toEqual(['exec iris-data-0-0: write "KAMINO-STATUS:",$SYSTEM.Mirror.GetStatus(),!']);
});

test("step 2's instructions name the pods, members and config paths, in the verified order: promote, stop the DR, demote, unset", () => {
    const text = switchBackInstructions(M, "ikodr", "dr");
    const order = ["##class(SYS.Mirror).Promote()", "iris stop IRIS quietly", "##class(SYS.Mirror).Demote()", "pulumi config rm"].map((s) => text.indexOf(s));
    expect(order.every((i, n) => i > 0 && (n === 0 || i > order[n - 1]))).toBe(true);
    expect(text).toContain("exec -i -n default iris-data-0-0 -- iris session IRIS -U %SYS");
    expect(text).toContain("kubectl --kubeconfig ikodr.kubeconfig exec -n default iris-ikodr-data-0 -- iris stop IRIS quietly");
    expect(text).toContain(
        "pulumi config rm --path 'kamino:irisClusters[2].mirror.rejoin' -s dr && pulumi config rm --path 'kamino:irisClusters[2].mirror.promoted' -s dr && pulumi up -s dr",
    );
    expect(text).toMatch(/is not automated/);
});
