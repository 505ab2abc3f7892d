// Dependencies follow the IrisCluster: the interpreter's GetDependencies on sample IrisClusters (run
// as Karmada runs it, see test/support/lua.ts), and the policy that asks Karmada to follow them.
import * as fs from "fs";
import * as path from "path";
import { DEPENDENCIES_LUA, irisInterpreterSpec } from "../../components/karmada/control-plane/interpreter";
import { irisPropagationSpec } from "../../components/federation/federated-iris";
import { ConfigMapConfig, dependencyPlacement, FleetConfig, IrisClusterConfig, loadFleetConfig } from "../../components/config";
import { configMapData } from "../../components/federation/config-maps";
import { kaminoStack } from "../../components/stack";
import { callLua } from "../support/lua";
import { fakeCrdReader, fakeRunningWaiter, FIXTURE_CHART, MockRun, providerName } from "../support/mocks";
import { healthyMachine } from "../support/standins";
import { runTempDir } from "../support/process-reaper";

const iris = (spec: Record<string, unknown>) => ({
    apiVersion: "intersystems.com/v1alpha1",
    kind: "IrisCluster",
    metadata: { name: "iris", namespace: "iris" },
    spec: { topology: { data: { image: "iris:1" } }, ...spec },
});
const secret = (name: string) => ({ apiVersion: "v1", kind: "Secret", namespace: "iris", name });
const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "iris", name });
const deps = (spec: Record<string, unknown>) => callLua(DEPENDENCIES_LUA, "GetDependencies", iris(spec));

describe("GetDependencies: what IKO reads, by the fields it reads it from", () => {
    test.each([
        ["configSource: the CPF merge ConfigMap", { configSource: { name: "iris-cpf" } }, [configMap("iris-cpf")]],
        ["licenseKeySecret", { licenseKeySecret: { name: "iris-key-secret" } }, [secret("iris-key-secret")]],
        ["imagePullSecrets, in order", { imagePullSecrets: [{ name: "icr" }, { name: "mirror" }] }, [secret("icr"), secret("mirror")]],
        ["tls.common as a secret VolumeSource", { tls: { common: { secret: { secretName: "iris-tls" } } } }, [secret("iris-tls")]],
        [
            "every tls.* feature, in key order whatever the spec's order",
            { tls: { webgateway: { secret: { secretName: "wg-tls" } }, ecp: { secret: { secretName: "ecp-tls" } }, mirror: { configMap: { name: "ca" } } } },
            [secret("ecp-tls"), configMap("ca"), secret("wg-tls")],
        ],
        [
            "a projected tls source names each of its Secrets and ConfigMaps",
            { tls: { common: { projected: { sources: [{ secret: { name: "cert" } }, { configMap: { name: "ca" } }] } } } },
            [secret("cert"), configMap("ca")],
        ],
        ["a CSI tls source names nothing Karmada holds", { tls: { common: { csi: { driver: "secrets-store.csi.k8s.io" } } } }, {}],
        [
            "web gateway login Secrets: the dedicated gateway and the data/compute sidecars",
            {
                topology: {
                    data: { image: "iris:1", webgateway: { image: "wg", loginSecret: { name: "data-login" } } },
                    compute: { image: "iris:1", webgateway: { image: "wg", loginSecret: { name: "compute-login" } } },
                    webgateway: { image: "wg", loginSecret: { name: "gw-login" } },
                },
            },
            [secret("compute-login"), secret("data-login"), secret("gw-login")],
        ],
        [
            "spec.volumes: secret and configMap volumes",
            {
                volumes: [
                    { name: "a", secret: { secretName: "extra" } },
                    { name: "b", configMap: { name: "scripts" } },
                    { name: "c", emptyDir: {} },
                ],
            },
            [secret("extra"), configMap("scripts")],
        ],
        [
            "a Secret named twice is listed once, where first named",
            { licenseKeySecret: { name: "shared" }, imagePullSecrets: [{ name: "shared" }], tls: { common: { secret: { secretName: "shared" } } } },
            [secret("shared")],
        ],
        [
            "a ConfigMap and a Secret of the same name are two objects",
            { configSource: { name: "x" }, licenseKeySecret: { name: "x" } },
            [configMap("x"), secret("x")],
        ],
        ["nothing named: no dependencies", {}, {}],
        ["empty names are ignored", { configSource: { name: "" }, imagePullSecrets: [{}] }, {}],
    ])("%s", (_, spec, expected) => {
        expect(deps(spec)).toEqual(expected);
    });

    test("all at once, in the documented order: configSource, license, pull, tls, login, volumes", () => {
        expect(
            deps({
                volumes: [{ name: "v", secret: { secretName: "vol" } }],
                tls: { common: { secret: { secretName: "tls" } } },
                topology: { data: { image: "i", webgateway: { loginSecret: { name: "login" } } } },
                imagePullSecrets: [{ name: "pull" }],
                licenseKeySecret: { name: "lic" },
                configSource: { name: "cpf" },
            }),
        ).toEqual([configMap("cpf"), secret("lic"), secret("pull"), secret("tls"), secret("login"), secret("vol")]);
    });

    test("the customization wires it to Karmada's dependency hook", () => {
        expect(irisInterpreterSpec().customizations.dependencyInterpretation.luaScript).toBe(DEPENDENCIES_LUA);
        expect(DEPENDENCIES_LUA).toContain("function GetDependencies(desiredObj)");
    });
});

