// Karmada's three-member etcd off kind (components/karmada/control-plane/etcd-cluster.ts), run with the real etcd
// binary: each member is started with the command line of Kamino's StatefulSet as Kubernetes would
// run it (POD_NAME and POD_IP from the downward API, the certificate Secret and the volume mounted at
// their paths) and the certificates EtcdCertificates issues. Each member has its own loopback address
// and sees the cluster DNS names of its peers and of the client Service in an /etc/hosts of its own
// (a private mount namespace, as a pod has its own resolver). Then a real kube-apiserver runs with
// the chart's flags for `etcd.mode: external` and Kamino's values for them.
// Proven: Kamino's objects for it are valid for a real kube-apiserver (strict field validation); the three members bootstrap (the chart's own etcd cannot); clients need the client
// certificate and peers the peer name; the apiserver keeps its objects under the registry prefix;
// a member lost leaves a quorum that takes writes; the member back catches up as itself; a snapshot
// restores into all three members by the steps of docs/production.md; and, through the real Pulumi
// engine, a stack asking a running etcd for another member count is refused before anything is made.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { loadBalancerSpec, PUBLIC_SERVICE_NAME } from "../../components/karmada/control-plane/api-endpoint";
import { etcdMemberFiles, issueEtcdCertificates, EtcdCertificateSet } from "../../components/karmada/control-plane/etcd-certificates";
import {
    ETCD_REGISTRY_PREFIX,
    etcdCertificateHosts,
    etcdClientServiceSpec,
    etcdClusterNames,
    etcdDisruptionBudgetSpec,
    etcdLabels,
    etcdPeerServiceSpec,
    etcdStatefulSetSpec,
} from "../../components/karmada/control-plane/etcd-cluster";
import { Binaries, findBinaries, KubeClient, resourcePath, waitFor } from "./harness";
import { ApiServer, KubeProcesses } from "./harness/kube-processes";
import { planCluster } from "./harness/plan";
import { PortAllocator } from "./harness/ports";
import { probe } from "./harness/probes";
import { EngineSandbox, toolchainPath } from "../support/engine";
import { runTempDir } from "../support/process-reaper";
import { ManagedProcess, ProcessSupervisor } from "./harness/processes";
import { etcdGatewayCall, etcdSnapshot } from "./harness/etcd-gateway";

jest.setTimeout(5 * 60_000);

const n = etcdClusterNames("karmada-system");
/** Each member's pod IP: a loopback address of its own, so all three can bind the same ports. */
const podIp = (i: number) => `127.0.10.${i + 1}`;

type Container = {
    command: string[];
    env: { name: string; valueFrom: { fieldRef: { fieldPath: string } } }[];
    volumeMounts: { name: string; mountPath: string }[];
    readinessProbe: { httpGet: { path: string; port: number } };
};
const spec = etcdStatefulSetSpec(n, { volumeSize: "1Gi", certificateRevision: "test" }) as unknown as { template: { spec: { containers: Container[] } } };
const container = spec.template.spec.containers[0];

let dir: string;
let certs: EtcdCertificateSet;
let hostsFile: string;
let bins: Binaries;
let supervisor: ProcessSupervisor;
const members: ManagedProcess[] = [];
let kube: KubeProcesses;
let karmadaApi: ApiServer;
let hostKubeconfig: string;
let apiserver: KubeClient;

