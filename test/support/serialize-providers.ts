// Run by test/unit/serialize.test.ts as Pulumi runs the program: `node -r ts-node/register` with
// tsconfig.pulumi.json. Serializes the dynamic providers as Pulumi does when it registers their
// resources, and prints one JSON line: each provider's code size, or its error. Two are also loaded
// from their serialized code as Pulumi's dynamic-provider process loads them and run: the etcd
// certificates' create (`etcdCreated` is the members' certificate's names), and the chart uninstall
// guard's delete against an API server played here over TLS (`guardCalls` is what it sent).
import * as pulumi from "@pulumi/pulumi";
import { X509Certificate } from "crypto";
import * as https from "https";
import Module = require("module");
import { certificateProvider, registrationProvider } from "../../components/karmada/members/agent-resources";
import { chartUninstallGuardProvider } from "../../components/karmada/control-plane/chart-uninstall";
import { etcdCertificatesProvider, issueEtcdCertificates } from "../../components/karmada/control-plane/etcd-certificates";

/** Loads serialized provider code as Pulumi's dynamic-provider process does. */
function load(serialized: { text: string; exportName: string }): pulumi.dynamic.ResourceProvider {
    const m = new Module("serialized-provider") as InstanceType<typeof Module> & { _compile(code: string, file: string): void };
    m.paths = module.paths;
    m._compile(serialized.text, "serialized-provider.js");
    return (m.exports as Record<string, () => pulumi.dynamic.ResourceProvider>)[serialized.exportName]();
}

/** The guard's delete against an API server holding the chart's ConfigMap: the requests it made. */
async function guardDelete(provider: pulumi.dynamic.ResourceProvider): Promise<string[]> {
    const tls = issueEtcdCertificates(["127.0.0.1"], new Date());
    const calls: string[] = [];
    const server = https.createServer({ cert: tls.memberCrt, key: tls.memberKey }, (req, res) => {
        let body = "";
        req.on("data", (d) => (body += d)).on("end", () => {
            calls.push(`${req.method} ${req.url} ${req.headers["content-type"] ?? ""} ${body}`.trim());
            res.setHeader("content-type", "application/json");
            const namespace = { kind: "Namespace", metadata: { name: "karmada-system", uid: "ns-uid" } };
            const configMap = { kind: "ConfigMap", data: { "system-namespace.yaml": "kind: Namespace", "webhook-configuration.yaml": "x" } };
            res.end(JSON.stringify(req.url === "/api/v1/namespaces/karmada-system" ? namespace : configMap));
        });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const kubeconfig = JSON.stringify({
        apiVersion: "v1",
        clusters: [{ name: "h", cluster: { server: `https://127.0.0.1:${port}`, "certificate-authority-data": Buffer.from(tls.caCrt).toString("base64") } }],
        users: [{ name: "h", user: { token: "t" } }],
        contexts: [{ name: "h", context: { cluster: "h", user: "h" } }],
        "current-context": "h",
    });
    try {
        await provider.delete!("karmada-system-karmada-static-resources", { hostKubeconfig: kubeconfig, namespace: "karmada-system" });
    } finally {
        server.close();
    }
    return calls;
}

async function main(): Promise<void> {
    const out: Record<string, number | string | string[]> = {};
    for (const [name, provider] of Object.entries({ certificateProvider, registrationProvider, etcdCertificatesProvider, chartUninstallGuardProvider })) {
        try {
            const serialized = await pulumi.runtime.serializeFunction(() => provider);
            out[name] = serialized.text.length;
            if (provider === etcdCertificatesProvider) {
                const created = await load(serialized).create({ hosts: ["member.example.internal", "127.0.0.1"] });
                out.etcdCreated = new X509Certificate(created.outs.memberCrt).subjectAltName ?? "";
            }
            if (provider === chartUninstallGuardProvider) out.guardCalls = await guardDelete(load(serialized));
        } catch (e) {
            out[name] = String((e as Error).message)
                .split("\n")
                .slice(0, 4)
                .join(" | ");
        }
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
}
void main();