describe("every IrisCluster policy propagates its dependencies", () => {
    const selector = { apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster", name: "iris" };
    const config = (placement: Record<string, unknown>) =>
        ({ name: "iris", namespace: "iris", image: "i", placement, failoverAfterSeconds: 10, overrides: [] }) as unknown as IrisClusterConfig;
    test.each([
        ["every member", { mode: "all" }],
        ["some members", { mode: "all", clusterNames: ["a"] }],
        ["failover", { mode: "failover", clusterNames: ["a", "b"] }],
    ])("%s", (_, placement) => {
        expect(irisPropagationSpec(config(placement), selector).propagateDeps).toBe(true);
    });
});

describe("where a ConfigMap or Secret goes", () => {
    const clusters = [
        { name: "hub", provider: "kind", karmadaHost: true },
        { name: "a", provider: "kind" },
        { name: "b", provider: "kind" },
        { name: "c", provider: "kind" },
    ];
    const fleet = (irisClusters: unknown[], configMaps: unknown[]): FleetConfig =>
        loadFleetConfig(
            Object.fromEntries(
                Object.entries({ clusters, irisClusters, configMaps, iko: { chartPath: "x" } }).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]),
            ),
            { pathExists: () => true },
        );
    const cpf = (placement?: unknown) => ({ name: "cpf", namespace: "iris", data: {}, ...(placement ? { placement } : {}) });
    test.each([
        [
            "named, no placement: follows only, to the IrisCluster's members",
            [{ name: "i", namespace: "iris", image: "x", configSource: "cpf", placement: { clusterNames: ["b"] } }],
            cpf(),
            { ownPlacement: false, targetClusters: ["b"] },
        ],
        [
            "named by a failover IrisCluster: every member of its list",
            [
                {
                    name: "i",
                    namespace: "iris",
                    image: "x",
                    configSource: "cpf",
                    placement: { mode: "failover", clusterNames: ["c", "a"] },
                    failoverAfterSeconds: 10,
                },
            ],
            cpf(),
            { ownPlacement: false, targetClusters: ["a", "c"] },
        ],
        [
            "named by two: the union",
            [
                { name: "i", namespace: "iris", image: "x", configSource: "cpf", placement: { clusterNames: ["a"] } },
                { name: "j", namespace: "iris", image: "x", configSource: "cpf", placement: { clusterNames: ["c"] } },
            ],
            cpf(),
            { ownPlacement: false, targetClusters: ["a", "c"] },
        ],
        [
            "named and placed: its own policy, and the union",
            [{ name: "i", namespace: "iris", image: "x", configSource: "cpf", placement: { clusterNames: ["a"] } }],
            cpf({ clusterNames: ["b"] }),
            { ownPlacement: true, targetClusters: ["a", "b"] },
        ],
        ["placed only, placement {}: every member", [], cpf({}), { ownPlacement: true, targetClusters: ["a", "b", "c"] }],
    ])("%s", (_, irisClusters, cm, expected) => {
        const cfg = fleet(irisClusters, [cm]);
        expect(dependencyPlacement(cfg, "ConfigMap", cfg.configMaps[0])).toEqual(expected);
    });
});

describe("ConfigMap data", () => {
    const cm = (data: ConfigMapConfig["data"]) => ({ name: "cpf", namespace: "iris", data }) as ConfigMapConfig;
    test("a file's content and an inline value, key by key", () => {
        const read = (p: string) => `content of ${p}`;
        expect(configMapData(cm({ "merge.cpf": { file: "cpf/merge.cpf" }, "CSP-merge.ini": { value: "[SYSTEM]" } }), read)).toEqual({
            "merge.cpf": "content of cpf/merge.cpf",
            "CSP-merge.ini": "[SYSTEM]",
        });
    });
    test("files are read from disk by default, relative to the project directory", () => {
        const dir = runTempDir("kamino-cpf-");
        const file = path.join(dir, "merge.cpf");
        fs.writeFileSync(file, "[Startup]\nPasswordHash=x\n");
        expect(configMapData(cm({ "merge.cpf": { file } }))).toEqual({ "merge.cpf": "[Startup]\nPasswordHash=x\n" });
        fs.rmSync(dir, { recursive: true });
    });
});

