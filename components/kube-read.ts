// A minimal, read-only Kubernetes API client for one job: waiting for a CRD that an operator
// creates at start-up. Supports the kubeconfig credentials kind and Karmada use (client
// certificates, bearer tokens); exec plugins are refused with a clear error.
import * as fs from "fs";
import * as https from "https";
import { activeCluster, parseKubeconfig } from "./kubeconfig";

/** A live object as the API server returns it. */
export type KubeObject = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; spec?: Record<string, unknown>; status?: unknown };

/** GETs a path on the API server; resolves undefined on 404. */
export type KubeGet = (path: string) => Promise<KubeObject | undefined>;

const fromData = (data: unknown, file: unknown): Buffer | undefined =>
    typeof data === "string" ? Buffer.from(data, "base64") : typeof file === "string" ? fs.readFileSync(file) : undefined;

/** Builds a GET function for the kubeconfig's active context. */
export function kubeGetter(kubeconfigText: string, context?: string): KubeGet {
    const config = parseKubeconfig(kubeconfigText);
    const cluster = activeCluster(config, context);
    const ctxName = context ?? config["current-context"];
    const userName = config.contexts.find((c) => c.name === ctxName)?.context.user ?? config.users[0]?.name;
    const user = config.users.find((u) => u.name === userName)?.user ?? {};
    if (user.exec || user["auth-provider"]) {
        throw new Error("this kubeconfig authenticates with an exec or auth-provider plugin; use a client certificate or token kubeconfig");
    }
    const url = new URL(cluster.cluster.server);
    const c = cluster.cluster as Record<string, unknown>;
    const token = typeof user.token === "string" ? user.token : typeof user.tokenFile === "string" ? fs.readFileSync(user.tokenFile, "utf8").trim() : undefined;
    const agent = new https.Agent({
        ca: fromData(c["certificate-authority-data"], c["certificate-authority"]),
        cert: fromData(user["client-certificate-data"], user["client-certificate"]),
        key: fromData(user["client-key-data"], user["client-key"]),
        rejectUnauthorized: c["insecure-skip-tls-verify"] !== true,
        servername: typeof c["tls-server-name"] === "string" ? c["tls-server-name"] : undefined,
    });
    return (path) =>
        new Promise((resolve, reject) => {
            const req = https.request(
                {
                    protocol: url.protocol,
                    hostname: url.hostname,
                    port: url.port || 443,
                    path: `${url.pathname.replace(/\/$/, "")}${path}`,
                    method: "GET",
                    agent,
                    timeout: 10_000,
                    headers: { Accept: "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
                },
                (res) => {
                    const chunks: Buffer[] = [];
                    res.on("data", (d: Buffer) => chunks.push(d));
                    res.on("end", () => {
                        const body = Buffer.concat(chunks).toString("utf8");
                        if (res.statusCode === 404) resolve(undefined);
                        else if (res.statusCode === 200) resolve(JSON.parse(body) as KubeObject);
                        else reject(new Error(`GET ${path}: HTTP ${res.statusCode}: ${body.slice(0, 200)}`));
                    });
                },
            );
            req.on("timeout", () => req.destroy(new Error(`GET ${path}: timed out`)));
            req.on("error", reject);
            req.end();
        });
}

/** How long and how often to poll. */
export interface WaitOptions {
    /** Give up after this many seconds. */
    timeoutSeconds: number;
    /** Seconds between attempts. */
    intervalSeconds?: number;
    /** Injected clock and sleep, for tests. */
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

/**
 * Polls until `get(path)` returns an object. Not-found and transient errors are retried until
 * the deadline; then the error names what was awaited, for how long, and the last failure.
 */
export async function waitForObject(get: KubeGet, path: string, what: string, opts: WaitOptions): Promise<KubeObject> {
    const now = opts.now ?? Date.now;
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const deadline = now() + opts.timeoutSeconds * 1000;
    let last = "not found";
    for (;;) {
        try {
            const obj = await get(path);
            if (obj) return obj;
            last = "not found";
        } catch (e) {
            last = (e as Error).message;
        }
        if (now() >= deadline) {
            throw new Error(`timed out after ${opts.timeoutSeconds}s waiting for ${what} (last result: ${last})`);
        }
        await sleep((opts.intervalSeconds ?? 5) * 1000);
    }
}
