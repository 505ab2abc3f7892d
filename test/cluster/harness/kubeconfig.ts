// Kubeconfig files for the loopback API servers, with every credential embedded (`*-data`), so a
// file stays valid when copied or read by a process with another working directory.
import * as fs from "fs";
import * as YAML from "yaml";

export interface KubeconfigSpec {
    /** Name of the cluster, user and context. */
    name: string;
    /** https://127.0.0.1:<port> */
    server: string;
    /** PEM of the server's CA. */
    caPem: string;
    /** Client certificate and key (PEM), or a bearer token. */
    certPem?: string;
    keyPem?: string;
    token?: string;
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** The kubeconfig text. */
export function kubeconfigYaml(spec: KubeconfigSpec): string {
    const user: Record<string, string> = {};
    if (spec.certPem && spec.keyPem) {
        user["client-certificate-data"] = b64(spec.certPem);
        user["client-key-data"] = b64(spec.keyPem);
    }
    if (spec.token) user.token = spec.token;
    if (Object.keys(user).length === 0) throw new Error(`kubeconfig ${spec.name}: no credentials`);
    return YAML.stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": spec.name,
        clusters: [{ name: spec.name, cluster: { server: spec.server, "certificate-authority-data": b64(spec.caPem) } }],
        contexts: [{ name: spec.name, context: { cluster: spec.name, user: spec.name } }],
        users: [{ name: spec.name, user }],
    });
}

/** Writes the kubeconfig (mode 0600) and returns its path. */
export function writeKubeconfig(file: string, spec: KubeconfigSpec): string {
    fs.writeFileSync(file, kubeconfigYaml(spec), { mode: 0o600 });
    return file;
}
