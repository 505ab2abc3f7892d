// Pull-mode members: the agent as data (names, rights, arguments, kubeconfig), the calls to the
// Karmada API against a scripted API (certificate, Ready wait, drain), the config checks, the
// sync-mode change refusal, and a fleet with a Push and a Pull member under mocks.
import * as forge from "node-forge";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { ConfigError, loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { Fleet } from "../../components/fleet";
import {
    drainAndDeleteCluster,
    KubeCall,
    requestAgentCertificate,
    setClusterLabels,
    waitForPullCluster,
} from "../../components/karmada/members/agent-registration";
import { syncModeChanges } from "../../components/karmada/members/join";
import { AGENT_SELF_MEMBER_RULES, agentArgs, agentKarmadaRules, agentKubeconfig, imageTag, karmadaServer } from "../../components/karmada/members/pull-agent";
import { certificateNeedsRenewal } from "../../components/common/certificates";
import { fakeCrdReader, fakeRunningWaiter, FAKE_AGENT_CERT, FIXTURE_CHART, MockRun, providerName } from "../support/mocks";

const raw = (cfg: Record<string, unknown>) => Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]));
const clock = () => {
    let t = 0;
    return { now: () => t, sleep: async (ms: number) => void (t += ms) };
};

/** A scripted Karmada API: each route answers from a list (the last answer repeats); every call is recorded. */
function scriptedApi(routes: Record<string, { status: number; body?: unknown }[]>) {
    const calls: { method: string; path: string; body?: unknown; contentType?: string }[] = [];
    const seen = new Map<string, number>();
    const call: KubeCall = async (method, path, body, contentType) => {
        calls.push({ method, path, body, contentType });
        const key = `${method} ${path}`;
        const answers = routes[key] ?? [{ status: method === "DELETE" ? 200 : 404 }];
        const i = seen.get(key) ?? 0;
        seen.set(key, i + 1);
        const a = answers[Math.min(i, answers.length - 1)];
        return { status: a.status, body: JSON.stringify(a.body ?? {}) };
    };
    return { call, calls };
}

/** A self-signed certificate standing in for the one Karmada signs. */
function certificate(days: number): string {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 1024 });
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = "01";
    cert.validity.notBefore = new Date("2026-12-01T00:00:00Z");
    cert.validity.notAfter = new Date(cert.validity.notBefore.getTime() + days * 86400_000);
    cert.setSubject([{ name: "commonName", value: "system:karmada:agent:m2" }]);
    cert.setIssuer([{ name: "commonName", value: "karmada" }]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    return forge.pki.certificateToPem(cert);
}