describe("a licensed IRIS with a CPF merge file, under mocks", () => {
    const dir = runTempDir("kamino-cpf-");
    const cpfFile = path.join(dir, "merge.cpf");
    const raw = (cpf: string): Record<string, string> => {
        fs.writeFileSync(cpfFile, cpf);
        const cfg = {
            clusters: [
                { name: "ikofett", provider: "kind", karmadaHost: true },
                { name: "ikoclone", provider: "kind" },
                { name: "ikodr", provider: "kind" },
            ],
            iko: { chartPath: FIXTURE_CHART },
            irisClusters: [
                {
                    name: "iris",
                    namespace: "iris",
                    image: "iris:1",
                    placement: { clusterNames: ["ikoclone"] },
                    configSource: "iris-cpf",
                    licenseKeySecret: "iris-key-secret",
                },
            ],
            configMaps: [
                { name: "iris-cpf", namespace: "iris", data: { "merge.cpf": { file: cpfFile } } },
                { name: "site-info", namespace: "tools", placement: {}, data: { site: { value: "lab" } } },
            ],
            secrets: [{ name: "iris-key-secret", namespace: "iris", fromConfig: "irisLicense" }],
            irisLicense: { "iris.key": "KEY" },
        };
        return Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)]));
    };
    async function runStack(cfg: Record<string, string>) {
        const run = new MockRun(false);
        await run.install(cfg, ["kamino:irisLicense"]);
        const stack = kaminoStack(cfg, { crdReader: fakeCrdReader(), preflight: healthyMachine(), runningWaiter: fakeRunningWaiter() });
        await run.settle();
        return { run, stack };
    }
    let run: MockRun;
    let stack: Awaited<ReturnType<typeof runStack>>["stack"];
    beforeAll(async () => ({ run, stack } = await runStack(raw("[Startup]\nPasswordHash=a\n"))));
    afterAll(() => fs.rmSync(dir, { recursive: true }));

    test("the ConfigMap is created in Karmada with the file's content, and follows the IrisCluster without a policy", () => {
        const cm = run.get("kubernetes:core/v1:ConfigMap", "config-maps-iris-iris-cpf");
        expect(providerName(cm)).toBe("karmada-api");
        expect(cm.inputs.metadata).toEqual({ name: "iris-cpf", namespace: "iris", labels: { "kamino.io/config-map": "true" } });
        expect(cm.inputs.data).toEqual({ "merge.cpf": "[Startup]\nPasswordHash=a\n" });
        const policies = run.kind("PropagationPolicy").map((p) => p.inputs.metadata.name);
        expect(policies).not.toContain("iris-cpf-configmap-sync");
        expect(policies).not.toContain("iris-key-secret-sync");
    });
    test("a placed ConfigMap has its policy, and its namespace is created in Karmada", () => {
        const policy = run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === "site-info-configmap-sync")!;
        expect(policy.inputs.spec).toEqual({ resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "site-info" }] });
        expect(run.get("kubernetes:core/v1:Namespace", "karmada-ns-tools").inputs.metadata.name).toBe("tools");
    });
    test("the IrisCluster names its CPF ConfigMap, and its policy propagates dependencies", () => {
        expect(run.get("kubernetes:intersystems.com/v1alpha1:IrisCluster", "iris-iris-template").inputs.spec).toMatchObject({
            configSource: { name: "iris-cpf" },
            licenseKeySecret: { name: "iris-key-secret" },
        });
        expect(run.kind("PropagationPolicy").find((p) => p.inputs.metadata.name === "iris-propagate")!.inputs.spec.propagateDeps).toBe(true);
    });
    test("outputs say where each goes", () => {
        expect(stack.outputs.configMaps).toEqual({ "iris/iris-cpf": ["ikoclone"], "tools/site-info": ["ikoclone", "ikodr"] });
        expect(stack.outputs.syncedSecrets).toEqual({ "iris/iris-key-secret": ["ikoclone"] });
    });
    test("the Karmada provider updates ConfigMaps and Secrets in place instead of replacing them", () => {
        const provider = run.get("pulumi:providers:kubernetes", "karmada-api");
        expect(provider.inputs).toMatchObject({ enableConfigMapMutable: "true", enableSecretMutable: "true" });
    });
    test("an edited CPF file changes only the ConfigMap's data", async () => {
        const after = (await runStack(raw("[Startup]\nPasswordHash=b\n"))).run;
        expect(after.get("kubernetes:core/v1:ConfigMap", "config-maps-iris-iris-cpf").inputs.data).toEqual({ "merge.cpf": "[Startup]\nPasswordHash=b\n" });
        const rest = (r: MockRun) =>
            r.resources
                .filter((x) => x.name !== "config-maps-iris-iris-cpf")
                .map((x) => JSON.stringify(x.inputs))
                .sort();
        expect(rest(after)).toEqual(rest(run));
    });
});
