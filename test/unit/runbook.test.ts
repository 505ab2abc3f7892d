// The production drill's backup and restore (test/cluster/prod-restore.ts) are docs/production.md's
// commands as written: every command the drill runs is on the page, save the few it must run
// differently here, each named below with the reason. A flag added to or dropped from one side only
// (as `--bump-revision` once was from both) fails here, before any real-node run; and step 5's helper
// pod is the page's but for its image.
import * as fs from "fs";
import * as path from "path";
import { backUpByHand, helperPod, restore, RunbookShell } from "../cluster/prod-restore";

const PAGE = fs.readFileSync(path.join(__dirname, "../../docs/production.md"), "utf8");
const LOCAL_PORT = 40123;

/** What the drill may run that the page does not say word for word, and why. */
const DRILL_ONLY: { line: RegExp; why: string }[] = [
    {
        line: /port-forward pod\/karmada-etcd-0 2379:2379 > port-forward\.log 2>&1 & PF=\$!$|^for i in \$\(seq 1 60\); do grep -q "Forwarding from"/,
        why: "waits for the forward to listen, which an operator sees printed",
    },
    {
        line: /^cat <<'EOF' \| kubectl apply -f -$|^EOF$|^\{"apiVersion":"v1","kind":"Pod","metadata":\{"name":"restore-\d"/,
        why: "step 5's helper pods with the shell image built here",
    },
    { line: /rollout status .*--timeout=\d+s; done$/, why: "step 6 with a limit, so that a hung rollout fails the test" },
    {
        line: /^for m in .*; do$|^done$|--kubeconfig "\$m\.kubeconfig" -n karmada-system rollout (restart|status) deployment karmada-agent/,
        why: "step 7 for each Pull member",
    },
];

/** The commands a drill script runs, one per line, as the page writes them: `<date>` for the day, 2379 for the free local port it forwards. */
function commands(script: string): string[] {
    return script
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#"))
        .map((l) => l.replace(/\$\(date \+%F\)/g, "<date>").replace(new RegExp(`\\b${LOCAL_PORT}\\b`, "g"), "2379"));
}

/** The page's lines, with the day as the drill names it. */
const pageLines = PAGE.split("\n").map((l) => l.trim().replace(/\$\(date \+%F\)/g, "<date>"));

async function scripts(): Promise<string[]> {
    const ran: string[] = [];
    const sh = { run: async (script: string) => (ran.push(script), "") } as unknown as RunbookShell;
    await backUpByHand(sh, LOCAL_PORT);
    await restore(sh, ["ikoreal"]);
    return ran;
}

test("every command of the drill's backup and restore is on docs/production.md, but for the named differences", async () => {
    const missing = (await scripts())
        .flatMap(commands)
        .filter((l) => !pageLines.some((p) => p.includes(l)))
        .filter((l) => !DRILL_ONLY.some((d) => d.line.test(l)));
    expect(missing).toEqual([]);
});

test("the restore keeps resource versions growing on both: --bump-revision and --mark-compacted", async () => {
    const restoreLine = /etcdutl snapshot restore[\s\S]*?--data-dir restore-\$i/;
    const page = PAGE.match(restoreLine)?.[0] ?? "";
    const drill = (await scripts()).join("\n").match(restoreLine)?.[0] ?? "";
    for (const text of [page, drill]) expect(text).toMatch(/--bump-revision 1000000000 --mark-compacted/);
});

test("a named difference is still one: each matches a line the drill runs", async () => {
    const lines = (await scripts()).flatMap(commands);
    expect(DRILL_ONLY.filter((d) => !lines.some((l) => d.line.test(l))).map((d) => d.why)).toEqual([]);
});

test("step 5's helper pod is the page's: etcd's user, a grace period of 1 s, the claim at etcd's data dir; only its image is built here", () => {
    const written = PAGE.match(/echo '(\{"apiVersion":"v1","kind":"Pod"[\s\S]*?)' \| kubectl -n karmada-system apply -f -/)?.[1];
    expect(written).toBeDefined();
    const page = JSON.parse(written!.replace(/'\$i'/g, "0")) as { spec: { containers: Record<string, unknown>[] } };
    const drill = JSON.parse(helperPod(0)) as { metadata: Record<string, unknown>; spec: { containers: Record<string, unknown>[] } };
    const withoutImage = (spec: { containers: Record<string, unknown>[] }) => ({
        ...spec,
        containers: spec.containers.map(({ image: _image, imagePullPolicy: _pull, ...c }) => c),
    });
    expect(withoutImage(drill.spec)).toEqual(withoutImage(page.spec));
    expect(drill.spec).toMatchObject({ terminationGracePeriodSeconds: 1 });
});