describe("the agent as data", () => {
    test("its arguments name both kubeconfigs' sources, report no secrets and say where the member is", () => {
        const args = agentArgs({ clusterName: "m2", apiEndpoint: "https://m2:6443", provider: "kind", zones: ["a", "b"] });
        expect(args).toEqual(
            expect.arrayContaining([
                "--karmada-kubeconfig=/etc/karmada/config/karmada-kubeconfig",
                "--karmada-context=karmada",
                "--cluster-name=m2",
                "--cluster-api-endpoint=https://m2:6443",
                "--cluster-provider=kind",
                "--cluster-zones=a,b",
                "--report-secrets=None",
            ]),
        );
        expect(args.some((a) => a.startsWith("--cluster-region"))).toBe(false);
    });

    test("its rights in Karmada: its own Cluster by name, no wildcard, no Secrets, no CSRs", () => {
        const rules = agentKarmadaRules("m2");
        for (const r of rules) {
            expect([...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs]).not.toContain("*");
            expect(r.resources).not.toContain("secrets");
            expect(r.resources).not.toContain("certificatesigningrequests");
        }
        const writes = rules.filter((r) => r.resources?.some((x) => x.startsWith("clusters")) && r.verbs.some((v) => v === "update" || v === "delete"));
        for (const r of writes) expect(r.resourceNames).toEqual(["m2"]);
        expect(rules.flatMap((r) => (r.resources?.includes("clusters") ? r.verbs : []))).not.toContain("delete");
        expect(AGENT_SELF_MEMBER_RULES[0]).toEqual({
            apiGroups: [""],
            resources: ["namespaces"],
            resourceNames: ["kube-system", "karmada-system"],
            verbs: ["get"],
        });
    });

    test("its Karmada kubeconfig carries the server members reach, Karmada's CA and its own certificate", () => {
        const kc = agentKubeconfig("https://hub-control-plane:32443", "CA-PEM", "CERT-PEM", "KEY-PEM");
        expect(karmadaServer(kc)).toEqual({ server: "https://hub-control-plane:32443", caPem: "CA-PEM" });
        const user = YAML.parse(kc).users[0].user;
        expect(Buffer.from(user["client-key-data"], "base64").toString()).toBe("KEY-PEM");
        expect(() => karmadaServer(YAML.stringify({ clusters: [{ name: "c", cluster: { server: "https://x" } }] }))).toThrow(/certificate-authority-data/);
    });

    test.each([
        ["docker.io/karmada/karmada-controller-manager:v1.18.2", "v1.18.2"],
        ["registry:5000/karmada/karmada-controller-manager:v1.15.0@sha256:abcdef", "v1.15.0"],
        ["karmada/karmada-controller-manager", undefined],
        ["registry:5000/karmada-controller-manager", undefined],
    ])("the image tag of %s is %s", (image, tag) => expect(imageTag(image)).toBe(tag));

    test("the certificate is renewed by the first up after two thirds of its life", () => {
        const from = new Date("2026-01-01T00:00:00Z");
        const to = new Date("2027-01-01T00:00:00Z");
        expect(certificateNeedsRenewal(from, to, new Date("2026-08-01T00:00:00Z"))).toBe(false);
        expect(certificateNeedsRenewal(from, to, new Date("2026-09-15T00:00:00Z"))).toBe(true);
        expect(certificateNeedsRenewal(from, to, new Date("2027-02-01T00:00:00Z"))).toBe(true);
    });
});

