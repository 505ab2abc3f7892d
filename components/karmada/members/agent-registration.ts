// The live steps of a Pull member's life in the Karmada API that no typed resource can do: asking
// Karmada for the agent's client certificate, waiting until the agent's Cluster is Ready, and, on
// removal, draining what Karmada placed on the member while the agent still runs, then deleting the
// Cluster. Written over a request function (KubeCall) so that tests answer for the API; the dynamic
// resources in agent-resources.ts call them with the Karmada kubeconfig.
import { X509Certificate } from "crypto";
import { poll } from "../../live/poll";
import { describeError } from "../../live/kube-read";
import { ProgressSink, WaitProgress } from "../../live/progress";
import { AGENT_GROUP, AGENT_SIGNER, agentNames } from "./pull-agent";
import { KARMADA_PATHS } from "../../crds/karmada-api";

/** One request to the Karmada API: method, path, JSON body, content type; resolves status and raw body. */
export type KubeCall = (method: string, path: string, body?: unknown, contentType?: string) => Promise<{ status: number; body: string }>;

/** Clock and sleep, injected by tests. */
export interface Clock {
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

const CLUSTERS = KARMADA_PATHS.clusters;
const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const worksPath = KARMADA_PATHS.worksIn;

type Condition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };
type LiveCluster = { metadata?: { labels?: Record<string, string> }; spec?: { syncMode?: string; id?: string }; status?: { conditions?: Condition[] } };

/** The agent's client certificate, as Karmada signed it. */
export interface AgentCertificate {
    /** PEM. */
    certificate: string;
    /** ISO times of its validity. */
    notBefore: string;
    notAfter: string;
}

/**
 * Sends the agent's CSR (PEM, made by the caller with a key only it holds), waits for Karmada's
 * `agentcsrapproving` controller to approve it and its kube-controller-manager to sign it, then
 * removes the CSR: the certificate lives on in the caller's (Pulumi's) state, and a leftover CSR
 * would only wait for Karmada's cleaner.
 */
export async function requestAgentCertificate(
    call: KubeCall,
    a: { clusterName: string; csrPem: string; expirationSeconds: number; timeoutSeconds: number; csrName: string },
    clock: Clock = {},
): Promise<AgentCertificate> {
    const created = await call("POST", CSRS, {
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name: a.csrName, labels: { "karmada.io/system": "true" } },
        spec: {
            request: Buffer.from(a.csrPem, "utf8").toString("base64"),
            signerName: AGENT_SIGNER,
            usages: ["digital signature", "client auth"],
            expirationSeconds: a.expirationSeconds,
        },
    });
    if (created.status !== 201)
        throw new Error(
            `Karmada refused the agent's CertificateSigningRequest for ${a.clusterName}: ${describeError({ code: created.status, body: created.body })}`,
        );
    try {
        const pem = await poll(
            async () => {
                const got = await call("GET", `${CSRS}/${a.csrName}`);
                if (got.status !== 200) throw new Error(describeError({ code: got.status, body: got.body }));
                const csr = JSON.parse(got.body) as { status?: { certificate?: string; conditions?: Condition[] } };
                const refused = csr.status?.conditions?.find((c) => (c.type === "Denied" || c.type === "Failed") && c.status === "True");
                if (refused) return { refused };
                return csr.status?.certificate ? { certificate: Buffer.from(csr.status.certificate, "base64").toString("utf8") } : undefined;
            },
            {
                timeoutSeconds: a.timeoutSeconds,
                intervalSeconds: 1,
                ...clock,
                timeoutError: (e) =>
                    new Error(
                        `Karmada did not sign the agent's certificate for ${a.clusterName} in ${a.timeoutSeconds}s (CSR ${a.csrName}; ${e ? (e as Error).message : "not approved or not signed"}). ` +
                            "Karmada's controller-manager approves it (controller agentcsrapproving) and its kube-controller-manager signs it (controller csrsigning): check that both run",
                    ),
            },
        );
        if ("refused" in pem)
            throw new Error(
                `Karmada ${pem.refused!.type.toLowerCase()} the agent's certificate for ${a.clusterName}: ${pem.refused!.reason ?? ""} ${pem.refused!.message ?? ""}`.trim(),
            );
        const x509 = new X509Certificate(pem.certificate!);
        return { certificate: pem.certificate!, notBefore: new Date(x509.validFrom).toISOString(), notAfter: new Date(x509.validTo).toISOString() };
    } finally {
        await call("DELETE", `${CSRS}/${a.csrName}`).catch(() => undefined);
    }
}

