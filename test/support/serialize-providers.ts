// Run by test/unit/serialize.test.ts as Pulumi runs the program: `node -r ts-node/register` with
// tsconfig.pulumi.json. Serializes the dynamic providers of Pull members as Pulumi does when it
// registers their resources, and prints one JSON line: each provider's code size, or its error.
import * as pulumi from "@pulumi/pulumi";
import { certificateProvider, registrationProvider } from "../../components/karmada/agent-resources";

async function main(): Promise<void> {
    const out: Record<string, number | string> = {};
    for (const [name, provider] of Object.entries({ certificateProvider, registrationProvider })) {
        try {
            out[name] = (await pulumi.runtime.serializeFunction(() => provider)).text.length;
        } catch (e) {
            out[name] = String((e as Error).message).split("\n").slice(0, 4).join(" | ");
        }
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
}
void main();