describe("the agent's certificate", () => {
    const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    const keys = forge.pki.rsa.generateKeyPair({ bits: 1024 });
    const csr = forge.pki.createCertificationRequest();
    csr.publicKey = keys.publicKey;
    csr.setSubject([{ name: "commonName", value: "system:karmada:agent:m2" }]);
    csr.sign(keys.privateKey);
    const csrPem = forge.pki.certificationRequestToPem(csr);
    const args = { clusterName: "m2", csrPem, csrName: "kamino-agent-m2-x", expirationSeconds: 31536000, timeoutSeconds: 30 };

    test("is asked for with Karmada's client signer, waited for, and its CSR removed", async () => {
        const pem = certificate(365);
        const api = scriptedApi({
            [`POST ${csrPath}`]: [{ status: 201 }],
            [`GET ${csrPath}/kamino-agent-m2-x`]: [
                { status: 200, body: { status: {} } },
                { status: 200, body: { status: { certificate: Buffer.from(pem).toString("base64") } } },
            ],
        });
        const got = await requestAgentCertificate(api.call, args, clock());
        expect(got.certificate).toBe(pem);
        expect(got.notAfter).toBe("2027-12-01T00:00:00.000Z");
        const sent = api.calls[0].body as { spec: Record<string, unknown> };
        expect(sent.spec).toMatchObject({
            signerName: "kubernetes.io/kube-apiserver-client",
            usages: ["digital signature", "client auth"],
            expirationSeconds: 31536000,
        });
        expect(Buffer.from(sent.spec.request as string, "base64").toString()).toBe(csrPem);
        expect(api.calls.at(-1)).toMatchObject({ method: "DELETE", path: `${csrPath}/kamino-agent-m2-x` });
    });

    test("a denied request fails with Karmada's reason, and its CSR is removed", async () => {
        const api = scriptedApi({
            [`POST ${csrPath}`]: [{ status: 201 }],
            [`GET ${csrPath}/kamino-agent-m2-x`]: [
                { status: 200, body: { status: { conditions: [{ type: "Denied", status: "True", reason: "AgentCSRDenied", message: "wrong subject" }] } } },
            ],
        });
        await expect(requestAgentCertificate(api.call, args, clock())).rejects.toThrow(/denied the agent's certificate for m2: AgentCSRDenied wrong subject/);
        expect(api.calls.at(-1)?.method).toBe("DELETE");
    });

    test("a request nobody signs times out naming the controllers that should have", async () => {
        const api = scriptedApi({ [`POST ${csrPath}`]: [{ status: 201 }], [`GET ${csrPath}/kamino-agent-m2-x`]: [{ status: 200, body: { status: {} } }] });
        await expect(requestAgentCertificate(api.call, args, clock())).rejects.toThrow(/did not sign[^]*agentcsrapproving[^]*csrsigning/);
    });
});

describe("the agent's Cluster", () => {
    const path = "/apis/cluster.karmada.io/v1alpha1/clusters/m2";
    const ready = (status: string, extra: Record<string, unknown> = {}) => ({
        status: 200,
        body: { spec: { syncMode: "Pull", id: "uid-1" }, status: { conditions: [{ type: "Ready", status, ...extra }] } },
    });

    test("up waits until the agent has registered it and it is Ready, with a line each time what Karmada reports changes", async () => {
        const api = scriptedApi({
            [`GET ${path}`]: [
                { status: 404 },
                { status: 404 },
                ready("False", { reason: "ClusterNotReachable" }),
                ready("False", { reason: "ClusterNotReachable" }),
                ready("True"),
            ],
        });
        const lines: string[] = [];
        await expect(waitForPullCluster(api.call, { clusterName: "m2", timeoutSeconds: 60, onProgress: (l) => lines.push(l) }, clock())).resolves.toEqual({
            id: "uid-1",
            waitedSeconds: 4,
        });
        expect(api.calls).toHaveLength(5);
        expect(lines).toEqual([
            "waiting for the karmada-agent on m2 to register its Cluster in Karmada (waited 0s)",
            "Cluster m2 registered by its agent, Ready=False ClusterNotReachable (waited 2s)",
        ]);
    });

    test("a timeout says what Karmada reports, or that the agent never registered", async () => {
        const notReady = scriptedApi({ [`GET ${path}`]: [ready("False", { reason: "ClusterNotReachable", message: "cluster is not reachable" })] });
        await expect(waitForPullCluster(notReady.call, { clusterName: "m2", timeoutSeconds: 10 }, clock())).rejects.toThrow(
            /not Ready \(Ready=False ClusterNotReachable: cluster is not reachable\); its log: kubectl -n karmada-system logs deploy\/karmada-agent/,
        );
        const absent = scriptedApi({});
        await expect(waitForPullCluster(absent.call, { clusterName: "m2", timeoutSeconds: 10 }, clock())).rejects.toThrow(/has not registered a Cluster/);
    });

    test("a Cluster of that name joined by Push is refused at once", async () => {
        const api = scriptedApi({ [`GET ${path}`]: [{ status: 200, body: { spec: { syncMode: "Push" } } }] });
        await expect(waitForPullCluster(api.call, { clusterName: "m2", timeoutSeconds: 60 }, clock())).rejects.toThrow(
            /already has a Cluster 'm2' joined in Push mode/,
        );
        expect(api.calls).toHaveLength(1);
    });

    test("labels are set exactly: new keys merged, removed keys deleted", async () => {
        const api = scriptedApi({ [`PATCH ${path}`]: [{ status: 200 }] });
        await setClusterLabels(api.call, "m2", { tier: "dr" }, { tier: "ha", old: "x" });
        expect(api.calls[0]).toMatchObject({ body: { metadata: { labels: { tier: "dr", old: null } } }, contentType: "application/merge-patch+json" });
    });

    test("removal drains the Works while the agent runs, then deletes the Cluster", async () => {
        const works = "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-m2/works";
        const list = (...names: string[]) => ({ status: 200, body: { items: names.map((name) => ({ metadata: { name } })) } });
        const api = scriptedApi({
            [`GET ${path}`]: [ready("True"), { status: 404 }],
            [`GET ${works}`]: [list("w1", "w2"), list("w2"), list()],
        });
        await expect(drainAndDeleteCluster(api.call, { clusterName: "m2", timeoutSeconds: 60 }, clock())).resolves.toEqual({ drained: 2 });
        const deletes = api.calls.filter((c) => c.method === "DELETE").map((c) => c.path);
        expect(deletes).toEqual([`${works}/w1`, `${works}/w2`, path]);
    });

    test("a Cluster no agent serves is deleted without waiting for a drain", async () => {
        const api = scriptedApi({ [`GET ${path}`]: [ready("Unknown"), { status: 404 }] });
        await expect(drainAndDeleteCluster(api.call, { clusterName: "m2", timeoutSeconds: 60 }, clock())).resolves.toEqual({ drained: 0 });
        expect(api.calls.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual([path]);
    });

    test("a Cluster Karmada never lets go: the error says so and what to do", async () => {
        const api = scriptedApi({ [`GET ${path}`]: [ready("Unknown")] });
        await expect(drainAndDeleteCluster(api.call, { clusterName: "m2", timeoutSeconds: 5 }, clock())).rejects.toThrow(
            /did not finish deleting the Cluster 'm2' in 5s; run the destroy again/,
        );
    });
});

describe("Pull members in the config", () => {
    const base = {
        clusters: [
            { name: "hub", provider: "kind", karmadaHost: true },
            { name: "m1", provider: "kind" },
        ],
        iko: { chartPath: FIXTURE_CHART },
    };
    const errorOf = (cfg: Record<string, unknown>, files: Record<string, string> = {}) => {
        try {
            loadFleetConfig(raw(cfg), { pathExists: () => true, readFile: (p) => files[p] ?? "" });
        } catch (e) {
            if (e instanceof ConfigError) return e.message;
            throw e;
        }
        return "";
    };
    const withMember = (member: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...base, ...extra, clusters: [base.clusters[0], member] });

    test("syncMode is Push or Pull, in Karmada's spelling", () => {
        expect(errorOf(withMember({ name: "m1", provider: "kind", syncMode: "pull" }))).toMatch(
            /kamino:clusters\[1\]\.syncMode = "pull": must be Push or Pull; fix: write Push/,
        );
        expect(errorOf(withMember({ name: "m1", provider: "kind", syncMode: "Pull" }))).toBe("");
    });

    test("the Karmada host does not join", () => {
        const cfg = { ...base, clusters: [{ ...base.clusters[0], syncMode: "Pull" }, base.clusters[1]] };
        expect(errorOf(cfg)).toMatch(/kamino:clusters\[0\]\.syncMode = "Pull": 'hub' hosts Karmada and does not join it; fix: remove syncMode/);
    });

    test("a gke member cannot pull from Karmada on a kind cluster of this machine", () => {
        const gke = { name: "g1", provider: "gke", project: "p", zone: "us-central1-a", syncMode: "Pull" };
        expect(errorOf(withMember(gke))).toMatch(
            /syncMode = "Pull": the agent on 'g1' \(gke\) could not reach Karmada: .*kind cluster 'hub'.*; fix: join 'g1' by Push/,
        );
    });

    test("a kind member cannot pull from an existing Karmada at a loopback address", () => {
        const kc = YAML.stringify({
            clusters: [{ name: "k", cluster: { server: "https://127.0.0.1:5443" } }],
            contexts: [{ name: "k", context: { cluster: "k" } }],
            "current-context": "k",
        });
        const cfg = withMember({ name: "m1", provider: "kind", syncMode: "Pull" }, { karmada: { existingKubeconfigPath: "karmada.kubeconfig" } });
        expect(errorOf(cfg, { "karmada.kubeconfig": kc })).toMatch(/could not reach Karmada at 127\.0\.0\.1: that is a loopback address of this machine/);
        // An existing member may run where that address works (on this machine, as the loopback fleet does).
        expect(
            errorOf(
                withMember(
                    { name: "m1", provider: "existing", kubeconfigPath: "m1.kubeconfig", syncMode: "Pull" },
                    { karmada: { existingKubeconfigPath: "karmada.kubeconfig" } },
                ),
                { "karmada.kubeconfig": kc },
            ),
        ).toBe("");
    });
});

describe("changing the sync mode of a joined member", () => {
    const cfg = loadFleetConfig(
        raw({
            clusters: [
                { name: "hub", provider: "kind", karmadaHost: true },
                { name: "m1", provider: "kind" },
                { name: "m2", provider: "kind", syncMode: "Pull" },
            ],
            iko: { chartPath: FIXTURE_CHART },
        }),
        { pathExists: () => true },
    );

    test("is refused, naming the key, the live mode and the safe sequence", () => {
        const problems = syncModeChanges(cfg, [
            { name: "m1", syncMode: "Push" },
            { name: "m2", syncMode: "Push" },
        ]);
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(
            /^kamino:clusters\[2\]\.syncMode = "Pull": 'm2' is joined to Karmada in Push mode\. .*nothing was changed\. To change it: \(1\) remove 'm2' from kamino:clusters .*\(2\) add it back with syncMode: Pull/,
        );
    });

    test("members that keep their mode, or are not joined yet, pass", () => {
        expect(
            syncModeChanges(cfg, [
                { name: "m1", syncMode: "Push" },
                { name: "m2", syncMode: "Pull" },
            ]),
        ).toEqual([]);
        expect(syncModeChanges(cfg, [])).toEqual([]);
    });
});

describe("a fleet with a Push and a Pull member, under mocks", () => {
    const stack = {
        clusters: [
            { name: "hub", provider: "kind", karmadaHost: true },
            { name: "m1", provider: "kind" },
            { name: "m2", provider: "kind", syncMode: "Pull", labels: { tier: "dr" } },
        ],
        iko: { chartPath: FIXTURE_CHART },
        irisClusters: [
            { name: "everywhere", image: "iris:1" },
            { name: "in-iris", namespace: "iris", image: "iris:1" },
        ],
    };
    const run = new MockRun(false);
    const seen: pulumi.ResourceTransformationArgs[] = [];
    let fleet: Fleet;
    const liveCalls: string[] = [];
    const readyWaits: string[] = [];
    beforeAll(async () => {
        await run.install(raw(stack));
        const config = loadFleetConfig(raw(stack), { pathExists: () => true });
        fleet = new Fleet(
            "kamino",
            {
                plan: resolveFleetPlan(config),
                secretValues: {},
                crdReader: fakeCrdReader(),
                runningWaiter: fakeRunningWaiter(),
                liveMembers: async (kc) => (liveCalls.push(kc), []),
                agentReadyWaiter: async (_kc, clusterName, timeoutSeconds) => (readyWaits.push(`${clusterName} ${timeoutSeconds}s`), { waitedSeconds: 3 }),
                karmadaWorks: () => ({ workObjects: async () => [], deleteTemplate: async () => undefined }),
            },
            { transformations: [(a) => (seen.push(a), undefined)] },
        );
        await run.settle();
    });
    const dynamic = (name: string) => run.get("pulumi-nodejs:dynamic/kamino:PullClusterRegistration", name);

    test("Karmada gets a Cluster, credentials and a token only for the Push member", () => {
        expect(run.kind("Cluster").map((c) => c.inputs.metadata.name)).toEqual(["m1"]);
        const karmadaSecrets = run.kind("Secret").filter((s) => providerName(s) === "karmada-api");
        expect(karmadaSecrets.map((s) => s.inputs.metadata.name).sort()).toEqual(["m1"]);
        expect(
            run.ofType("kubernetes:core/v1:Secret").filter((s) => s.name.startsWith("m2-member-") && s.inputs.type === "kubernetes.io/service-account-token"),
        ).toEqual([]);
    });

    test("the agent runs on the Pull member with Karmada's image at the chart version, reporting no secrets", () => {
        const d = run.get("kubernetes:apps/v1:Deployment", "m2-member-agent");
        expect(providerName(d)).toBe("m2-k8s");
        const c = d.inputs.spec.template.spec.containers[0];
        expect(c.image).toBe("docker.io/karmada/karmada-agent:v1.18.1");
        expect(c.args).toEqual(expect.arrayContaining(["--cluster-name=m2", "--report-secrets=None", "--cluster-provider=kind"]));
        expect(d.inputs.spec.template.spec.serviceAccountName).toBe("karmada-agent");
        expect(JSON.stringify(d.inputs)).not.toContain(pulumi.runtime.specialSecretSig);
        expect(d.inputs.spec.template.metadata.annotations["kamino.io/kubeconfig-sha256"]).toMatch(/^[0-9a-f]{64}$/);
    });

    test("one agent at a time: no leader election, so a Recreate rollout (two agents would both report and apply)", () => {
        const d = run.get("kubernetes:apps/v1:Deployment", "m2-member-agent");
        const args: string[] = d.inputs.spec.template.spec.containers[0].args;
        expect(args).toContain("--leader-elect=false");
        expect(args.filter((a) => a.startsWith("--leader-elect-"))).toEqual([]);
        expect([d.inputs.spec.replicas, d.inputs.spec.strategy]).toEqual([1, { type: "Recreate" }]);
    });

    test("its kubeconfig reaches the kind host's node on the kind network, with the signed certificate", () => {
        const s = run.get("kubernetes:core/v1:Secret", "m2-member-agent-kubeconfig");
        expect(providerName(s)).toBe("m2-k8s");
        // A Pulumi secret: the mocks see the SDK's secret wrapper around the value.
        expect(s.inputs.stringData[pulumi.runtime.specialSigKey]).toBe(pulumi.runtime.specialSecretSig);
        const kc = YAML.parse(s.inputs.stringData.value["karmada-kubeconfig"]);
        expect(kc.clusters[0].cluster.server).toBe("https://hub-control-plane:32443");
        expect(Buffer.from(kc.users[0].user["client-certificate-data"], "base64").toString()).toBe(FAKE_AGENT_CERT);
        expect(Buffer.from(kc.users[0].user["client-key-data"], "base64").toString()).toBe("FAKE-AGENT-KEY");
    });

    test("in Karmada the agent is a user with its own ClusterRole, Work Role and cluster Lease Role, and no leader-election Lease Role", () => {
        const crb = run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "m2-member-karmada-binding");
        expect(providerName(crb)).toBe("karmada-api");
        expect(crb.inputs.subjects).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:karmada:agent:m2" }]);
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:Role", "m2-member-work-role").inputs.metadata.namespace).toBe("karmada-es-m2");
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:Role", "m2-member-lease-karmada-cluster-role").inputs.metadata.namespace).toBe(
            "karmada-cluster",
        );
        expect(run.ofType("kubernetes:rbac.authorization.k8s.io/v1:Role").filter((r) => r.name.startsWith("m2-member-lease-"))).toHaveLength(1);
    });

    test("on its member the agent holds the narrow plan plus the kube-system uid, nothing wildcard", () => {
        const role = run.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "m2-member-role");
        expect(role.inputs.metadata.name).toBe("karmada-agent:m2");
        const rules = role.inputs.rules as { apiGroups?: string[]; resources?: string[]; verbs: string[] }[];
        expect(rules).toEqual(expect.arrayContaining(AGENT_SELF_MEMBER_RULES));
        expect(rules.flatMap((r) => [...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs])).not.toContain("*");
        expect(run.get("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", "m2-member-access-default-binding").inputs.subjects).toEqual([
            { kind: "ServiceAccount", name: "karmada-agent", namespace: "karmada-system" },
        ]);
    });

    test("the registration waits for the agent and labels the Cluster; the workloads wait for the registration", () => {
        const reg = dynamic("m2-member-registration");
        expect(reg.inputs).toMatchObject({ clusterName: "m2", labels: { tier: "dr" }, timeoutSeconds: 300 });
        const optsOf = (name: string) => seen.find((s) => s.name === name)!.opts;
        expect([optsOf("m2-member-registration").dependsOn].flat()).toContain(fleet.members.m2 && (fleet.members.m2 as { agent?: unknown }).agent);
        expect([optsOf("everywhere").dependsOn].flat()).toContain(fleet.members.m2.cluster);
    });

    test("what Karmada propagates waits for the Pull member's registration and goes before it: its removal drains the member", () => {
        const optsOf = (name: string) => seen.find((s) => s.name === name)!.opts;
        const registration = fleet.members.m2.cluster;
        expect([optsOf("karmada-ns-iris").dependsOn].flat()).toContain(registration);
        expect([optsOf("karmada-ns-iris").dependsOn].flat()).not.toContain(fleet.members.m1.cluster);
    });

    test("up waits in the program for the Pull member's Cluster to be Ready, once, before the registration", () => {
        expect(readyWaits).toEqual(["m2 300s"]);
    });

    test("up asks the live Karmada for its members before any join writes to it", () => {
        expect(liveCalls).toHaveLength(1);
    });
});
