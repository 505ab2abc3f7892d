// Secrets sync: Secrets from secret config created once in Karmada and propagated by name, the
// values secret end to end, rotation and removal, and references from IrisClusters.
import * as pulumi from "@pulumi/pulumi";
import { kaminoStack } from "../../components/stack";
import { fakeCrdReader, fakeRunningWaiter, FIXTURE_CHART, isSecretInput, MockRun, plain, providerName } from "../support/mocks";
import { healthyMachine } from "../support/standins";
import { runStack as runStackUnderMocks } from "../support/stack-under-mocks";

const LICENSE = "LICENSE-KEY-0001";
const PASSWORD = "icr-token-s3cret";
const clusters = [
    { name: "ikofett", provider: "kind", karmadaHost: true },
    { name: "ikoclone", provider: "kind", labels: { site: "a" } },
    { name: "ikodr", provider: "kind", labels: { site: "b" } },
];
function config(license = LICENSE, secrets?: unknown[]): Record<string, string> {
    return {
        "kamino:clusters": JSON.stringify(clusters),
        "kamino:iko": JSON.stringify({ chartPath: FIXTURE_CHART, imagePullSecretFromConfig: "icr" }),
        "kamino:secrets": JSON.stringify(
            secrets ?? [
                { name: "iris-key-secret", namespace: "iris", fromConfig: "irisLicense" },
                // Adopting existing copies needs a policy of its own: `placement: {}`, every member.
                { name: "intersystems-pull-secret", namespace: "iris", type: "dockerconfigjson", fromConfig: "icr", overwriteExisting: true, placement: {} },
                { name: "iris-tls", namespace: "iris", type: "tls", fromConfig: "irisTls", placement: { clusterNames: ["ikodr"] } },
            ],
        ),
        "kamino:irisClusters": JSON.stringify([
            {
                name: "iris",
                namespace: "iris",
                image: "containers.intersystems.com/intersystems/iris:2025.1",
                licenseKeySecret: "iris-key-secret",
                imagePullSecrets: ["intersystems-pull-secret"],
            },
        ]),
        "kamino:irisLicense": JSON.stringify({ "iris.key": license }),
        "kamino:icr": JSON.stringify({ server: "containers.intersystems.com", username: "me", password: PASSWORD }),
        "kamino:irisTls": JSON.stringify({ "tls.crt": "CERT", "tls.key": "TLS-PRIVATE-KEY" }),
    };
}
const SECRET_KEYS = ["kamino:irisLicense", "kamino:icr", "kamino:irisTls"];

const runStack = (cfg: Record<string, string>, preview = false) => runStackUnderMocks(cfg, { preview, secretKeys: SECRET_KEYS });

