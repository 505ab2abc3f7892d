// The start-up steps of the Karmada control plane beside the Karmada API server: namespaces and CRDs,
// the extension servers (aggregated apiserver + webhook), routing cluster.karmada.io and admission to
// them, and the controllers; each step starts its processes (returned at once) or waits for them.
import * as path from "path";
import { aggregatedApiObjects, CLUSTER_API_SERVICE, CrdObject, KARMADA_SYSTEM_NAMESPACE, systemNamespaces, webhookConfigurations } from "./karmada-objects";
import { KubeClient, KubeObject, resourcePath } from "./kube-client";
import { ApiServer, KubeProcesses } from "./kube-processes";
import { adminTls, ClusterPlan, ExtensionPorts, KarmadaPki } from "./plan";
import { LOOPBACK } from "./ports";
import { probe } from "./probes";
import { ManagedProcess } from "./processes";
import { waitFor } from "./wait";
import { DEFAULTS, KAMINO_FEATURE_GATES } from "../../../components/config";
import { detectionFlags } from "../../../components/karmada/failover/detection";
import { APISERVER_HTTP2_HEALTH_CHECK_ENV } from "../../../components/karmada/control-plane/apiserver-health-check";
import {
    commandArgs,
    FAILOVER_CONTROLLER_ARGS,
    FAILOVER_FEATURE_GATES,
    FAILOVER_WEBHOOK_ARGS,
    featureGatesArg,
} from "../../../components/karmada/failover/failover";

/** As Karmada's chart: no ServiceAccount admission (no pods) nor PVC protection. */
export const KARMADA_APISERVER_ARGS = ["--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount"];
/**
 * The environment Kamino patches onto a highly available Karmada's apiserver (its HTTP/2 health
 * check, apiserver-health-check.ts): the harness's runs with it, and harness.test.ts proves what it does.
 */
export const KARMADA_APISERVER_ENV = Object.fromEntries(APISERVER_HTTP2_HEALTH_CHECK_ENV.map((e) => [e.name, e.value]));
/**
 * As Karmada's chart, the controllers that matter here: namespaces, garbage collection, and
 * signing client certificates (csrsigning, with the CA the Karmada API trusts for clients), which a
 * Pull member's agent certificate needs once karmada-controller-manager's agentcsrapproving has
 * approved it; csrcleaner removes old requests.
 */
const KARMADA_KCM_CONTROLLERS = "namespace,garbagecollector,csrsigning,csrcleaner";

type Conditions = { status?: { conditions?: { type: string; status: string; message?: string }[] } };

/** Runs `fn` over `items` with at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
    const queue = [...items];
    const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
    });
    await Promise.all(workers);
}

/** Karmada's system namespaces, then its CRDs (4 at a time); waits until every CRD is Established. */
export async function applyNamespacesAndCrds(kube: KubeProcesses, s: ApiServer, crds: CrdObject[], clusterNamespace: boolean): Promise<void> {
    const c = s.client;
    for (const ns of systemNamespaces(clusterNamespace)) {
        await c.apply(resourcePath("v1", "namespaces", { name: ns.metadata!.name }), ns);
    }
    await pool(crds, 4, async (crd) => {
        await c.apply(resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: crd.metadata.name }), crd);
    });
    await waitFor(
        `${crds.length} Karmada CRDs Established`,
        async () => {
            const pending: string[] = [];
            for (const crd of crds) {
                const live = await c.get<KubeObject & Conditions>(
                    resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: crd.metadata.name }),
                );
                if (!live?.status?.conditions?.some((x) => x.type === "Established" && x.status === "True")) pending.push(crd.metadata.name);
            }
            if (pending.length) throw new Error(`not Established: ${pending.join(", ")}`);
            return true;
        },
        { timeoutMs: kube.ms(60), intervalMs: 500, watch: [s.apiserver] },
    );
}

export interface ExtensionServers {
    agg: ManagedProcess;
    webhook: ManagedProcess;
}

