// Health probes over plain HTTP or HTTPS (etcd, controller health ports, webhook and aggregated
// API server readiness). A probe resolves when the endpoint answers 200 and throws otherwise,
// with the status and the start of the body, which `waitFor` keeps for its error message.
import * as http from "http";
import * as https from "https";

export interface TlsMaterial {
    ca: string | Buffer;
    cert?: string | Buffer;
    key?: string | Buffer;
    /** Name to verify the server certificate against, if not the URL's host. */
    serverName?: string;
}

/** GET `url`; resolves with the body on HTTP 200, rejects with status and body otherwise. */
export function probe(url: string, tls?: TlsMaterial, timeoutMs = 5_000): Promise<string> {
    const u = new URL(url);
    const lib = u.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
        const req = lib.request(
            {
                hostname: u.hostname,
                port: u.port,
                path: u.pathname + u.search,
                method: "GET",
                timeout: timeoutMs,
                agent: false,
                ...(u.protocol === "https:" && tls ? { ca: tls.ca, cert: tls.cert, key: tls.key, servername: tls.serverName } : {}),
            },
            (res) => {
                const chunks: Buffer[] = [];
                res.on("data", (d: Buffer) => chunks.push(d));
                res.on("end", () => {
                    const body = Buffer.concat(chunks).toString("utf8");
                    if (res.statusCode === 200) resolve(body);
                    else reject(new Error(`GET ${url}: HTTP ${res.statusCode}: ${body.slice(0, 300).replace(/\s+/g, " ")}`));
                });
                res.on("error", reject);
            },
        );
        req.on("timeout", () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
        req.on("error", reject);
        req.end();
    });
}
