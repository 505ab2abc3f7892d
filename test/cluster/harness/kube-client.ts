// A small Kubernetes API client over Node's https: enough to bootstrap and test the loopback fleet
// (create, server-side apply, get, delete, raw GETs such as /readyz). Credentials are client
// certificates or a bearer token, as in the kubeconfigs the harness writes.
import * as fs from "fs";
import * as https from "https";
import * as YAML from "yaml";

/** A Kubernetes object as the API returns it. */
export interface KubeObject {
    apiVersion?: string;
    kind?: string;
    metadata?: {
        name?: string;
        namespace?: string;
        uid?: string;
        resourceVersion?: string;
        labels?: Record<string, string>;
        annotations?: Record<string, string>;
        finalizers?: string[];
        deletionTimestamp?: string;
        [k: string]: unknown;
    };
    [k: string]: unknown;
}

/** How to reach and authenticate to one API server. */
export interface KubeCredentials {
    /** https://127.0.0.1:<port> */
    server: string;
    /** PEM of the CA that signed the server's certificate. */
    ca: string | Buffer;
    /** Client certificate and key (PEM). */
    cert?: string | Buffer;
    key?: string | Buffer;
    /** Bearer token. */
    token?: string;
    /** TLS server name to verify, if not the host of `server`. */
    serverName?: string;
}

/** A non-2xx answer. */
export class KubeApiError extends Error {
    constructor(
        readonly method: string,
        readonly path: string,
        readonly status: number,
        readonly body: string,
    ) {
        super(`${method} ${path}: HTTP ${status}: ${body.slice(0, 500)}`);
    }
}

export interface KubeResponse {
    status: number;
    body: string;
}

/** `/api/v1/...` or `/apis/<group>/<version>/...` for a resource. */
export function resourcePath(apiVersion: string, plural: string, opts: { namespace?: string; name?: string; subresource?: string } = {}): string {
    const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = opts.namespace ? `/namespaces/${encodeURIComponent(opts.namespace)}` : "";
    const name = opts.name ? `/${encodeURIComponent(opts.name)}` : "";
    const sub = opts.subresource ? `/${opts.subresource}` : "";
    return `${base}${ns}/${plural}${name}${sub}`;
}

/** Client for one API server. Call `close()` when done (it keeps connections alive). */
export class KubeClient {
    private readonly agent: https.Agent;
    private readonly url: URL;

    constructor(
        readonly credentials: KubeCredentials,
        private readonly timeoutMs = 30_000,
    ) {
        this.url = new URL(credentials.server);
        this.agent = new https.Agent({
            keepAlive: true,
            maxSockets: 8,
            ca: credentials.ca,
            cert: credentials.cert,
            key: credentials.key,
            servername: credentials.serverName,
        });
    }

    /** Reads server, CA and client certificate (or token) from a kubeconfig's current context. */
    static fromKubeconfig(file: string): KubeClient {
        type Named<T> = { name: string } & T;
        const cfg = YAML.parse(fs.readFileSync(file, "utf8")) as {
            "current-context"?: string;
            clusters: Named<{ cluster: Record<string, string> }>[];
            contexts: Named<{ context: { cluster: string; user: string } }>[];
            users: Named<{ user: Record<string, string> }>[];
        };
        const ctx = cfg.contexts.find((c) => c.name === cfg["current-context"]) ?? cfg.contexts[0];
        const cluster = cfg.clusters.find((c) => c.name === ctx.context.cluster)?.cluster;
        const user = cfg.users.find((u) => u.name === ctx.context.user)?.user ?? {};
        if (!cluster) throw new Error(`${file}: context ${ctx.name} names an unknown cluster`);
        const data = (d: string | undefined, f: string | undefined) => (d ? Buffer.from(d, "base64") : f ? fs.readFileSync(f) : undefined);
        const ca = data(cluster["certificate-authority-data"], cluster["certificate-authority"]);
        if (!ca) throw new Error(`${file}: cluster ${ctx.context.cluster} has no certificate authority`);
        return new KubeClient({
            server: cluster.server,
            ca,
            cert: data(user["client-certificate-data"], user["client-certificate"]),
            key: data(user["client-key-data"], user["client-key"]),
            token: user.token,
        });
    }

    /** One HTTP request; resolves for every status (see `expect*` helpers for errors). */
    request(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<KubeResponse> {
        const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
        return new Promise((resolve, reject) => {
            const req = https.request(
                {
                    protocol: "https:",
                    hostname: this.url.hostname,
                    port: this.url.port || 443,
                    path: `${this.url.pathname.replace(/\/$/, "")}${path}`,
                    method,
                    agent: this.agent,
                    timeout: this.timeoutMs,
                    headers: {
                        Accept: "application/json",
                        ...(payload !== undefined ? { "Content-Type": contentType, "Content-Length": Buffer.byteLength(payload) } : {}),
                        ...(this.credentials.token ? { Authorization: `Bearer ${this.credentials.token}` } : {}),
                    },
                },
                (res) => {
                    const chunks: Buffer[] = [];
                    res.on("data", (d: Buffer) => chunks.push(d));
                    res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
                    res.on("error", reject);
                },
            );
            req.on("timeout", () => req.destroy(new Error(`${method} ${this.credentials.server}${path}: no answer within ${this.timeoutMs} ms`)));
            req.on("error", reject);
            if (payload !== undefined) req.write(payload);
            req.end();
        });
    }

    private async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
        const res = await this.request(method, path, body, contentType);
        if (res.status < 200 || res.status >= 300) throw new KubeApiError(method, path, res.status, res.body);
        return JSON.parse(res.body) as T;
    }

    /** GET; undefined on 404. */
    async get<T extends KubeObject = KubeObject>(path: string): Promise<T | undefined> {
        const res = await this.request("GET", path);
        if (res.status === 404) return undefined;
        if (res.status !== 200) throw new KubeApiError("GET", path, res.status, res.body);
        return JSON.parse(res.body) as T;
    }

    /** POST to a collection. */
    create<T extends KubeObject = KubeObject>(collectionPath: string, obj: KubeObject): Promise<T> {
        return this.json<T>("POST", collectionPath, obj);
    }

    /** Server-side apply (force) of `obj` at its object path. */
    apply<T extends KubeObject = KubeObject>(objectPath: string, obj: KubeObject, fieldManager = "kamino-harness"): Promise<T> {
        return this.json<T>("PATCH", `${objectPath}?fieldManager=${encodeURIComponent(fieldManager)}&force=true`, obj, "application/apply-patch+yaml");
    }

    /** JSON merge patch. */
    mergePatch<T extends KubeObject = KubeObject>(objectPath: string, patch: unknown): Promise<T> {
        return this.json<T>("PATCH", objectPath, patch, "application/merge-patch+json");
    }

    /** DELETE; false if it did not exist. */
    async delete(objectPath: string, propagationPolicy: "Background" | "Foreground" | "Orphan" = "Background"): Promise<boolean> {
        const res = await this.request("DELETE", objectPath, { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy });
        if (res.status === 404) return false;
        if (res.status < 200 || res.status >= 300) throw new KubeApiError("DELETE", objectPath, res.status, res.body);
        return true;
    }

    /** Closes kept-alive connections. */
    close(): void {
        this.agent.destroy();
    }
}
