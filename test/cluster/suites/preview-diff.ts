// "Preview diffs in pull requests", against a stack that exists: the shared two-member fleet is deployed with
// the real engine and a file backend (one member), then a PR changes the stack (the IrisCluster
// image, a second member joined and placed, the synced Secret's value) and `pulumi preview --diff`
// runs twice: with every API server stopped (the CI runner's view: kind on a laptop, GKE behind
// authorized networks) and with them up. Both diffs must be exactly the PR's change, and the same.
// Before that, drift: federated-iris edited by hand in the Karmada API, seen by
// `preview --refresh --diff` and put back by `up --refresh`.
// The diff shown in docs/reviewing-changes.md is checked against the diff this test captures.
import { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as path from "path";
import { EngineSandbox, REPO } from "../../support/engine";
import { KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { LICENSE, loopbackStack, setLicense } from "../loopback-stack";
import { SuiteReport } from "../scaffold/report";
import { onSharedFleet, SharedFleet } from "../scaffold/shared-fleet";

/** The members of the shared fleet. */
export const PREVIEW_DIFF_MEMBERS = ["ikoclone", "ikoclone2"];
const MEMBERS = PREVIEW_DIFF_MEMBERS;
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const OLD_IMAGE = "containers.intersystems.com/intersystems/iris-community:2025.1";
const NEW_IMAGE = "containers.intersystems.com/intersystems/iris-community:2025.2";
const HAND_IMAGE = "containers.intersystems.com/intersystems/iris-community:2024.1-hotfix";
const ROTATED = "IRIS-LICENSE-ROTATED-BY-THE-PR";
const WAIT = { timeoutMs: 120_000, intervalMs: 1000 };

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
let report: SuiteReport;

interface Preview {
    stdout: string;
    /** Every step but `same` (and a refresh's reads). */
    changes: StepEventMetadata[];
    /** Warnings and errors, minus the toolchain's "using X from $PATH". */
    diags: string[];
    error?: string;
}

/** `pulumi preview --diff` through the Automation API: the text a PR comment shows, and the engine's steps. */
async function preview(what: string, opts: { refresh?: boolean } = {}): Promise<Preview> {
    const changes: StepEventMetadata[] = [];
    const diags: string[] = [];
    const onEvent = (e: EngineEvent) => {
        const m = e.resourcePreEvent?.metadata;
        if (m && m.op !== "same" && m.op !== "refresh") changes.push(m);
        const d = e.diagnosticEvent;
        if (d && (d.severity === "warning" || d.severity === "error") && !/^using pulumi-[a-z-]+ from \$PATH/.test(d.message))
            diags.push(`${d.severity}: ${d.message.trim()}`);
    };
    const t = Date.now();
    try {
        const r = await stack.preview({ diff: true, color: "never", refresh: opts.refresh, onEvent });
        return { stdout: r.stdout, changes, diags };
    } catch (e) {
        const err = e as Error & { stdout?: string };
        return { stdout: err.stdout ?? "", changes, diags, error: err.message };
    } finally {
        report.since(what, t);
    }
}

/** `op name: changed fields` per step, sorted: what a reviewer must see, comparable across previews. */
const summary = (p: Preview) =>
    p.changes
        .map((s) =>
            `${s.op} ${s.urn.split("::").pop()}: ${Object.keys(s.detailedDiff ?? {})
                .sort()
                .join(", ")}`.trim(),
        )
        .sort();

function clusters(members: string[]) {
    return [
        { name: fleet.host.name, provider: "existing", karmadaHost: true, kubeconfigPath: fleet.hostKubeconfig },
        ...fleet.members.filter((m) => members.includes(m.name)).map((m) => ({ name: m.name, provider: "existing", kubeconfigPath: m.kubeconfig })),
    ];
}

/** The dev stack's shape: federated-iris placed by name. */
function irisClusters(members: string[], image: string) {
    return [{ name: "federated-iris", image, serviceType: "LoadBalancer", placement: { clusterNames: members }, runningTimeoutSeconds: 120 }];
}

async function configure(members: string[], image: string): Promise<void> {
    await stack.setConfig("kamino:clusters", { value: JSON.stringify(clusters(members)) });
    await stack.setConfig("kamino:irisClusters", { value: JSON.stringify(irisClusters(members, image)) });
}

const image = (o: (KubeObject & { spec?: { topology?: { data?: { image?: string } } } }) | undefined) => o?.spec?.topology?.data?.image;
const all = () => [fleet.host.name, ...MEMBERS, "karmada"];

/** The pull request's change, as `summary` lists a preview's steps: what its previews must show, and nothing else. */
const PR_STEPS = [
    // The new member: the kubeconfig's provider, IKO, and the Push-mode join (member and Karmada side).
    ...["ikoclone2", "ikoclone2-k8s", "ikoclone2-iko", "ikoclone2-iko-ns", "ikoclone2-iko-iko", "ikoclone2-member"].map((n) => `create ${n}:`),
    // Narrow rights (kamino:karmada.memberAccess): a Role in `default` (federated-iris) and in `iris`
    // (the Secret), which Kamino makes on the member with a ClusterRole naming it; no impersonator.
    ...[
        "member-ns",
        "sa",
        "role",
        "binding",
        "token",
        "access-default-role",
        "access-default-binding",
        "access-iris-ns",
        "access-iris-role",
        "access-iris-binding",
        "access-iris-ns-role",
        "access-iris-ns-binding",
        "credentials",
        "cluster",
    ].map((n) => `create ikoclone2-member-${n}:`),
    // The placement names it.
    "update federated-iris-policy: spec.placement.clusterAffinity.clusterNames[1]",
    // The image.
    "update federated-iris-template: spec.topology.data.image",
    // The Secret's value, updated in place (not replaced: members keep it throughout).
    'update secrets-iris-iris-key-secret: data["iris.key"]',
].sort();

/** The preview-diff suite's tests, on the shared fleet. */
export function previewDiffSuite(shared: SharedFleet): void {
    const suite = onSharedFleet(shared, "preview diffs", { stacks: () => [stack] });
    beforeAll(async () => {
        ({ fleet, sandbox, report } = suite);
        // The deployed fleet: the host and one member, federated-iris on it, the license synced.
        stack = await loopbackStack(sandbox, fleet, "review", { runningTimeoutSeconds: 120 });
        await configure(["ikoclone"], OLD_IMAGE);
        // A just-joined member is waited for (Joining), not failed: one `up` is enough.
        await report.timed("pulumi up", () => stack.up());
    }, 10 * 60_000);

    describe("drift: federated-iris edited by hand in the Karmada API", () => {
        test("a plain preview does not see it; preview --refresh --diff shows exactly the edit, and up --refresh puts it back, with no env var", async () => {
            // What `kubectl edit` does: an update by another field manager, which takes the field over.
            await fleet.karmada.client.mergePatch(`${IRIS}?fieldManager=kubectl-edit`, { spec: { topology: { data: { image: HAND_IMAGE } } } });
            await waitFor("the hand edit on ikoclone", async () => (image(await fleet.members[0].client.get(IRIS)) === HAND_IMAGE ? true : undefined), WAIT);

            const plain = await preview("drift: preview --diff");
            expect([plain.error, plain.diags, summary(plain)]).toEqual([undefined, [], []]);

            // With --refresh the live object is read. Every Kamino object carries pulumi.com/patchForce,
            // so the provider's server-side dry run takes the field back from the other manager instead
            // of refusing with a field conflict (it did before the annotation).
            const p = await preview("drift: preview --refresh --diff", { refresh: true });
            expect([p.error, p.diags]).toEqual([undefined, []]);
            expect(summary(p)).toEqual(["update federated-iris-template: spec.topology.data.image"]);
            expect(p.stdout).toContain(`~ image: "${HAND_IMAGE}" => "${OLD_IMAGE}"`);

            const up = await report.timed("drift: up --refresh", () => stack.up({ refresh: true }));
            expect(up.summary.resourceChanges).toEqual({ same: expect.any(Number), update: 1 });
            expect(image(await fleet.karmada.client.get(IRIS))).toBe(OLD_IMAGE);
            await waitFor(
                "the template's image back on ikoclone",
                async () => (image(await fleet.members[0].client.get(IRIS)) === OLD_IMAGE ? true : undefined),
                WAIT,
            );
        });
    });

    describe("a pull request: new image, ikoclone2 joined and placed, the license rotated", pullRequestPreviews);
}

/** The pull request's previews: offline (every API server stopped), then online, each against the stack deployed before. */
function pullRequestPreviews(): void {
    let offline: Preview;
    let online: Preview;

    beforeAll(async () => {
        await configure(MEMBERS, NEW_IMAGE);
        await setLicense(stack, ROTATED);
    });

    test("with every API server stopped (the CI runner's view), preview --diff is exactly the change", async () => {
        for (const n of all()) await fleet.stopApiServer(n);
        try {
            offline = await preview("PR: preview --diff, clusters unreachable");
        } finally {
            for (const n of all()) await fleet.startApiServer(n);
        }
        expect(offline.error).toBeUndefined();
        // Each kubeconfig is known (from files or state), so the kubernetes provider is configured,
        // finds its cluster unreachable, says nothing about it, and diffs each object client-side
        // against the state's inputs: no warning, no error, no replacement.
        expect(offline.diags).toEqual([]);
        if (process.env.KAMINO_PREVIEW_DIFF_OUT) fs.writeFileSync(process.env.KAMINO_PREVIEW_DIFF_OUT, offline.stdout);
        expect(summary(offline)).toEqual(PR_STEPS);
        expect(offline.stdout).toMatch(
            /~ image: "containers\.intersystems\.com\/intersystems\/iris-community:2025\.1" => "containers\.intersystems\.com\/intersystems\/iris-community:2025\.2"/,
        );
        expect(offline.stdout).toMatch(/Resources:\n\s+\+ 20 to create\n\s+~ 3 to update\n\s+23 changes\. \d+ unchanged/);
    });

    test("the rotated license is never shown: only that the Secret changes", () => {
        for (const p of [offline.stdout, JSON.stringify(offline.changes)]) {
            expect(p).not.toContain(ROTATED);
            expect(p).not.toContain(LICENSE);
            expect(p).not.toContain(Buffer.from(ROTATED).toString("base64"));
        }
        expect(offline.stdout).toMatch(
            /~ kubernetes:core\/v1:Secret: \(update\)\n\s+\[id=iris\/iris-key-secret\][\s\S]*?~ data: \{\n\s+~ iris\.key: \[secret\] => \[secret\]\n/,
        );
    });

    test("with the API servers up, preview --diff is the same diff", async () => {
        online = await preview("PR: preview --diff, clusters reachable");
        expect([online.error, online.diags]).toEqual([undefined, []]);
        expect(summary(online)).toEqual(summary(offline));
        // The text too, line for line (minus progress and durations), but for one line: unreachable, the
        // provider cannot look up that Karmada's Cluster is cluster-scoped and shows the new one in
        // namespace "default" (cosmetic: the create is the same).
        const clusterCreate = (s: string) => /Cluster: \(create\)\n\s+\[urn=[^\n]*ikoclone2-member-cluster\][\s\S]*?spec {6}:/.exec(s)?.[0] ?? "";
        // (Keys are padded to the longest one of their object: `namespace  :` beside `annotations`.)
        expect(clusterCreate(offline.stdout)).toMatch(/namespace\s*: "default"/);
        expect(clusterCreate(online.stdout)).not.toMatch(/namespace/);
        const lines = (s: string) =>
            s
                .replace(clusterCreate(s), clusterCreate(s).replace(/\n\s+namespace\s*: "default"/, ""))
                .split("\n")
                .filter((l) => !/Duration:|^@ |^\s*$/.test(l))
                .map((l) => l.replace(/\s+/g, ""))
                .sort();
        expect(lines(online.stdout)).toEqual(lines(offline.stdout));
        expect(online.stdout).not.toContain(ROTATED);
    });

    test("the diff in docs/reviewing-changes.md is this diff, trimmed", () => {
        const section = fs.readFileSync(path.join(REPO, "docs/reviewing-changes.md"), "utf8");
        const block = /```diff-preview\n([\s\S]*?)```/.exec(section)?.[1];
        expect(block).toBeDefined();
        const captured = new Set(online.stdout.split("\n").map((l) => l.trim()));
        const shown = block!
            .split("\n")
            .map((l) => l.trim())
            .filter((l) => l && l !== "...");
        expect(shown.length).toBeGreaterThan(10);
        expect(shown.filter((l) => !captured.has(l))).toEqual([]);
    });
}