/** Starts karmada-aggregated-apiserver and karmada-webhook; returns at once (see waitForExtensionServers). */
export function startExtensionServers(kube: KubeProcesses, p: ClusterPlan, kp: KarmadaPki, etcdUrl: string, ports: ExtensionPorts): ExtensionServers {
    const kc = p.kubeconfig;
    const v = `--v=${kube.verbosity}`;
    const agg = kube.supervisor.start({
        name: "karmada-aggregated-apiserver",
        command: kube.bins["karmada-aggregated-apiserver"],
        // It stops serving at once on SIGTERM but then does not exit (seen with v1.18.2).
        stopGraceMs: 1_000,
        args: [
            `--kubeconfig=${kc}`,
            `--authentication-kubeconfig=${kc}`,
            `--authorization-kubeconfig=${kc}`,
            `--etcd-servers=${etcdUrl}`,
            // Beside the Karmada API's own keys, as in the chart (both use the same etcd and prefix).
            `--etcd-prefix=${p.etcdPrefix}`,
            `--bind-address=${LOOPBACK}`,
            `--secure-port=${ports.agg}`,
            `--cert-dir=${path.join(p.dir, "aggregated-apiserver-certs")}`,
            `--tls-cert-file=${kp.aggregated.cert}`,
            `--tls-private-key-file=${kp.aggregated.key}`,
            v,
        ],
    });
    const webhook = kube.supervisor.start({
        name: "karmada-webhook",
        command: kube.bins["karmada-webhook"],
        args: [
            `--kubeconfig=${kc}`,
            `--bind-address=${LOOPBACK}`,
            `--secure-port=${ports.webhook}`,
            `--cert-dir=${p.pki.dir}`,
            `--tls-cert-file-name=${path.basename(kp.webhook.cert)}`,
            `--tls-private-key-file-name=${path.basename(kp.webhook.key)}`,
            "--metrics-bind-address=0",
            "--health-probe-bind-address=0",
            // This harness, like karmadactl init, routes ClusterTaintPolicies to the webhook.
            ...commandArgs(FAILOVER_WEBHOOK_ARGS),
            v,
        ],
    });
    return { agg, webhook };
}

export async function waitForExtensionServers(
    kube: KubeProcesses,
    p: ClusterPlan,
    s: ApiServer,
    ports: ExtensionPorts,
    { agg, webhook }: ExtensionServers,
): Promise<void> {
    const tls = adminTls(p, s.caPem);
    await Promise.all([
        waitFor("karmada-aggregated-apiserver /readyz", () => probe(`https://${LOOPBACK}:${ports.agg}/readyz`, tls).then(() => true), {
            timeoutMs: kube.ms(120),
            intervalMs: 500,
            watch: [agg, s.apiserver],
        }),
        waitFor("karmada-webhook /readyz/", () => probe(`https://${LOOPBACK}:${ports.webhook}/readyz/`, tls).then(() => true), {
            timeoutMs: kube.ms(120),
            intervalMs: 500,
            watch: [webhook, s.apiserver],
        }),
    ]);
}

/** Routes cluster.karmada.io to the aggregated API server and admission to the webhook; waits until the Cluster API answers. */
export async function routeToExtensionServers(kube: KubeProcesses, s: ApiServer, ports: ExtensionPorts, agg: ManagedProcess): Promise<void> {
    const c = s.client;
    const { service, apiService } = aggregatedApiObjects(ports.agg, s.caPem);
    await c.apply(resourcePath("v1", "services", { namespace: KARMADA_SYSTEM_NAMESPACE, name: service.metadata!.name }), service);
    await c.apply(resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: CLUSTER_API_SERVICE }), apiService);
    const hooks = webhookConfigurations(ports.webhook, s.caPem);
    await c.apply(resourcePath("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", { name: hooks.mutating.metadata!.name }), hooks.mutating);
    await c.apply(
        resourcePath("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", { name: hooks.validating.metadata!.name }),
        hooks.validating,
    );
    await waitFor(
        `APIService ${CLUSTER_API_SERVICE} Available`,
        async () => {
            const live = await c.get<KubeObject & Conditions>(resourcePath("apiregistration.k8s.io/v1", "apiservices", { name: CLUSTER_API_SERVICE }));
            const cond = live?.status?.conditions?.find((x) => x.type === "Available");
            if (cond?.status === "True") return true;
            throw new Error(`Available=${cond?.status ?? "?"}: ${cond?.message ?? ""}`);
        },
        { timeoutMs: kube.ms(90), intervalMs: 500, watch: [s.apiserver, agg] },
    );
    await waitFor(
        "GET /apis/cluster.karmada.io/v1alpha1/clusters = 200",
        async () => {
            const res = await c.request("GET", "/apis/cluster.karmada.io/v1alpha1/clusters");
            if (res.status === 200) return true;
            throw new Error(`HTTP ${res.status}: ${res.body.slice(0, 200)}`);
        },
        { timeoutMs: kube.ms(60), intervalMs: 500, watch: [s.apiserver, agg] },
    );
}

