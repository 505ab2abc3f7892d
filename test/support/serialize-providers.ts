// Run by test/unit/serialize.test.ts as Pulumi runs the program: `node -r ts-node/register` with
// tsconfig.pulumi.json. Serializes the dynamic providers as Pulumi does when it registers their
// resources, and prints one JSON line: each provider's code size, or its error. The etcd
// certificates' provider needs nothing outside, so its serialized code is also loaded as Pulumi's
// dynamic-provider process loads it and asked to create: `etcdCreated` is the members' certificate's names.
import * as pulumi from "@pulumi/pulumi";
import { X509Certificate } from "crypto";
import Module = require("module");
import { certificateProvider, registrationProvider } from "../../components/karmada/members/agent-resources";
import { etcdCertificatesProvider } from "../../components/karmada/control-plane/etcd-certificates";

async function main(): Promise<void> {
    const out: Record<string, number | string> = {};
    for (const [name, provider] of Object.entries({ certificateProvider, registrationProvider, etcdCertificatesProvider })) {
        try {
            const serialized = await pulumi.runtime.serializeFunction(() => provider);
            out[name] = serialized.text.length;
            if (provider === etcdCertificatesProvider) {
                const m = new Module("serialized-provider") as InstanceType<typeof Module> & { _compile(code: string, file: string): void };
                m.paths = module.paths;
                m._compile(serialized.text, "serialized-provider.js");
                const loaded = (m.exports as Record<string, () => pulumi.dynamic.ResourceProvider>)[serialized.exportName]();
                const created = await loaded.create({ hosts: ["member.example.internal", "127.0.0.1"] });
                out.etcdCreated = new X509Certificate(created.outs.memberCrt).subjectAltName ?? "";
            }
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
