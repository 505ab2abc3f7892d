// etcd's client API through its JSON gateway (`/v3/...` over HTTPS), as a test reads a member
// directly: one call, and a snapshot (what `etcdctl snapshot save` receives).
import * as fs from "fs";
import * as https from "https";

/** Where a member's client API is and the TLS to it: the CA, a client certificate (none: anonymous) and the name it is verified as. */
export interface EtcdEndpoint {
    host: string;
    port?: number;
    ca: string;
    cert?: string;
    key?: string;
    servername: string;
}

/** One POST to the gateway; the parsed answer, or an error with its HTTP status. */
export function etcdGatewayCall(to: EtcdEndpoint, api: string, body: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
        const req = https.request({ ...to, port: to.port ?? 2379, path: api, method: "POST", agent: false, timeout: 10_000 }, (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString("utf8")));
            res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${api}: HTTP ${res.statusCode}: ${text}`))));
        });
        req.on("error", reject);
        req.on("timeout", () => req.destroy(new Error(`${api}: timed out`)));
        req.end(JSON.stringify(body));
    });
}

/** A snapshot through the gateway into `file`: the database, then its checksum, streamed one JSON object per chunk. */
export function etcdSnapshot(to: EtcdEndpoint, file: string): Promise<void> {
    return new Promise((resolve, reject) => {
        const req = https.request({ ...to, port: to.port ?? 2379, path: "/v3/maintenance/snapshot", method: "POST", agent: false }, (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString("utf8")));
            res.on("end", () => {
                if (res.statusCode !== 200) return reject(new Error(`snapshot: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
                const chunks = text
                    .split("\n")
                    .filter(Boolean)
                    .map((l) => JSON.parse(l) as { result?: { blob?: string }; error?: unknown });
                const failed = chunks.find((c) => c.error);
                if (failed) return reject(new Error(`snapshot: ${JSON.stringify(failed.error)}`));
                fs.writeFileSync(file, Buffer.concat(chunks.map((c) => Buffer.from(c.result?.blob ?? "", "base64"))));
                resolve();
            });
        });
        req.on("error", reject);
        req.end("{}");
    });
}
