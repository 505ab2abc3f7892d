// Least privilege on the shared two-member fleet (its member API servers enforce RBAC): with the default
// `kamino:karmada.memberAccess: narrow`, `up` propagates, each member's API server answers a table
// of SubjectAccessReviews for Karmada's identity as docs/security.md says, a new namespace widens the
// rules in the same `up` and a removed one narrows them, `destroy` unjoins, and
// karmada-controller-manager logs no `forbidden` from first `up` to `destroy`.
import * as fs from "fs";
import { EngineSandbox } from "../../support/engine";
import { AccessQuestion, mayDo } from "../harness/access-review";
import { CLUSTER_API_VERSION, KarmadaClusterObject, KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { loopbackStack } from "../loopback-stack";
import { SuiteReport } from "../scaffold/report";
import { onSharedFleet, SharedFleet } from "../scaffold/shared-fleet";

/** The members of the shared fleet. */
export const MEMBER_ACCESS_MEMBERS = ["ikoclone", "ikoclone2"];
const MEMBERS = MEMBER_ACCESS_MEMBERS;
const WAIT = { timeoutMs: 180_000, intervalMs: 1000 };
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const SECRET = resourcePath("v1", "secrets", { namespace: "iris", name: "iris-key-secret" });
const EXTRA_SECRET = resourcePath("v1", "secrets", { namespace: "extra", name: "extra-secret" });

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
let report: SuiteReport;
/** How much of karmada-controller-manager's log there was when the suite began (the fleet is shared). */
let logOffset = 0;
const member = (name: string): KubeClient => fleet.members.find((m) => m.name === name)!.client;
const note = (line: string) => report.note(line);

/** The access table of docs/security.md: what Karmada's identity may do on every member. */
const ALLOWED: [string, AccessQuestion][] = [
    ["GET /readyz (cluster health)", { verb: "get", path: "/readyz" }],
    ["GET /healthz", { verb: "get", path: "/healthz" }],
    ["GET /version", { verb: "get", path: "/version" }],
    ["GET /apis (discovery)", { verb: "get", path: "/apis" }],
    ["list nodes (resource summary)", { verb: "list", resource: "nodes" }],
    ["watch pods (resource summary)", { verb: "watch", resource: "pods" }],
    ["list IrisClusters cluster-wide (informer)", { verb: "list", group: "intersystems.com", resource: "irisclusters" }],
    ["watch Secrets cluster-wide (informer)", { verb: "watch", resource: "secrets" }],
    ["list ConfigMaps cluster-wide (informer)", { verb: "list", resource: "configmaps" }],
    ["watch namespaces (informer)", { verb: "watch", resource: "namespaces" }],
    ["create IrisCluster in default", { verb: "create", group: "intersystems.com", resource: "irisclusters", namespace: "default" }],
    ["update IrisCluster in default", { verb: "update", group: "intersystems.com", resource: "irisclusters", namespace: "default", name: "federated-iris" }],
    [
        "delete IrisCluster in default (failover's stale copy, unjoin)",
        { verb: "delete", group: "intersystems.com", resource: "irisclusters", namespace: "default", name: "federated-iris" },
    ],
    ["create ConfigMap in default (IrisCluster dependency)", { verb: "create", resource: "configmaps", namespace: "default" }],
    ["create Secret in default (IrisCluster dependency)", { verb: "create", resource: "secrets", namespace: "default" }],
    ["update Secret in iris", { verb: "update", resource: "secrets", namespace: "iris", name: "iris-key-secret" }],
    ["create namespace (namespace sync)", { verb: "create", resource: "namespaces" }],
    ["update namespace iris", { verb: "update", resource: "namespaces", name: "iris" }],
    ["delete namespace iris", { verb: "delete", resource: "namespaces", name: "iris" }],
];
const DENIED: [string, AccessQuestion][] = [
    ["create ClusterRoleBinding", { verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings" }],
    ["create ClusterRole", { verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterroles" }],
    ["bind ClusterRole cluster-admin", { verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "cluster-admin" }],
    ["escalate ClusterRole", { verb: "escalate", group: "rbac.authorization.k8s.io", resource: "clusterroles" }],
    ["create RoleBinding in default", { verb: "create", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: "default" }],
    ["create Secret in kube-system", { verb: "create", resource: "secrets", namespace: "kube-system" }],
    ["update Secret in kube-system", { verb: "update", resource: "secrets", namespace: "kube-system", name: "any" }],
    ["get Secret in kube-system by name", { verb: "get", resource: "secrets", namespace: "kube-system", name: "any" }],
    ["delete Secret in karmada-cluster (its own token)", { verb: "delete", resource: "secrets", namespace: "karmada-cluster", name: "karmada-ikoclone" }],
    [
        "create ServiceAccount token",
        { verb: "create", resource: "serviceaccounts", subresource: "token", namespace: "karmada-cluster", name: "karmada-ikoclone" },
    ],
    ["impersonate users", { verb: "impersonate", resource: "users", name: "admin" }],
    ["impersonate groups", { verb: "impersonate", resource: "groups", name: "system:masters" }],
    ["impersonate ServiceAccounts", { verb: "impersonate", resource: "serviceaccounts", namespace: "kube-system" }],
    ["delete namespace kube-system", { verb: "delete", resource: "namespaces", name: "kube-system" }],
    ["delete namespace iko (not Kamino's propagation)", { verb: "delete", resource: "namespaces", name: "iko" }],
    ["update namespace karmada-cluster", { verb: "update", resource: "namespaces", name: "karmada-cluster" }],
    ["create IrisCluster in kube-system", { verb: "create", group: "intersystems.com", resource: "irisclusters", namespace: "kube-system" }],
    ["create Secret in iko", { verb: "create", resource: "secrets", namespace: "iko" }],
    [
        "patch IrisCluster in default (Karmada only updates)",
        { verb: "patch", group: "intersystems.com", resource: "irisclusters", namespace: "default", name: "federated-iris" },
    ],
    ["create pods", { verb: "create", resource: "pods", namespace: "default" }],
    ["create pods/exec", { verb: "create", resource: "pods", subresource: "exec", namespace: "default", name: "any" }],
    ["delete nodes", { verb: "delete", resource: "nodes", name: "any" }],
    ["create Deployments", { verb: "create", group: "apps", resource: "deployments", namespace: "default" }],
    ["update CRDs", { verb: "update", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name: "irisclusters.intersystems.com" }],
    ["create webhooks", { verb: "create", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations" }],
    ["GET /metrics", { verb: "get", path: "/metrics" }],
];

/** Asks the member, as its admin, whether Karmada's identity may do `a` (a SubjectAccessReview). */
async function allowed(m: string, a: AccessQuestion): Promise<boolean> {
    const sa = `karmada-${m}`;
    // The table names ikoclone's token; ask each member about its own.
    const name = a.name === "karmada-ikoclone" ? sa : a.name;
    const who = {
        user: `system:serviceaccount:karmada-cluster:${sa}`,
        groups: ["system:serviceaccounts", "system:serviceaccounts:karmada-cluster", "system:authenticated"],
    };
    return mayDo(member(m), who, { ...a, name });
}

/** Every row of the table whose answer is not the expected one, per member. */
async function tableMismatches(extraAllowed: [string, AccessQuestion][] = [], extraDenied: [string, AccessQuestion][] = []): Promise<string[]> {
    const wrong: string[] = [];
    for (const m of MEMBERS) {
        for (const [what, a] of [...ALLOWED, ...extraAllowed]) if (!(await allowed(m, a))) wrong.push(`${m}: denied, expected allowed: ${what}`);
        for (const [what, a] of [...DENIED, ...extraDenied]) if (await allowed(m, a)) wrong.push(`${m}: allowed, expected denied: ${what}`);
    }
    return wrong;
}

function controllerManagerLog(): string {
    const cm = fleet.processes.find((p) => p.spec.name === "karmada-controller-manager");
    if (!cm) throw new Error("no karmada-controller-manager process in the harness");
    return cm.logPath;
}

/** Lines of karmada-controller-manager's log, since the suite began, that say `forbidden`. */
function forbiddenLines(): string[] {
    return fs
        .readFileSync(controllerManagerLog())
        .subarray(logOffset)
        .toString("utf8")
        .split("\n")
        .filter((l) => /forbidden/i.test(l));
}

/** Works in the member's execution space that are not Applied. */
async function unappliedWorks(m: string): Promise<string[]> {
    const res = await fleet.karmada.client.request("GET", `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`);
    const works = JSON.parse(res.body).items as (KubeObject & { status?: { conditions?: { type: string; status: string; message?: string }[] } })[];
    return works
        .filter((w) => w.status?.conditions?.find((c) => c.type === "Applied")?.status !== "True")
        .map((w) => `${w.metadata?.name}: ${w.status?.conditions?.find((c) => c.type === "Applied")?.message ?? "no Applied condition"}`);
}

/** Waits until every Work in the member's execution space is Applied (failing with the reasons of those that are not). */
async function everyWorkApplied(m: string): Promise<void> {
    await waitFor(
        `every Work Applied on ${m}`,
        async () => {
            const bad = await unappliedWorks(m);
            if (bad.length) throw new Error(bad.join("; "));
            return true;
        },
        WAIT,
    );
}

/** No impersonator: neither its account on the member nor the RBAC Karmada's unified auth would push. */
async function expectNoImpersonator(m: string): Promise<void> {
    expect(await member(m).get(resourcePath("v1", "serviceaccounts", { namespace: "karmada-cluster", name: "karmada-impersonator" }))).toBeUndefined();
    expect(await member(m).get(resourcePath("rbac.authorization.k8s.io/v1", "clusterroles", { name: "karmada-impersonator" }))).toBeUndefined();
    const cluster = await fleet.karmada.client.get<KarmadaClusterObject>(resourcePath(CLUSTER_API_VERSION, "clusters", { name: m }));
    expect(cluster?.spec?.impersonatorSecretRef).toBeUndefined();
}

const EXTRA_SECRETS = [
    { name: "iris-key-secret", namespace: "iris", fromConfig: "irisLicense" },
    { name: "extra-secret", namespace: "extra", fromConfig: "extraValues" },
];

/** The member-access suite's tests, on the shared fleet. */
export function memberAccessSuite(shared: SharedFleet): void {
    const suite = onSharedFleet(shared, "member-access", { stacks: () => [stack] });
    beforeAll(async () => {
        ({ fleet, sandbox, report } = suite);
        logOffset = fs.statSync(controllerManagerLog()).size;
        stack = await loopbackStack(sandbox, fleet, "access", { runningTimeoutSeconds: 120 });
    }, 10 * 60_000);

    test("up with the default narrow rules propagates, and each member answers the access table", async () => {
        const t = Date.now();
        await stack.up();
        note(`up: ${((Date.now() - t) / 1000).toFixed(1)} s`);
        for (const m of MEMBERS) {
            await waitFor(`federated-iris on ${m}`, async () => ((await member(m).get(IRIS)) ? true : undefined), WAIT);
            await waitFor(`license Secret on ${m}`, async () => ((await member(m).get(SECRET)) ? true : undefined), WAIT);
            await everyWorkApplied(m);
            await expectNoImpersonator(m);
        }
        expect(await tableMismatches()).toEqual([]);
        // Karmada asked nothing it was refused, and the next `up` changes nothing.
        expect(forbiddenLines()).toEqual([]);
        const again = await stack.up();
        expect(Object.entries(again.summary.resourceChanges ?? {}).filter(([op]) => op !== "same")).toEqual([]);
    });

    test("a new Secret namespace widens the rules in the same up; removing it narrows them after Karmada cleaned up", async () => {
        const inExtra: [string, AccessQuestion][] = [
            ["create Secret in extra", { verb: "create", resource: "secrets", namespace: "extra" }],
            ["delete namespace extra", { verb: "delete", resource: "namespaces", name: "extra" }],
        ];
        expect(await tableMismatches([], inExtra)).toEqual([]);
        await stack.setConfig("kamino:extraValues", { value: JSON.stringify({ token: "t0" }), secret: true });
        await stack.setConfig("kamino:secrets", { value: JSON.stringify(EXTRA_SECRETS) });
        let t = Date.now();
        await stack.up();
        note(`up adding namespace extra: ${((Date.now() - t) / 1000).toFixed(1)} s`);
        for (const m of MEMBERS) await waitFor(`extra-secret on ${m}`, async () => ((await member(m).get(EXTRA_SECRET)) ? true : undefined), WAIT);
        expect(await tableMismatches(inExtra)).toEqual([]);
        expect(forbiddenLines()).toEqual([]);

        await stack.setConfig("kamino:secrets", { value: JSON.stringify(EXTRA_SECRETS.slice(0, 1)) });
        await stack.removeConfig("kamino:extraValues");
        t = Date.now();
        await stack.up();
        note(`up removing namespace extra: ${((Date.now() - t) / 1000).toFixed(1)} s`);
        for (const m of MEMBERS) {
            await waitFor(
                `namespace extra gone from ${m}`,
                async () => ((await member(m).get(resourcePath("v1", "namespaces", { name: "extra" }))) ? undefined : true),
                WAIT,
            );
            await everyWorkApplied(m);
        }
        expect(await tableMismatches([], inExtra)).toEqual([]);
        expect(forbiddenLines()).toEqual([]);
    });

    test("destroy unjoins every member with the narrow rules, and Karmada was never refused", async () => {
        const t = Date.now();
        await stack.destroy();
        note(`destroy: ${((Date.now() - t) / 1000).toFixed(1)} s`);
        for (const m of MEMBERS) {
            expect(await fleet.karmada.client.get(resourcePath(CLUSTER_API_VERSION, "clusters", { name: m }))).toBeUndefined();
            expect(await member(m).get(IRIS)).toBeUndefined();
            expect(await member(m).get(resourcePath("v1", "namespaces", { name: "iris" }))).toBeUndefined();
            expect(
                await member(m).get(resourcePath("rbac.authorization.k8s.io/v1", "clusterroles", { name: `karmada-controller-manager:karmada-${m}` })),
            ).toBeUndefined();
        }
        expect(forbiddenLines()).toEqual([]);
    });
}