describe("three Secrets with their placements", () => {
    let run: MockRun;
    let stack: Awaited<ReturnType<typeof runStack>>["stack"];
    beforeAll(async () => ({ run, stack } = await runStack(config())));

    test("each Secret is created in Karmada with its type, values secret", () => {
        const key = run.get("kubernetes:core/v1:Secret", "secrets-iris-iris-key-secret");
        expect(providerName(key)).toBe("karmada-api");
        expect(key.inputs.metadata).toEqual({ name: "iris-key-secret", namespace: "iris", labels: { "kamino.io/synced": "true" } });
        expect(key.inputs.type).toBe("Opaque");
        expect(isSecretInput(key.inputs.stringData)).toBe(true);
        expect(plain(key.inputs.stringData)).toEqual({ "iris.key": LICENSE });

        const pull = run.get("kubernetes:core/v1:Secret", "secrets-iris-intersystems-pull-secret");
        expect(pull.inputs.type).toBe("kubernetes.io/dockerconfigjson");
        expect(isSecretInput(pull.inputs.stringData)).toBe(true);
        const docker = JSON.parse((plain(pull.inputs.stringData) as Record<string, string>)[".dockerconfigjson"]);
        expect(docker.auths["containers.intersystems.com"].password).toBe(PASSWORD);

        expect(run.get("kubernetes:core/v1:Secret", "secrets-iris-iris-tls").inputs.type).toBe("kubernetes.io/tls");
    });

    test("one PropagationPolicy per placed Secret, selecting exactly it by name; the license only follows the IrisCluster", () => {
        const policies = run.kind("PropagationPolicy").filter((p) => p.name.startsWith("secrets-"));
        // iris-key-secret: named by the IrisCluster, no placement: it follows the IrisCluster (propagateDeps).
        expect(policies.map((p) => p.inputs.metadata.name).sort()).toEqual(["intersystems-pull-secret-sync", "iris-tls-sync"]);
        for (const p of policies) {
            expect(providerName(p)).toBe("karmada-api");
            expect(p.inputs.spec.resourceSelectors).toEqual([{ apiVersion: "v1", kind: "Secret", name: p.inputs.metadata.name.replace(/-sync$/, "") }]);
        }
        const byName = Object.fromEntries(policies.map((p) => [p.inputs.metadata.name, p.inputs.spec]));
        expect(byName["intersystems-pull-secret-sync"].placement).toBeUndefined(); // every member
        expect(byName["intersystems-pull-secret-sync"].conflictResolution).toBe("Overwrite");
        expect(byName["iris-tls-sync"].placement).toEqual({ clusterAffinity: { clusterNames: ["ikodr"] } });
    });

    test("the namespace is created in Karmada (and so on every member)", () => {
        expect(run.get("kubernetes:core/v1:Namespace", "karmada-ns-iris").inputs.metadata.name).toBe("iris");
    });

    test("the IrisCluster references the synced Secrets", () => {
        const iris = run.get("kubernetes:intersystems.com/v1alpha1:IrisCluster", "iris-iris-template");
        expect(iris.inputs.spec).toMatchObject({ licenseKeySecret: { name: "iris-key-secret" }, imagePullSecrets: [{ name: "intersystems-pull-secret" }] });
    });

    test("the operator's pull secret comes from the same secret config", () => {
        const pull = run.get("kubernetes:core/v1:Secret", "ikoclone-iko-pull-secret");
        expect(providerName(pull)).toBe("ikoclone-k8s");
        expect(isSecretInput(pull.inputs.stringData)).toBe(true);
        expect(run.get("kubernetes:helm.sh/v3:Release", "ikoclone-iko-iko").inputs.values.imagePullSecrets).toEqual([{ name: "iko-pull-secret" }]);
    });

    test("outputs say where each Secret goes and hold no values", () => {
        expect(stack.outputs.syncedSecrets).toEqual({
            "iris/iris-key-secret": ["ikoclone", "ikodr"],
            "iris/intersystems-pull-secret": ["ikoclone", "ikodr"],
            "iris/iris-tls": ["ikodr"],
        });
    });

    test("no secret value appears in plain text in any recorded input", () => {
        const leaks = run.resources.filter((r) => {
            const plainParts = JSON.stringify(r.inputs, (_, v) => (isSecretInput(v) ? "[secret]" : v));
            return [LICENSE, PASSWORD, "TLS-PRIVATE-KEY", Buffer.from(`me:${PASSWORD}`).toString("base64")].some((s) => plainParts.includes(s));
        });
        expect(leaks.map((r) => r.name)).toEqual([]);
    });
});

describe("rotation and removal", () => {
    test("a rotated value changes only the Secret's data; the IrisCluster's inputs stay the same", async () => {
        const before = (await runStack(config())).run;
        const after = (await runStack(config("LICENSE-KEY-0002"))).run;
        const secret = (r: MockRun) => plain(r.get("kubernetes:core/v1:Secret", "secrets-iris-iris-key-secret").inputs.stringData);
        expect(secret(before)).toEqual({ "iris.key": LICENSE });
        expect(secret(after)).toEqual({ "iris.key": "LICENSE-KEY-0002" });
        const iris = (r: MockRun) => r.get("kubernetes:intersystems.com/v1alpha1:IrisCluster", "iris-iris-template").inputs;
        expect(iris(after)).toEqual(iris(before));
        const rest = (r: MockRun) =>
            r.resources
                .filter((x) => x.name !== "secrets-iris-iris-key-secret")
                .map((x) => JSON.stringify(x.inputs))
                .sort();
        expect(rest(after)).toEqual(rest(before));
    });

    test("removing an entry removes its Secret and policy from the program", async () => {
        const cfg = config(LICENSE, [
            { name: "iris-key-secret", namespace: "iris", fromConfig: "irisLicense" },
            { name: "intersystems-pull-secret", namespace: "iris", type: "dockerconfigjson", fromConfig: "icr" },
        ]);
        delete cfg["kamino:irisTls"];
        const { run } = await runStack(cfg);
        expect(run.resources.some((r) => r.name.includes("iris-tls"))).toBe(false);
        expect(run.kind("PropagationPolicy").map((p) => p.inputs.metadata.name)).not.toContain("iris-tls-sync");
    });

    test("a secret value left behind after its entry is removed is reported, with the command to remove it", async () => {
        const cfg = config(LICENSE, [{ name: "iris-key-secret", namespace: "iris", fromConfig: "irisLicense" }]);
        const run = new MockRun(false);
        await run.install(cfg, SECRET_KEYS);
        expect(() => kaminoStack(cfg, { crdReader: fakeCrdReader(), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter() })).toThrow(
            /kamino:irisTls = \[secret\]: unknown config key; fix: remove it with 'pulumi config rm kamino:irisTls'/,
        );
        await run.settle();
    });
});

