// Pulumi serializes a dynamic resource's provider (its code and everything it captures) into the
// resource's state. Whether that works depends on how the program is transpiled: loaded as
// `pulumi up` loads it (tsconfig.pulumi.json), every dynamic provider must serialize.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "../..");

test("the dynamic providers serialize when loaded as pulumi loads the program; the etcd certificates' and the chart uninstall guard's run from their serialized code", () => {
    const out = execFileSync(process.execPath, ["-r", "ts-node/register", path.join(ROOT, "test/support/serialize-providers.ts")], {
        cwd: ROOT,
        env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, "tsconfig.pulumi.json") },
        encoding: "utf8",
        timeout: 120_000,
    });
    const { etcdCreated, guardCalls, ...sizes } = JSON.parse(out.trim().split("\n").pop()!) as Record<string, number | string>;
    expect(Object.keys(sizes).sort()).toEqual(["certificateProvider", "chartUninstallGuardProvider", "etcdCertificatesProvider", "registrationProvider"]);
    for (const [name, size] of Object.entries(sizes)) expect([name, typeof size === "number" ? "serialized" : size]).toEqual([name, "serialized"]);
    expect(etcdCreated).toBe("DNS:member.example.internal, IP Address:127.0.0.1");
    // The guard reads the chart's ConfigMap on the host and takes out the Namespace manifests alone,
    // then makes the chart's hook RBAC dependents of the release's namespace.
    const cm = "/api/v1/namespaces/karmada-system/configmaps/karmada-static-resources";
    const owner = '{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Namespace","name":"karmada-system","uid":"ns-uid"}]}}';
    expect(guardCalls).toEqual([
        `GET ${cm}`,
        `PATCH ${cm} application/json-patch+json [{"op":"remove","path":"/data/system-namespace.yaml"}]`,
        "GET /api/v1/namespaces/karmada-system",
        `PATCH /apis/rbac.authorization.k8s.io/v1/clusterroles/karmada-hook-job application/merge-patch+json ${owner}`,
        `PATCH /apis/rbac.authorization.k8s.io/v1/clusterrolebindings/karmada-hook-job application/merge-patch+json ${owner}`,
    ]);
});

test("the program has no default imports (tsconfig.pulumi.json loads it without esModuleInterop)", () => {
    const files = (dir: string): string[] =>
        fs
            .readdirSync(dir, { withFileTypes: true })
            .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
    const defaults = [path.join(ROOT, "index.ts"), ...files(path.join(ROOT, "components"))].filter((f) =>
        /^import (?!type\b)[\w$]+(\s*,\s*\{[^}]*\})? from /m.test(fs.readFileSync(f, "utf8")),
    );
    expect(defaults.map((f) => path.relative(ROOT, f))).toEqual([]);
});
