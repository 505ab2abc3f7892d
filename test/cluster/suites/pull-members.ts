// Pull mode on the shared two-member fleet: ikoclone joins by Push, ikoclone2 by Pull, with the real
// karmada-agent v1.18.2 started by the harness from the Deployment Kamino declares (AgentPlayer).
// `up` joins and propagates to both and waits for IRIS on both; Karmada holds no credential of the
// Pull member; the agent's identity answers a table of SubjectAccessReviews in the Karmada API and
// on its member; a no-op `up` changes nothing; a sync-mode change of the joined member is refused
// before anything changes; `destroy` drains the member while the agent runs and leaves nothing.
import { X509Certificate } from "crypto";
import * as YAML from "yaml";
import { AccessTable, accessMismatches } from "../harness/access-review";
import { CLUSTER_API_VERSION, KarmadaClusterObject, KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { loopbackStack } from "../loopback-stack";
import { SuiteReport } from "../scaffold/report";
import { FleetSuite, onSharedFleet, SharedFleet } from "../scaffold/shared-fleet";

/** The members of the shared fleet; ikoclone2 joins by Pull. */
export const PULL_MEMBERS_MEMBERS = ["ikoclone", "ikoclone2"];
const PULL = "ikoclone2";
const WAIT = { timeoutMs: 180_000, intervalMs: 1000 };
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const AGENT_DEPLOYMENT = resourcePath("apps/v1", "deployments", { namespace: "karmada-system", name: "karmada-agent" });

let suite: FleetSuite;
let fleet: LoopbackFleet;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
let report: SuiteReport;
const member = (name: string): KubeClient => fleet.members.find((m) => m.name === name)!.client;
const karmada = () => fleet.karmada.client;
const clusterPath = (name: string) => resourcePath(CLUSTER_API_VERSION, "clusters", { name });

const KARMADA = "cluster.karmada.io";
const WORK = "work.karmada.io";
/** The agent's identity in the Karmada API: what it must be allowed, and what not (docs/security.md). */
const IN_KARMADA: AccessTable = {
    allowed: [
        ["update its Cluster's status", { verb: "update", group: KARMADA, resource: "clusters", subresource: "status", name: PULL }],
        ["update its Cluster (registration on restart)", { verb: "update", group: KARMADA, resource: "clusters", name: PULL }],
        ["list Clusters (registration checks name and id)", { verb: "list", group: KARMADA, resource: "clusters" }],
        ["watch Works in its execution namespace", { verb: "watch", group: WORK, resource: "works", namespace: `karmada-es-${PULL}` }],
        [
            "update Works in its execution namespace (finalizers)",
            { verb: "update", group: WORK, resource: "works", namespace: `karmada-es-${PULL}`, name: "any" },
        ],
        ["update Work status there", { verb: "update", group: WORK, resource: "works", subresource: "status", namespace: `karmada-es-${PULL}`, name: "any" }],
        ["update its cluster Lease", { verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "karmada-cluster", name: PULL }],
    ],
    denied: [
        // It runs without leader election (docs/disaster-recovery.md, a restarted agent): no Lease of its own there.
        [
            "create a Lease in karmada-system (leader election)",
            { verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "karmada-system" },
        ],
        ["list another member's Works", { verb: "list", group: WORK, resource: "works", namespace: "karmada-es-ikoclone" }],
        ["update another member's Works", { verb: "update", group: WORK, resource: "works", namespace: "karmada-es-ikoclone", name: "any" }],
        ["get a Secret in karmada-cluster (Push credentials)", { verb: "get", group: "", resource: "secrets", namespace: "karmada-cluster", name: "ikoclone" }],
        ["list Secrets anywhere", { verb: "list", group: "", resource: "secrets" }],
        ["update another Cluster", { verb: "update", group: KARMADA, resource: "clusters", name: "ikoclone" }],
        ["update another Cluster's status", { verb: "update", group: KARMADA, resource: "clusters", subresource: "status", name: "ikoclone" }],
        ["delete its own Cluster", { verb: "delete", group: KARMADA, resource: "clusters", name: PULL }],
        ["create ClusterRoleBindings", { verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings" }],
        ["create Roles in its execution namespace", { verb: "create", group: "rbac.authorization.k8s.io", resource: "roles", namespace: `karmada-es-${PULL}` }],
        ["create CertificateSigningRequests", { verb: "create", group: "certificates.k8s.io", resource: "certificatesigningrequests" }],
        ["create PropagationPolicies", { verb: "create", group: "policy.karmada.io", resource: "propagationpolicies", namespace: "default" }],
        ["update IrisCluster templates", { verb: "update", group: "intersystems.com", resource: "irisclusters", namespace: "default", name: "federated-iris" }],
        ["proxy to its member through Karmada", { verb: "get", group: KARMADA, resource: "clusters", subresource: "proxy", name: PULL }],
    ],
};
/** The agent's ServiceAccount on its member: the narrow plan plus its own needs. */
const ON_MEMBER: AccessTable = {
    allowed: [
        ["get kube-system (the Cluster id)", { verb: "get", resource: "namespaces", name: "kube-system" }],
        ["create IrisCluster in default", { verb: "create", group: "intersystems.com", resource: "irisclusters", namespace: "default" }],
        ["list nodes (resource summary)", { verb: "list", resource: "nodes" }],
        ["update Secret in iris", { verb: "update", resource: "secrets", namespace: "iris", name: "iris-key-secret" }],
    ],
    denied: [
        ["get Secret in kube-system by name", { verb: "get", resource: "secrets", namespace: "kube-system", name: "any" }],
        ["get other namespaces by name", { verb: "get", resource: "namespaces", name: "iko" }],
        ["create ClusterRoleBinding", { verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings" }],
        ["create pods", { verb: "create", resource: "pods", namespace: "default" }],
        ["update its own Deployment", { verb: "update", group: "apps", resource: "deployments", namespace: "karmada-system", name: "karmada-agent" }],
        ["read its own kubeconfig Secret by name", { verb: "get", resource: "secrets", namespace: "karmada-system", name: "karmada-kubeconfig" }],
        ["impersonate users", { verb: "impersonate", resource: "users", name: "admin" }],
    ],
};

type Cluster = KarmadaClusterObject & { spec?: { syncMode?: string; id?: string; secretRef?: unknown; impersonatorSecretRef?: unknown } };

/** The Pull-members suite's tests, on the shared fleet. */
export function pullMembersSuite(shared: SharedFleet): void {
    suite = onSharedFleet(shared, "pull-members", { stacks: () => [stack], agents: true });
    beforeAll(async () => {
        ({ fleet, report } = suite);
        // Karmada reached at kamino:karmada.endpoint, its load balancer's address (not the kubeconfig's 127.0.0.1).
        stack = await loopbackStack(suite.sandbox, fleet, "pull", {
            runningTimeoutSeconds: 120,
            syncModes: { [PULL]: "Pull" },
            karmadaEndpoint: fleet.karmadaLoadBalancer.endpoint,
        });
    }, 10 * 60_000);

    test("up joins a Push and a Pull member, propagates to both and waits for IRIS on both", async () => {
        const t = Date.now();
        const throughBalancer = fleet.karmadaLoadBalancer.connections;
        const result = await stack.up();
        report.note(`up with one Push and one Pull member: ${((Date.now() - t) / 1000).toFixed(1)} s`);
        expect(result.outputs.runningOn.value).toEqual({ "default/federated-iris": [...PULL_MEMBERS_MEMBERS] });
        // The wait for the agent's Cluster ends with one line on the member's component in up's output.
        expect(result.stdout).toMatch(/Cluster ikoclone2 joined by its agent and Ready \(waited \d+s\)/);
        for (const m of PULL_MEMBERS_MEMBERS) await waitFor(`federated-iris on ${m}`, async () => ((await member(m).get(IRIS)) ? true : undefined), WAIT);
        const cluster = await karmada().get<Cluster>(clusterPath(PULL));
        const kubeSystem = await member(PULL).get(resourcePath("v1", "namespaces", { name: "kube-system" }));
        expect(cluster?.spec).toMatchObject({ syncMode: "Pull", id: kubeSystem?.metadata?.uid });
        expect(cluster?.metadata?.labels).toMatchObject({ lab: "loopback" });
        expect(suite.agents.agentOf(PULL)).toBeDefined();
        expect(suite.agents.agentOf("ikoclone")).toBeUndefined();
        // Every call of up (joins, CRD copy, running-wait) and the agent's go through the load balancer.
        expect(fleet.karmadaLoadBalancer.connections).toBeGreaterThan(throughBalancer);
    });

    thePullAgent();
    laterUps();
}

/** The Pull agent: the Karmada endpoint it and Kamino use, the credentials it holds (and Karmada does not), what its identity may do. */
function thePullAgent(): void {
    test("Kamino, its running-wait and the Pull agent reach Karmada at the configured endpoint, and the outputs name it", async () => {
        const published = `https://${fleet.karmadaLoadBalancer.endpoint}`;
        const outputs = await stack.outputs();
        expect(outputs.karmadaEndpoint.value).toBe(published);
        expect(outputs.karmadaEndpoint.secret).toBe(false);
        expect(outputs.karmadaKubeconfig.secret).toBe(true);
        expect(YAML.parse(outputs.karmadaKubeconfig.value as string).clusters[0].cluster.server).toBe(published);
        const agentSecret = await member(PULL).get<KubeObject & { data: Record<string, string> }>(
            resourcePath("v1", "secrets", { namespace: "karmada-system", name: "karmada-kubeconfig" }),
        );
        expect(YAML.parse(Buffer.from(agentSecret!.data["karmada-kubeconfig"], "base64").toString()).clusters[0].cluster.server).toBe(published);
    });

    test("Karmada holds no credential of the Pull member, and no CSR is left", async () => {
        const cluster = await karmada().get<Cluster>(clusterPath(PULL));
        expect(cluster?.spec?.secretRef).toBeUndefined();
        expect(cluster?.spec?.impersonatorSecretRef).toBeUndefined();
        const secrets = (await karmada().get<{ items: KubeObject[] } & KubeObject>(resourcePath("v1", "secrets", { namespace: "karmada-cluster" })))!.items.map(
            (s) => s.metadata?.name,
        );
        expect(secrets).toContain("ikoclone"); // the Push member's, for contrast
        expect(secrets.filter((n) => String(n).startsWith(PULL))).toEqual([]);
        // Nor did the agent make a reporting account on its member.
        expect(await member(PULL).get(resourcePath("v1", "serviceaccounts", { namespace: "karmada-cluster", name: `karmada-${PULL}` }))).toBeUndefined();
        const csrs = (await karmada().get<{ items: KubeObject[] } & KubeObject>("/apis/certificates.k8s.io/v1/certificatesigningrequests"))!.items;
        expect(csrs.map((c) => c.metadata?.name)).toEqual([]);
    });

    test("the agent's certificate names it as Karmada's approver requires, signed by the Karmada CA", async () => {
        const secret = await member(PULL).get<KubeObject & { data: Record<string, string> }>(
            resourcePath("v1", "secrets", { namespace: "karmada-system", name: "karmada-kubeconfig" }),
        );
        const kc = YAML.parse(Buffer.from(secret!.data["karmada-kubeconfig"], "base64").toString());
        const cert = new X509Certificate(Buffer.from(kc.users[0].user["client-certificate-data"], "base64"));
        expect(cert.subject.split("\n").sort()).toEqual([`CN=system:karmada:agent:${PULL}`, "O=system:karmada:agents"]);
        expect(cert.checkIssued(new X509Certificate(fleet.karmada.caPem))).toBe(true);
        const days = (new Date(cert.validTo).getTime() - Date.now()) / 86400_000;
        report.note(`agent certificate valid for ${days.toFixed(0)} more days`);
        expect(days).toBeGreaterThan(300);
    });

    test("the agent's identity answers the access tables in Karmada and on its member", async () => {
        const agent = { user: `system:karmada:agent:${PULL}`, groups: ["system:karmada:agents", "system:authenticated"] };
        const inKarmada = await accessMismatches(karmada(), agent, IN_KARMADA, "Karmada");
        const pod = {
            user: "system:serviceaccount:karmada-system:karmada-agent",
            groups: ["system:serviceaccounts", "system:serviceaccounts:karmada-system", "system:authenticated"],
        };
        const onMember = await accessMismatches(member(PULL), pod, ON_MEMBER, PULL);
        expect([...inKarmada, ...onMember]).toEqual([]);
        report.note(
            `access tables: ${IN_KARMADA.allowed.length + IN_KARMADA.denied.length} rows in Karmada, ${ON_MEMBER.allowed.length + ON_MEMBER.denied.length} on ${PULL}`,
        );
    });
}

/** The ups after the first: a no-op one, a refused sync-mode change and back, then destroy. */
function laterUps(): void {
    test("a no-op up changes nothing, and the agent was never refused", async () => {
        const again = await stack.up();
        expect(Object.entries(again.summary.resourceChanges ?? {}).filter(([op]) => op !== "same")).toEqual([]);
        expect(suite.agents.logLines(PULL).filter((l) => /forbidden/i.test(l))).toEqual([]);
        expect(suite.agents.logLines(PULL).length).toBeGreaterThan(10);
    });

    test("changing the joined member's sync mode is refused before anything changes", async () => {
        await setSyncMode("Push");
        const refused = (await stack.up().then(
            () => undefined,
            (e: Error) => e,
        ))!;
        expect(refused?.message).toMatch(/'ikoclone2' is joined to Karmada in Pull mode[^]*nothing was changed/);
        expect(refused.message).not.toMatch(/\n\s+at /); // a message, not a stack trace
        // Not one object was written: the refused run registered only the new join's (empty) component.
        expect(refused.message.match(/^.*(kubernetes|pulumi-nodejs):\S+ \S+ (created|deleted|updated|replaced).*$/gm) ?? []).toEqual([]);
        const cluster = await karmada().get<Cluster>(clusterPath(PULL));
        expect(cluster?.spec?.syncMode).toBe("Pull");
        expect(await member(PULL).get(IRIS)).toBeDefined();
        expect(await member(PULL).get(AGENT_DEPLOYMENT)).toBeDefined();
        await setSyncMode("Pull");
        const back = await stack.up();
        // Back to Pull, the next up only forgets that empty component.
        expect(Object.entries(back.summary.resourceChanges ?? {}).filter(([op]) => op !== "same")).toEqual([["delete", 1]]);
    });

    test("destroy drains the Pull member while its agent runs, then removes the agent, its Cluster and its rights", async () => {
        const t = Date.now();
        await stack.destroy();
        report.note(`destroy: ${((Date.now() - t) / 1000).toFixed(1)} s`);
        expect(await karmada().get(clusterPath(PULL))).toBeUndefined();
        expect(await member(PULL).get(IRIS)).toBeUndefined();
        expect(await member(PULL).get(AGENT_DEPLOYMENT)).toBeUndefined();
        expect(await karmada().get(resourcePath("rbac.authorization.k8s.io/v1", "clusterroles", { name: `system:karmada:${PULL}:agent` }))).toBeUndefined();
        await waitFor(
            `namespace karmada-es-${PULL} gone from Karmada`,
            async () => ((await karmada().get(resourcePath("v1", "namespaces", { name: `karmada-es-${PULL}` }))) ? undefined : true),
            WAIT,
        );
        await waitFor(`the agent of ${PULL} stopped`, async () => (suite.agents.agentOf(PULL) ? undefined : true), WAIT);
    });
}

async function setSyncMode(mode: "Push" | "Pull"): Promise<void> {
    const clusters = JSON.parse((await stack.getConfig("kamino:clusters")).value) as { name: string; syncMode?: string }[];
    await stack.setConfig("kamino:clusters", { value: JSON.stringify(clusters.map((c) => (c.name === PULL ? { ...c, syncMode: mode } : c))) });
}