describe("preview", () => {
    test("secret values are planned, not exposed, and the stack previews", async () => {
        const { run } = await runStack(config(), true);
        const key = run.get("kubernetes:core/v1:Secret", "secrets-iris-iris-key-secret");
        expect(isSecretInput(key.inputs.stringData) || pulumi.isUnknown(key.inputs.stringData)).toBe(true);
    });
});

describe("config errors", () => {
    const attempt = async (cfg: Record<string, string>, secretKeys = SECRET_KEYS) => {
        const run = new MockRun(false);
        await run.install(cfg, secretKeys);
        let error: Error | undefined;
        try {
            kaminoStack(cfg, { crdReader: fakeCrdReader(), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter() });
        } catch (e) {
            error = e as Error;
        }
        await run.settle();
        expect(run.resources).toEqual([]);
        return error?.message ?? "";
    };

    test("a referenced Secret placed elsewhere is no error: it follows the IrisCluster, and keeps its own placement too", async () => {
        const cfg = config();
        cfg["kamino:irisClusters"] = JSON.stringify([
            { name: "iris", namespace: "iris", image: "i", tlsSecret: "iris-tls", placement: { clusterNames: ["ikoclone"] } },
        ]);
        const { run, stack } = await runStack(cfg);
        expect(run.kind("PropagationPolicy").map((p) => p.inputs.metadata.name)).toContain("iris-tls-sync");
        expect(stack.outputs.syncedSecrets["iris/iris-tls"]).toEqual(["ikoclone", "ikodr"]);
    });
    test("a referenced Secret that is not synced at all", async () => {
        const cfg = config();
        cfg["kamino:irisClusters"] = JSON.stringify([{ name: "iris", namespace: "iris", image: "i", licenseKeySecret: "nope" }]);
        expect(await attempt(cfg)).toMatch(
            /kamino:irisClusters\[0\]\.licenseKeySecret = "nope": Secret 'iris\/nope' is not in kamino:secrets; fix: add it there/,
        );
    });
    test("values must come from secret config", async () => {
        expect(await attempt(config(), ["kamino:icr", "kamino:irisTls"])).toMatch(
            /kamino:secrets\[0\]\.fromConfig = "irisLicense": config key 'kamino:irisLicense' is not a secret; fix: set it again with 'pulumi config set --secret kamino:irisLicense/,
        );
    });
    test("a missing source key", async () => {
        const cfg = config();
        delete cfg["kamino:irisLicense"];
        expect(await attempt(cfg)).toMatch(
            /kamino:secrets\[0\]\.fromConfig = "irisLicense": config key 'kamino:irisLicense' is not set; fix: set it with 'pulumi config set --secret kamino:irisLicense/,
        );
    });
    test("a registry secret without password", async () => {
        const cfg = config();
        cfg["kamino:icr"] = JSON.stringify({ server: "s", username: "u" });
        expect(await attempt(cfg)).toMatch(/kamino:secrets\[1\]\.fromConfig = "icr": 'kamino:icr' lacks 'password' for a dockerconfigjson Secret; fix: /);
    });
    test("duplicate Secrets", async () => {
        const cfg = config(LICENSE, [
            { name: "a", namespace: "iris", fromConfig: "irisLicense" },
            { name: "a", namespace: "iris", fromConfig: "irisLicense" },
        ]);
        expect(await attempt(cfg)).toMatch(/kamino:secrets\[1\]\.name = "a": duplicate Secret 'iris\/a' \(also secrets\[0\]\); fix: /);
    });
});