/** karmada-controller-manager's command line. */
export function karmadaControllerManagerArgs(kube: KubeProcesses, p: ClusterPlan, ports: ExtensionPorts): string[] {
    return [
        `--kubeconfig=${p.kubeconfig}`,
        "--leader-elect=false",
        // As Karmada's chart: its hard-coded probe interval, then what Kamino appends through
        // `controllerManager.extraCommandArgs`, whose later flags win: failure detection at Kamino's
        // default, and what failover placement needs.
        "--cluster-status-update-frequency=10s",
        featureGatesArg({ ...KAMINO_FEATURE_GATES, ...FAILOVER_FEATURE_GATES }),
        ...commandArgs(detectionFlags(DEFAULTS.failureDetectionSeconds).controllerManager),
        ...commandArgs(FAILOVER_CONTROLLER_ARGS),
        "--metrics-bind-address=0",
        `--health-probe-bind-address=${LOOPBACK}:${ports.kcmHealth}`,
        `--v=${kube.verbosity}`,
    ];
}

export interface KarmadaControllers {
    cm: ManagedProcess;
    sched: ManagedProcess;
}

/**
 * Starts the Karmada API's kube-controller-manager (as `s.controllerManager`), then
 * karmada-controller-manager with `cmArgs` and karmada-scheduler; returns at once (see waitForControllers).
 */
export function startControllers(kube: KubeProcesses, p: ClusterPlan, s: ApiServer, ports: ExtensionPorts, cmArgs: string[]): KarmadaControllers {
    kube.startControllerManager(p, s, KARMADA_KCM_CONTROLLERS, [`--cluster-signing-cert-file=${p.pki.ca.cert}`, `--cluster-signing-key-file=${p.pki.ca.key}`]);
    const cm = kube.supervisor.start({ name: "karmada-controller-manager", command: kube.bins["karmada-controller-manager"], args: cmArgs });
    const sched = kube.supervisor.start({
        name: "karmada-scheduler",
        command: kube.bins["karmada-scheduler"],
        args: [
            `--kubeconfig=${p.kubeconfig}`,
            "--leader-elect=false",
            "--metrics-bind-address=0",
            `--health-probe-bind-address=${LOOPBACK}:${ports.schedHealth}`,
            `--v=${kube.verbosity}`,
        ],
    });
    return { cm, sched };
}

export async function waitForControllers(
    kube: KubeProcesses,
    p: ClusterPlan,
    s: ApiServer,
    ports: ExtensionPorts,
    { cm, sched }: KarmadaControllers,
): Promise<void> {
    await Promise.all([
        waitFor("karmada-controller-manager /healthz", () => probe(`http://${LOOPBACK}:${ports.kcmHealth}/healthz`).then(() => true), {
            timeoutMs: kube.ms(120),
            intervalMs: 500,
            watch: [cm, s.apiserver],
        }),
        waitFor("karmada-scheduler /healthz", () => probe(`http://${LOOPBACK}:${ports.schedHealth}/healthz`).then(() => true), {
            timeoutMs: kube.ms(120),
            intervalMs: 500,
            watch: [sched, s.apiserver],
        }),
        kube.waitForControllerManager(p, s),
    ]);
}

/**
 * Records karmada-controller-manager's `command` line as a Deployment (replicas 0) in karmada-system,
 * where Karmada's chart runs it (see LoopbackFleet.recordControllerManager).
 */
export async function recordControllerManager(c: KubeClient, command: readonly string[]): Promise<void> {
    await c.apply(resourcePath("v1", "namespaces", { name: KARMADA_SYSTEM_NAMESPACE }), {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: KARMADA_SYSTEM_NAMESPACE },
    });
    const labels = { app: "karmada-controller-manager" };
    await c.apply(resourcePath("apps/v1", "deployments", { namespace: KARMADA_SYSTEM_NAMESPACE, name: "karmada-controller-manager" }), {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "karmada-controller-manager", namespace: KARMADA_SYSTEM_NAMESPACE, labels },
        spec: {
            replicas: 0,
            selector: { matchLabels: labels },
            template: {
                metadata: { labels },
                spec: {
                    containers: [
                        {
                            name: "karmada-controller-manager",
                            // The version the harness runs: the toolchain builds Kamino's default (toolchain/versions.env).
                            image: `karmada/karmada-controller-manager:${DEFAULTS.karmadaChartVersion}`,
                            command: ["/bin/karmada-controller-manager", ...command],
                        },
                    ],
                },
            },
        },
    } as KubeObject);
}