/** The Ready condition of a live Cluster, if it has one. */
export const readyCondition = (c: LiveCluster | undefined) => c?.status?.conditions?.find((x) => x.type === "Ready");

/**
 * Waits until the agent has registered its Cluster (syncMode Pull) and Karmada reports it Ready,
 * then resolves its `spec.id`. A Cluster of that name in Push mode is an error at once: another
 * join owns the name. The timeout says what Karmada last reported.
 */
export async function waitForPullCluster(
    call: KubeCall,
    a: { clusterName: string; timeoutSeconds: number; onProgress?: ProgressSink },
    clock: Clock = {},
): Promise<{ id: string; waitedSeconds: number }> {
    let last: LiveCluster | undefined;
    const progress = new WaitProgress(a.onProgress, clock.now);
    const found = await poll(
        async () => {
            const got = await call("GET", `${CLUSTERS}/${a.clusterName}`);
            if (got.status === 404) {
                progress.update(`waiting for the karmada-agent on ${a.clusterName} to register its Cluster in Karmada`);
                return (last = undefined);
            }
            if (got.status !== 200) throw new Error(describeError({ code: got.status, body: got.body }));
            last = JSON.parse(got.body) as LiveCluster;
            if (last.spec?.syncMode === "Push") return last;
            const ready = readyCondition(last);
            if (ready?.status === "True") return last;
            progress.update(
                `Cluster ${a.clusterName} registered by its agent, ${ready ? `Ready=${ready.status}${ready.reason ? ` ${ready.reason}` : ""}` : "no Ready condition yet"}`,
            );
            return undefined;
        },
        {
            timeoutSeconds: a.timeoutSeconds,
            intervalSeconds: 1,
            ...clock,
            timeoutError: (e) => new Error(pullTimeoutMessage(a.clusterName, a.timeoutSeconds, last, e)),
        },
    );
    if (found.spec?.syncMode === "Push") {
        throw new Error(
            `Karmada already has a Cluster '${a.clusterName}' joined in Push mode; its agent cannot register it in Pull mode. ` +
                "Unjoin it first (see docs/configuration.md, 'Changing syncMode'), then run `pulumi up` again",
        );
    }
    return { id: found.spec?.id ?? "", waitedSeconds: progress.waitedSeconds };
}

function pullTimeoutMessage(clusterName: string, seconds: number, last: LiveCluster | undefined, e: unknown): string {
    const logs = `its log: kubectl -n karmada-system logs deploy/karmada-agent (on '${clusterName}')`;
    if (e) return `timed out after ${seconds}s waiting for the agent of '${clusterName}' to register it in Karmada: ${(e as Error).message}`;
    if (!last) return `timed out after ${seconds}s: the karmada-agent on '${clusterName}' has not registered a Cluster in Karmada; ${logs}`;
    const ready = readyCondition(last);
    return (
        `timed out after ${seconds}s: Karmada has the Cluster '${clusterName}' but it is not Ready ` +
        `(${ready ? `Ready=${ready.status}${ready.reason ? ` ${ready.reason}` : ""}${ready.message ? `: ${ready.message}` : ""}` : "no Ready condition yet"}); ${logs}`
    );
}

/**
 * Sets the Cluster's labels to exactly `labels` (the agent writes only the spec, so the labels are
 * Kamino's): a merge patch that also removes the keys `previous` had and `labels` has not.
 */