/** Runs `command` in a mount namespace of its own whose /etc/hosts is `hostsFile`: the pod's view of the cluster DNS. */
function inPodNetwork(command: string, args: string[]): { command: string; args: string[] } {
    return { command: "/usr/bin/unshare", args: ["--mount", "/bin/sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', hostsFile, command, ...args] };
}

/** A pod's own 127.0.0.1 listener, which the members here cannot each have: they share one network namespace. */
const POD_LOCALHOST = ",https://127.0.0.1:2379";

/**
 * The member's container as the kubelet starts it: $(VAR) from the downward API, each volume at its
 * mount path (here a directory of the member's). The one change: no 127.0.0.1 listener (above).
 */
function memberCommand(i: number, etcdBinary: string): { command: string; args: string[] } {
    const fields: Record<string, string> = { "metadata.name": n.members[i], "status.podIP": podIp(i) };
    const env = Object.fromEntries(container.env.map((e) => [e.name, fields[e.valueFrom.fieldRef.fieldPath]]));
    const mounts = container.volumeMounts.map((m) => [m.mountPath, path.join(dir, n.members[i], m.name)] as const);
    const args = container.command.slice(1).map((a) =>
        mounts.reduce(
            (s, [from, to]) => s.split(from).join(to),
            a.replace(/\$\((\w+)\)/g, (_, v: string) => env[v]),
        ),
    );
    expect(container.command[0]).toBe("etcd");
    const listen = args.findIndex((a) => a.startsWith("--listen-client-urls=") && a.endsWith(POD_LOCALHOST));
    expect(listen).toBeGreaterThan(-1);
    args[listen] = args[listen].slice(0, -POD_LOCALHOST.length);
    return inPodNetwork(etcdBinary, args);
}

/** A call to a member's client API (etcd's JSON gateway) with the apiservers' client certificate, verified as the client Service's name. */
function etcdCall(
    i: number,
    api: string,
    body: unknown,
    cert: { cert?: string; key?: string } = { cert: certs.clientCrt, key: certs.clientKey },
): Promise<Record<string, unknown>> {
    return etcdGatewayCall({ host: podIp(i), ca: certs.caCrt, ...cert, servername: n.clientHost }, api, body);
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
/** The keys under `prefix`, read from member `i` alone (a serializable read answers from its own copy). */
async function keysAt(i: number, prefix: string): Promise<string[]> {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const got = await etcdCall(i, "/v3/kv/range", { key: b64(prefix), range_end: b64(end), keys_only: true, serializable: true });
    return ((got.kvs as { key: string }[] | undefined) ?? []).map((kv) => Buffer.from(kv.key, "base64").toString("utf8"));
}

const ready = (i: number) => probe(`http://${podIp(i)}:${container.readinessProbe.httpGet.port}${container.readinessProbe.httpGet.path}`).then(() => true);

beforeAll(async () => {
    bins = findBinaries();
    dir = runTempDir("kamino-etcd-");
    certs = issueEtcdCertificates(etcdCertificateHosts(n), new Date());
    // The cluster DNS as a pod sees it: each member's name, the headless Service's name, and the client Service (here all members, as its endpoints).
    hostsFile = path.join(dir, "hosts");
    const records = n.members.flatMap((m, i) => [`${podIp(i)} ${n.memberHost(m)}`, `${podIp(i)} ${n.clientHost}`]);
    fs.writeFileSync(hostsFile, `${fs.readFileSync("/etc/hosts", "utf8")}\n${records.join("\n")}\n`);
    try {
        execFileSync("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", 'mount --bind "$0" /etc/hosts && getent hosts "$1"', hostsFile, n.clientHost], {
            stdio: "pipe",
        });
    } catch (e) {
        throw new Error(
            `this test runs each etcd member in a mount namespace of its own (unshare --mount, mount --bind), which this machine refused: ${(e as Error).message}`,
        );
    }
    for (const m of n.members) {
        fs.mkdirSync(path.join(dir, m, "data"), { recursive: true, mode: 0o700 });
        fs.mkdirSync(path.join(dir, m, "certs"), { recursive: true });
        for (const [file, pem] of Object.entries(etcdMemberFiles(certs))) fs.writeFileSync(path.join(dir, m, "certs", file), pem, { mode: 0o400 });
    }
    expect(container.volumeMounts.map((v) => v.name).sort()).toEqual(["certs", "data"]);
    supervisor = new ProcessSupervisor(path.join(dir, "logs"));
    n.members.forEach((m, i) => members.push(supervisor.start({ name: m, ...memberCommand(i, bins.etcd) })));
    for (const i of n.members.keys()) await waitFor(`${n.members[i]} /readyz`, () => ready(i), { timeoutMs: 60_000, intervalMs: 500, watch: members });

    // A kube-apiserver with the chart's flags for an external etcd (templates/karmada-apiserver.yaml at v1.18.2) and Kamino's values for them.
    const ports = new PortAllocator();
    const plan = await planCluster(dir, "karmada", "karmada", ports);
    hostKubeconfig = plan.kubeconfig;
    const pki = path.join(dir, "apiserver-etcd");
    fs.mkdirSync(pki);
    fs.writeFileSync(path.join(pki, "ca.crt"), certs.caCrt);
    fs.writeFileSync(path.join(pki, "tls.crt"), certs.clientCrt);
    fs.writeFileSync(path.join(pki, "tls.key"), certs.clientKey, { mode: 0o400 });
    const wrapper = path.join(dir, "kube-apiserver-in-pod");
    const { command, args } = inPodNetwork(bins["kube-apiserver"], []);
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${[command, ...args].map((a) => `'${a}'`).join(" ")} "$@"\n`, { mode: 0o755 });
    kube = new KubeProcesses(supervisor, { ...bins, "kube-apiserver": wrapper }, 0, 1);
    karmadaApi = kube.startApiserver(plan, n.servers, [
        `--etcd-prefix=${ETCD_REGISTRY_PREFIX}`,
        `--etcd-cafile=${pki}/ca.crt`,
        `--etcd-certfile=${pki}/tls.crt`,
        `--etcd-keyfile=${pki}/tls.key`,
    ]);
    await kube.waitForReadyz(karmadaApi);
    apiserver = karmadaApi.client;
});

afterAll(async () => {
    await supervisor?.stopAll();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const configMapPath = (name: string) => resourcePath("v1", "configmaps", { namespace: "default", name });
/** Writes a ConfigMap through the apiserver. */
const writeConfigMap = (name: string) =>
    apiserver.apply(configMapPath(name), {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace: "default" },
        data: { from: "karmada-etcd.test" },
    });

test("Kamino's objects off kind (etcd's StatefulSet, Services and PodDisruptionBudget; the API's load balancer) are valid for a real kube-apiserver, every field known", async () => {
    await apiserver.apply(resourcePath("v1", "namespaces", { name: n.namespace }), { apiVersion: "v1", kind: "Namespace", metadata: { name: n.namespace } });
    const metadata = (name: string) => ({ name, namespace: n.namespace, labels: etcdLabels(n) });
    const objects: [string, Record<string, unknown>][] = [
        [
            "/apis/apps/v1",
            {
                apiVersion: "apps/v1",
                kind: "StatefulSet",
                metadata: metadata(n.statefulSet),
                spec: etcdStatefulSetSpec(n, { volumeSize: "8Gi", storageClass: "premium-rwo", certificateRevision: "r1" }),
            },
        ],
        ["/api/v1", { apiVersion: "v1", kind: "Service", metadata: metadata(n.statefulSet), spec: etcdPeerServiceSpec(n) }],
        ["/api/v1", { apiVersion: "v1", kind: "Service", metadata: metadata(n.clientService), spec: etcdClientServiceSpec(n) }],
        ["/apis/policy/v1", { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: metadata(n.statefulSet), spec: etcdDisruptionBudgetSpec(n) }],
        [
            "/api/v1",
            {
                apiVersion: "v1",
                kind: "Service",
                metadata: metadata(PUBLIC_SERVICE_NAME),
                spec: loadBalancerSpec({ host: "203.0.113.10", authorizedNetworks: ["203.0.113.0/24", "2001:db8::/32"] }),
            },
        ],
    ];
    for (const [group, obj] of objects) {
        const plural = { StatefulSet: "statefulsets", Service: "services", PodDisruptionBudget: "poddisruptionbudgets" }[obj.kind as string]!;
        // A dry run: validated and defaulted as a create would be, nothing stored (the refusal test below creates its own).
        const res = await apiserver.request("POST", `${group}/namespaces/${n.namespace}/${plural}?dryRun=All&fieldValidation=Strict`, obj);
        expect([obj.kind, (obj.metadata as { name: string }).name, res.status, res.status === 201 ? "" : res.body]).toEqual([
            obj.kind,
            (obj.metadata as { name: string }).name,
            201,
            "",
        ]);
    }
});

test("the three members bootstrap as one cluster, each under its stable name", async () => {
    const list = await etcdCall(1, "/v3/cluster/member/list", {});
    const got = (list.members as { name: string; peerURLs: string[]; clientURLs: string[] }[]).map((m) => [m.name, m.peerURLs, m.clientURLs]).sort();
    expect(got).toEqual(n.members.map((m) => [m, [`https://${n.memberHost(m)}:2380`], [`https://${n.memberHost(m)}:2379`]]));
});

test("a client needs the client certificate; a peer needs the peer name", async () => {
    await expect(etcdCall(0, "/v3/kv/range", { key: b64("/") }, {})).rejects.toThrow();
    // The peer port takes a member's certificate and refuses the apiservers' (signed by the same CA, another name).
    const peer = (cert: string, key: string) =>
        probe(`https://${podIp(2)}:2380/members`, { ca: certs.caCrt, cert, key, serverName: n.memberHost(n.members[2]) });
    await expect(peer(certs.memberCrt, certs.memberKey)).resolves.toContain(n.members[0]);
    await expect(peer(certs.clientCrt, certs.clientKey)).rejects.toThrow();
});

test("the apiserver keeps Karmada's objects under the registry prefix, on every member", async () => {
    await writeConfigMap("before-loss");
    for (const i of n.members.keys()) {
        await waitFor(
            `${n.members[i]} has the ConfigMap`,
            async () =>
                (await keysAt(i, `${ETCD_REGISTRY_PREFIX}/configmaps/default/`)).includes(`${ETCD_REGISTRY_PREFIX}/configmaps/default/before-loss`)
                    ? true
                    : undefined,
            {
                timeoutMs: 10_000,
            },
        );
    }
});

test("a member lost: the other two keep a quorum that takes writes; the member back catches up as itself", async () => {
    await supervisor.stopOne(members[0]);
    await writeConfigMap("during-loss");
    expect(await apiserver.get(configMapPath("during-loss"))).toBeTruthy();

    members[0] = supervisor.restart(members[0]);
    await waitFor(`${n.members[0]} /readyz after its restart`, () => ready(0), { timeoutMs: 60_000, intervalMs: 500, watch: members });
    await waitFor(
        `${n.members[0]} caught up`,
        async () =>
            (await keysAt(0, `${ETCD_REGISTRY_PREFIX}/configmaps/default/`)).includes(`${ETCD_REGISTRY_PREFIX}/configmaps/default/during-loss`)
                ? true
                : undefined,
        {
            timeoutMs: 20_000,
        },
    );
    const list = await etcdCall(0, "/v3/cluster/member/list", {});
    expect((list.members as unknown[]).length).toBe(3);
});

test("a snapshot restores into all three members, each under its own name, its revisions after every one given out before (docs/production.md, Restore)", async () => {
    await writeConfigMap("in-snapshot");
    const db = path.join(dir, "karmada-etcd.db");
    await etcdSnapshot({ host: podIp(2), ca: certs.caCrt, cert: certs.clientCrt, key: certs.clientKey, servername: n.clientHost }, db);
    // The newest resourceVersion a client (an informer) saw before the restore.
    const seen = (await writeConfigMap("after-snapshot")).metadata?.resourceVersion as string;

    // Step 3: stop etcd (and its clients), then step 4 as the page writes it, then step 5: each member's `member/` replaced.
    await supervisor.stopOne(karmadaApi.apiserver);
    for (const m of members) await supervisor.stopOne(m);
    const peers = [0, 1, 2].map((i) => `karmada-etcd-${i}=https://karmada-etcd-${i}.karmada-etcd.karmada-system.svc.cluster.local:2380`).join(",");
    for (const i of [0, 1, 2]) {
        const restored = path.join(dir, `restore-${i}`);
        execFileSync(
            bins.etcdutl,
            [
                "snapshot",
                "restore",
                db,
                "--name",
                `karmada-etcd-${i}`,
                "--initial-cluster",
                peers,
                "--initial-cluster-token",
                "karmada-etcd",
                "--initial-advertise-peer-urls",
                `https://karmada-etcd-${i}.karmada-etcd.karmada-system.svc.cluster.local:2380`,
                "--bump-revision",
                "1000000000",
                "--mark-compacted",
                "--data-dir",
                restored,
            ],
            { stdio: "pipe" },
        );
        const data = path.join(dir, n.members[i], "data");
        fs.rmSync(path.join(data, "member"), { recursive: true, force: true });
        fs.renameSync(path.join(restored, "member"), path.join(data, "member"));
    }

    // Step 6: the members back, then their clients.
    for (const i of [0, 1, 2]) members[i] = supervisor.restart(members[i]);
    for (const i of [0, 1, 2])
        await waitFor(`${n.members[i]} /readyz after the restore`, () => ready(i), { timeoutMs: 60_000, intervalMs: 500, watch: members });
    karmadaApi.apiserver = supervisor.restart(karmadaApi.apiserver);
    await kube.waitForReadyz(karmadaApi);

    expect(await apiserver.get(configMapPath("in-snapshot"))).toBeTruthy();
    expect(await apiserver.get(configMapPath("after-snapshot"))).toBeUndefined();
    const list = await etcdCall(0, "/v3/cluster/member/list", {});
    expect((list.members as { name: string }[]).map((m) => m.name).sort()).toEqual(n.members);
    for (const i of [0, 1, 2]) expect(await keysAt(i, `${ETCD_REGISTRY_PREFIX}/configmaps/default/in-snapshot`)).toHaveLength(1);

    // Revisions never go back (--bump-revision): without it a write after the restore is numbered below
    // what clients saw, and a watch resumed from there would skip every change made until etcd caught up.
    const after = (await writeConfigMap("after-restore")).metadata?.resourceVersion as string;
    expect(BigInt(after)).toBeGreaterThan(BigInt(seen));
    // Every revision before the restore reads as compacted (--mark-compacted): etcd refuses it, and the
    // apiserver answers a watch from it with 410 Gone, which makes an informer list again.
    await expect(etcdCall(0, "/v3/kv/range", { key: b64(`${ETCD_REGISTRY_PREFIX}/configmaps/default/in-snapshot`), revision: seen })).rejects.toThrow(
        /compacted/,
    );
    const watch = await apiserver.request("GET", `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${seen}&timeoutSeconds=2`);
    expect(`${watch.status} ${watch.body}`).toMatch(/^410 |"code":410/);
});

test("the real engine refuses a member count the running etcd cannot take, before anything is made", async () => {
    // This apiserver plays the host: an etcd of 3 runs there (its StatefulSet; no controller is needed to read it).
    const labels = { app: "karmada-etcd" };
    await apiserver.apply(resourcePath("v1", "namespaces", { name: "karmada-system" }), {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "karmada-system" },
    });
    const stsPath = resourcePath("apps/v1", "statefulsets", { namespace: "karmada-system", name: "karmada-etcd" });
    await apiserver.apply(stsPath, {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "karmada-etcd", namespace: "karmada-system" },
        spec: {
            replicas: 3,
            serviceName: "karmada-etcd",
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: "etcd", image: "registry.k8s.io/etcd:3.6.6-0" }] } },
        },
    } as never);

    const sandbox = new EngineSandbox(toolchainPath("engine"));
    try {
        fs.writeFileSync(
            path.join(sandbox.project, "index.ts"),
            `import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KarmadaEtcd } from "./components/karmada/control-plane/karmada-etcd";
const kubeconfig = new pulumi.Config().requireSecret("hostKubeconfig");
const host = new k8s.Provider("host", { kubeconfig });
new KarmadaEtcd("karmada-etcd", { hostProvider: host, hostKubeconfig: kubeconfig, namespace: "karmada-system", settings: { members: 5 } });
`,
        );
        const stack = await sandbox.stack("etcd-count", undefined);
        await stack.setConfig("kamino:hostKubeconfig", { value: fs.readFileSync(hostKubeconfig, "utf8"), secret: true });
        const failed = await stack.up().then(
            () => "succeeded",
            (e: Error) => e.message,
        );
        expect(failed).toMatch(/kamino:karmada\.etcd\.members = 5: Karmada's etcd runs with 3 members.*fix: set it back to 3/);
        // Nothing but the stack, its component and the providers: no object, no certificate.
        const made = (((await stack.exportStack()).deployment as { resources?: { type: string; custom: boolean }[] }).resources ?? []).filter(
            (r) => r.custom && !r.type.startsWith("pulumi:providers:"),
        );
        expect(made.map((r) => r.type)).toEqual([]);
        expect(((await apiserver.get(stsPath)) as { spec: { replicas: number } }).spec.replicas).toBe(3);
    } finally {
        sandbox.cleanup();
    }
});
