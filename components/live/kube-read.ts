// Talking to live API servers for the few jobs resources cannot do: waiting for a CRD that an
// operator creates at start-up, the running-wait, and asking an existing Karmada what it allows. The client is @kubernetes/client-node, so every credential a kubeconfig can hold works as it
// does in kubectl: client certificates, tokens, and exec plugins (EKS, GKE, AKS, OIDC).
import type * as KubeClient from "@kubernetes/client-node";
import * as https from "https";
import { poll } from "./poll";
import { ProgressSink, WaitProgress } from "./progress";

/** A live object as the API server returns it. */
export type KubeObject = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; spec?: Record<string, unknown>; status?: unknown };

/** Reads one object; resolves undefined while it does not exist. */
export type KubeRead = () => Promise<KubeObject | undefined>;

// Loaded on first use (Node caches it after): the client is sizeable, and most programs (every
// preview of a fresh stack, every test under mocks) never read a live object. `require` of this ES
// module (Node 22.12+), not `import()`, and no module-level cache: a dynamic resource's provider code
// (karmada/members/agent-resources.ts) is serialized by Pulumi, whose closure serializer keeps `require`
// working but would freeze a cached promise into a plain object.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadClient = () => Promise.resolve().then(() => require("@kubernetes/client-node") as typeof KubeClient);

/** A kubeconfig's API server and credentials, resolved once. */
type Connection = Promise<{ kc: KubeClient.KubeConfig; server: URL }>;

function connect(kubeconfigText: string, context?: string): Connection {
    return loadClient().then((k) => {
        const kc = new k.KubeConfig();
        kc.loadFromString(kubeconfigText);
        if (context) kc.setCurrentContext(context);
        const cluster = kc.getCurrentCluster();
        if (!cluster) throw new Error(`the kubeconfig has no cluster for context '${kc.getCurrentContext()}'`);
        return { kc, server: new URL(cluster.server) };
    });
}

/** Sends one request through a connection; the body is returned as the API sent it. */
async function send(
    connection: Connection,
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
): Promise<{ status: number; body: string }> {
    const { kc, server } = await connection;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const opts: https.RequestOptions = {
        protocol: server.protocol,
        hostname: server.hostname,
        port: server.port || 443,
        path: `${server.pathname.replace(/\/$/, "")}${path}`,
        method,
        timeout: 10_000,
        headers: { Accept: "application/json", ...(payload ? { "Content-Type": contentType, "Content-Length": Buffer.byteLength(payload) } : {}) },
    };
    await kc.applyToHTTPSOptions(opts);
    return request(opts, payload);
}

/**
 * Builds a reader of one API path (e.g. a CRD's) through the kubeconfig's current (or the given)
 * context. The library resolves the credentials, refreshing an exec plugin's token when it expires;
 * the body is returned as the API sent it, because the library's typed models would rename or drop
 * schema fields (`x-kubernetes-*`, `$ref`) of a CRD that is copied on.
 */
export function kubeReader(kubeconfigText: string, path: string, context?: string): KubeRead {
    const connection = connect(kubeconfigText, context);
    return async () => {
        const { status, body } = await send(connection, "GET", path);
        if (status === 404) return undefined;
        if (status !== 200) throw new Error(describeError({ code: status, body }));
        return JSON.parse(body) as KubeObject;
    };
}

/**
 * One request of any method (e.g. a server-side dry-run create: `POST ...?dryRun=All`) through a
 * kubeconfig, with the same credentials as kubeReader; resolves the status and the raw body.
 */
export function kubeRequest(
    kubeconfigText: string,
    method: string,
    path: string,
    body?: unknown,
    opts: { contentType?: string; context?: string } = {},
): Promise<{ status: number; body: string }> {
    return send(connect(kubeconfigText, opts.context), method, path, body, opts.contentType);
}

/** The path of a CRD in the API. */
export const crdPath = (crdName: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;

function request(opts: https.RequestOptions, payload?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
        const req = https.request(opts, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (d: Buffer) => chunks.push(d));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
            res.on("error", reject);
        });
        req.on("timeout", () => req.destroy(new Error(`${opts.method} ${opts.path}: timed out`)));
        req.on("error", reject);
        req.end(payload);
    });
}

/** One line for a failed request: the HTTP status and the API's message, not the whole body. */
export function describeError(e: unknown): string {
    const err = e as { code?: unknown; body?: unknown; message?: string };
    if (typeof err.code === "number") {
        let message: string | undefined;
        try {
            const body = typeof err.body === "string" ? JSON.parse(err.body) : err.body;
            message = (body as { message?: string } | undefined)?.message;
        } catch {
            message = typeof err.body === "string" ? err.body.slice(0, 200) : undefined;
        }
        return `HTTP ${err.code}${message ? `: ${message}` : ""}`;
    }
    return err.message ?? String(e);
}

/** How long and how often to poll. */
export interface WaitOptions {
    /** Give up after this many seconds. */
    timeoutSeconds: number;
    /** Seconds between attempts. */
    intervalSeconds?: number;
    /** Where a line goes each time the answer changes (not there yet, or a new error), with the time waited. */
    onProgress?: ProgressSink;
    /** Injected clock and sleep, for tests. */
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

/**
 * Polls until `read()` returns an object. Not-found and transient errors are retried until
 * the deadline; then the error names what was awaited, for how long, and the last failure.
 */
export async function waitForObject(read: KubeRead, what: string, opts: WaitOptions): Promise<KubeObject> {
    // A falsy answer (not found) is "not yet", as is any error; both are retried.
    const progress = new WaitProgress(opts.onProgress, opts.now);
    const attempt = async () => {
        try {
            const found = (await read()) || undefined;
            if (!found) progress.update(`waiting for ${what}: not there yet`);
            return found;
        } catch (e) {
            progress.update(`waiting for ${what}: ${describeError(e)}`);
            throw e;
        }
    };
    return poll(attempt, {
        timeoutSeconds: opts.timeoutSeconds,
        intervalSeconds: opts.intervalSeconds ?? 5,
        now: opts.now,
        sleep: opts.sleep,
        timeoutError: (e) => new Error(`timed out after ${opts.timeoutSeconds}s waiting for ${what} (last result: ${e ? (e as Error).message : "not found"})`),
    });
}

/** One kind an API group version serves, as discovery lists it (`APIResourceList.resources`). */
export interface ApiResource {
    /** The resource (plural), e.g. `services`; subresources are `services/status`. */
    name: string;
    kind: string;
    namespaced: boolean;
}

/** The discovery path of a group version: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export const discoveryPath = (apiVersion: string) => (apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`);

/**
 * The kinds an API server serves in one group version (discovery), or undefined when it does not
 * serve the group version at all; other failures throw with the status and the API's message.
 */
export async function apiResources(kubeconfigText: string, apiVersion: string): Promise<ApiResource[] | undefined> {
    const { status, body } = await kubeRequest(kubeconfigText, "GET", discoveryPath(apiVersion));
    if (status === 404) return undefined;
    if (status !== 200) throw new Error(`discovery of ${apiVersion}: ${describeError({ code: status, body })}`);
    return ((JSON.parse(body) as { resources?: ApiResource[] }).resources ?? []).filter((r) => !r.name.includes("/"));
}