export async function setClusterLabels(
    call: KubeCall,
    clusterName: string,
    labels: Record<string, string>,
    previous: Record<string, string> = {},
): Promise<void> {
    const patch: Record<string, string | null> = { ...Object.fromEntries(Object.keys(previous).map((k) => [k, null])), ...labels };
    if (Object.keys(patch).length === 0) return;
    const res = await call("PATCH", `${CLUSTERS}/${clusterName}`, { metadata: { labels: patch } }, "application/merge-patch+json");
    if (res.status !== 200) throw new Error(`could not label the Cluster '${clusterName}' in Karmada: ${describeError({ code: res.status, body: res.body })}`);
}

/**
 * Removes a Pull member from Karmada in the order `karmadactl unregister` uses (#5626): first the
 * Works of its execution namespace, which the agent, still running and still allowed, deletes from
 * the member; then the Cluster, whose deletion takes the execution namespace (and the agent's rights
 * on Works) with it. Skips the drain when the Cluster is not Ready: no agent would act on it, and
 * Karmada then releases the Works itself.
 */
export async function drainAndDeleteCluster(
    call: KubeCall,
    a: { clusterName: string; timeoutSeconds: number },
    clock: Clock = {},
): Promise<{ drained: number }> {
    const got = await call("GET", `${CLUSTERS}/${a.clusterName}`);
    if (got.status === 404) return { drained: 0 };
    if (got.status !== 200) throw new Error(`reading the Cluster '${a.clusterName}' from Karmada: ${describeError({ code: got.status, body: got.body })}`);
    const cluster = JSON.parse(got.body) as LiveCluster;
    const ns = agentNames(a.clusterName).executionNamespace;
    let drained = 0;
    if (readyCondition(cluster)?.status === "True") {
        const names = await workNames(call, ns);
        drained = names.length;
        for (const n of names) await call("DELETE", `${worksPath(ns)}/${n}`);
        await poll(async () => ((await workNames(call, ns)).length === 0 ? true : undefined), {
            timeoutSeconds: a.timeoutSeconds,
            intervalSeconds: 1,
            ...clock,
            timeoutError: () =>
                new Error(
                    `the agent of '${a.clusterName}' did not remove Karmada's Works from the member in ${a.timeoutSeconds}s (namespace ${ns} in Karmada); ` +
                        `look at its log (kubectl -n karmada-system logs deploy/karmada-agent on '${a.clusterName}') and run the destroy again`,
                ),
        });
    }
    await deleteCluster(call, a, clock);
    return { drained };
}

/**
 * Deletes a member's Cluster from Karmada and waits until Karmada has let it go. For a Pull member
 * that is not Ready, Karmada's cluster controller removes the finalizers of its Works itself
 * (pkg/controllers/cluster/cluster_controller.go at v1.18.2): nothing waits for the lost agent.
 */
export async function deleteCluster(call: KubeCall, a: { clusterName: string; timeoutSeconds: number }, clock: Clock = {}): Promise<void> {
    const del = await call("DELETE", `${CLUSTERS}/${a.clusterName}`);
    if (del.status !== 200 && del.status !== 202 && del.status !== 404)
        throw new Error(`deleting the Cluster '${a.clusterName}' from Karmada: ${describeError({ code: del.status, body: del.body })}`);
    await poll(async () => ((await call("GET", `${CLUSTERS}/${a.clusterName}`)).status === 404 ? true : undefined), {
        timeoutSeconds: a.timeoutSeconds,
        intervalSeconds: 1,
        ...clock,
        timeoutError: () => new Error(`Karmada did not finish deleting the Cluster '${a.clusterName}' in ${a.timeoutSeconds}s; run the destroy again`),
    });
}

async function workNames(call: KubeCall, ns: string): Promise<string[]> {
    const res = await call("GET", worksPath(ns));
    if (res.status === 404) return [];
    if (res.status !== 200) throw new Error(`listing Works in ${ns}: ${describeError({ code: res.status, body: res.body })}`);
    return ((JSON.parse(res.body) as { items?: { metadata?: { name?: string } }[] }).items ?? []).map((w) => w.metadata?.name ?? "").filter((n) => n !== "");
}

/** The agent's identity as its certificate must name it: `agentcsrapproving` approves only this subject. */
export const agentSubject = (clusterName: string) => ({ commonName: agentNames(clusterName).user, organization: AGENT_GROUP });
