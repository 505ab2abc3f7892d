// The certificates of Karmada's etcd (EtcdCertificates, a dynamic resource) under the real Pulumi
// engine and language host: its provider is serialized into the state and run by Pulumi's
// dynamic-provider process; the keys are secrets in the state; a second preview changes nothing
// (the keys exist once); other names are signed again in place, never replaced (a new CA would cut
// every member off from the others).
import * as fs from "fs";
import * as path from "path";
import { EngineSandbox, toolchainPath } from "../support/engine";

jest.setTimeout(5 * 60 * 1000);

const PROGRAM = (hosts: string[]) => `import { EtcdCertificates } from "./components/karmada/control-plane/etcd-certificates";
const certificates = new EtcdCertificates("karmada-etcd-certificates", { hosts: ${JSON.stringify(hosts)} });
export const caCrt = certificates.caCrt;
export const memberKey = certificates.memberKey;
`;

let sandbox: EngineSandbox;
beforeAll(() => {
    sandbox = new EngineSandbox(toolchainPath("engine"));
});
afterAll(() => sandbox?.cleanup());

test("created once with its keys as secrets; a preview then changes nothing; other names are an update with the same CA", async () => {
    const index = path.join(sandbox.project, "index.ts");
    fs.writeFileSync(index, PROGRAM(["member.example.internal"]));
    const stack = await sandbox.stack("etcd", undefined);

    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 2 });
    expect(up.outputs.memberKey.secret).toBe(true);
    expect(String(up.outputs.memberKey.value)).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const caCrt = String(up.outputs.caCrt.value);

    // The state file holds no key in clear: each is a Pulumi secret, ciphertext under the stack's passphrase.
    const stateFile = path.join(sandbox.dir, "state", ".pulumi", "stacks", "kamino", "etcd.json");
    const state = fs.readFileSync(stateFile, "utf8");
    expect(state.includes("PRIVATE KEY")).toBe(false);
    expect(state.includes("BEGIN CERTIFICATE")).toBe(true); // the certificates are public
    const resource = (JSON.parse(state).checkpoint.latest as { resources: { type: string; outputs: Record<string, unknown> }[] }).resources.find(
        (r) => r.type === "pulumi-nodejs:dynamic/kamino:EtcdCertificates",
    )!;
    for (const key of ["caKey", "memberKey", "clientKey"]) expect(Object.keys(resource.outputs[key] as object)).toContain("ciphertext");

    const again = await stack.preview();
    expect(again.changeSummary).toEqual({ same: 2 });

    fs.writeFileSync(index, PROGRAM(["member.example.internal", "another.example.internal"]));
    const renamed = await stack.up();
    expect(renamed.summary.resourceChanges).toMatchObject({ update: 1, same: 1 });
    expect(renamed.summary.resourceChanges).not.toHaveProperty("replace");
    expect(renamed.outputs.caCrt.value).toBe(caCrt);

    await stack.destroy();
});
