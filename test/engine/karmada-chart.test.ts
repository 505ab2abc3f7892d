// Karmada's chart as upstream packages it (../shared/charts, read in place), rendered by Helm with
// Kamino's values for each way Kamino installs it: every image it would start is one this machine
// builds (test/cluster/nodes/images.ts) under that exact name, and an image whose tag names a
// version holds that version; every key Kamino sets is one the chart's values.yaml has; and the
// loopback chart repository the cluster tests serve lists the archives as Helm reads them.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import * as k8s from "@pulumi/kubernetes";
import { DEFAULTS, loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { CHART_KEYS, HA_COMPONENT_APPS, karmadaChartValues, KarmadaChartInput } from "../../components/karmada/control-plane/chart-values";
import { controlPlaneArgs } from "../../components/karmada/control-plane/control-plane-args";
import { ETCD_IMAGE } from "../../components/karmada/control-plane/etcd-cluster";
import { chartEntries, packagedChart, repositoryIndex, SHARED_CHARTS_DIR } from "../cluster/harness/chart-repository";
import { imagesOf, renderChart } from "../cluster/harness/helm";
import { chartImageSpecs, ChartImageBinaries, imageSpecs, ImageBinaries, KARMADA_CHART_COMPONENTS, KARMADA_VERSION } from "../cluster/nodes/images";
import { runTempDir } from "../support/process-reaper";
import { toolchainPath, which } from "../support/engine";
import { FIXTURE_CHART, stackConfig } from "../support/mocks";

jest.setTimeout(2 * 60_000);

const BIN_PATH = toolchainPath("cluster", "nodes", "chart");
const bin = (name: string) => which(name, BIN_PATH);
const CHART = path.join(SHARED_CHARTS_DIR, `karmada-chart-${KARMADA_VERSION}.tgz`);
const tmp = runTempDir("kamino-chart-");
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** `helm template` of the chart with `values`. */
const render = (values: unknown) => renderChart(CHART, values);

/** The chart's values for a stack file, as the KarmadaControlPlane gets them. */
function stackValues(file: string, overrides: Record<string, unknown> = {}) {
    const plan = resolveFleetPlan(loadFleetConfig(stackConfig(file, { "kamino:iko": { chartPath: FIXTURE_CHART }, ...overrides }), { pathExists: () => true }));
    const helm = controlPlaneArgs(plan, { provider: {} as k8s.Provider, kubeconfig: "" }, { pullEgress: [], parent: {} as never }).helm!;
    return karmadaChartValues({ ...(helm as KarmadaChartInput), nodePort: helm.nodePort });
}

const SINGLE_EXISTING = {
    "kamino:clusters": [
        { name: "ikofett", provider: "existing", karmadaHost: true, kubeconfigPath: "/k/host.yaml" },
        { name: "ikoclone", provider: "existing", kubeconfigPath: "/k/member.yaml" },
    ],
    "kamino:karmada": { topology: "single", endpoint: "192.0.2.10" },
};
const HIGHLY_AVAILABLE = karmadaChartValues({
    kubectlImage: DEFAULTS.karmadaKubectlImage,
    featureGates: {},
    published: { host: "203.0.113.10", etcdServers: "https://karmada-etcd-client.karmada-system.svc.cluster.local:2379" },
});

/** Every image this machine builds, by name. */
const BUILT = new Set(
    [
        ...imageSpecs(
            Object.fromEntries(["pause", "coredns", "etcd", "etcdctl", "etcdutl", "karmada-agent"].map((n) => [n, "/x"])) as unknown as ImageBinaries,
        ),
        ...chartImageSpecs({} as ChartImageBinaries),
    ].map((s) => s.name),
);

test.each<[string, () => unknown]>([
    ["the dev stack (kind, single)", () => stackValues("Pulumi.dev.yaml")],
    ["the dr stack (kind, single, failover)", () => stackValues("Pulumi.dr.yaml")],
    ["an existing host, single", () => stackValues("Pulumi.dev.yaml", SINGLE_EXISTING)],
    ["highly available (prod)", () => HIGHLY_AVAILABLE],
])("%s: every image the chart starts is built here under its exact name", (_what, values) => {
    const images = imagesOf(render(values()));
    expect(images.length).toBeGreaterThanOrEqual(8);
    expect(images.filter((i) => !BUILT.has(i))).toEqual([]);
});

test("the single topology's images are Kamino's pins: Karmada at the chart's version, Kubernetes and etcd as tested", () => {
    expect(imagesOf(render(stackValues("Pulumi.dev.yaml")))).toEqual(
        [
            ...KARMADA_CHART_COMPONENTS.map((c) => `docker.io/karmada/karmada-${c}:${KARMADA_VERSION}`),
            "docker.io/bitnamisecure/kubectl:latest",
            "docker.io/cfssl/cfssl:latest",
            ETCD_IMAGE,
            `registry.k8s.io/kube-apiserver:${DEFAULTS.karmadaKubeImageTag}`,
            `registry.k8s.io/kube-controller-manager:${DEFAULTS.karmadaKubeImageTag}`,
        ].sort(),
    );
});

test("an image whose tag names a version holds that version", () => {
    const version = (name: string, args: string[]) => execFileSync(bin(name), args, { encoding: "utf8" });
    for (const c of KARMADA_CHART_COMPONENTS) expect(version(`karmada-${c}`, ["version"])).toContain(`GitVersion:"${KARMADA_VERSION}"`);
    expect(version("kube-apiserver", ["--version"])).toBe(`Kubernetes ${DEFAULTS.karmadaKubeImageTag}\n`);
    expect(version("kube-controller-manager", ["--version"])).toBe(`Kubernetes ${DEFAULTS.karmadaKubeImageTag}\n`);
    expect(version("etcd", ["--version"])).toContain(`etcd Version: ${DEFAULTS.karmadaEtcdImageTag.replace(/-0$/, "")}\n`);
});

test("the pod labels Kamino sets are the chart's own defaults: an installed Deployment's selector cannot change", () => {
    const dir = path.join(tmp, "labels");
    fs.mkdirSync(dir, { recursive: true });
    execFileSync("tar", ["-xzf", CHART, "-C", dir, "karmada/values.yaml"]);
    const values = YAML.parse(fs.readFileSync(path.join(dir, "karmada/values.yaml"), "utf8")) as Record<string, { labels?: { app?: string } }>;
    expect(Object.fromEntries(Object.keys(HA_COMPONENT_APPS).map((c) => [c, values[c]?.labels?.app]))).toEqual(HA_COMPONENT_APPS);
});

test("every key Kamino may set is in the chart's values.yaml (a map there takes keys of its own)", () => {
    const dir = path.join(tmp, "unpacked");
    fs.mkdirSync(dir, { recursive: true });
    execFileSync("tar", ["-xzf", CHART, "-C", dir, "karmada/values.yaml"]);
    const values = YAML.parse(fs.readFileSync(path.join(dir, "karmada/values.yaml"), "utf8"));
    const missing = CHART_KEYS.filter((key) => {
        let node: unknown = values;
        for (const part of key.split(".")) {
            if (typeof node !== "object" || node === null) return true;
            // An empty map in the chart's values (labels, featureGates, extraCommandArgs) takes any key.
            if (!(part in node) && Object.keys(node).length === 0) return false;
            node = (node as Record<string, unknown>)[part];
            if (node === undefined) return true;
        }
        return false;
    });
    expect(missing).toEqual([]);
});

test("the loopback repository's index lists each archive with its own Chart.yaml and digest", () => {
    const entries = chartEntries();
    expect(entries.map((e) => `${e.chart.name} ${e.chart.version}`)).toEqual(
        expect.arrayContaining(["karmada v1.15.0", "karmada v1.18.1", "karmada v1.18.2", "cilium 1.18.0"]),
    );
    expect(packagedChart(CHART)).toMatchObject({ name: "karmada", version: KARMADA_VERSION, appVersion: KARMADA_VERSION });
    const index = YAML.parse(repositoryIndex(entries, "http://127.0.0.1:8879"));
    expect(index.entries.karmada.map((e: { version: string }) => e.version).sort()).toEqual(["v1.15.0", "v1.18.1", "v1.18.2"]);
    const cilium = index.entries.cilium[0];
    // The digest Cilium's own index lists for this archive (../shared/charts/README.md: 7f9557f2…a85).
    expect(cilium.digest).toMatch(/^7f9557f2[0-9a-f]{53}a85$/);
    expect(cilium.urls).toEqual(["http://127.0.0.1:8879/cilium-1.18.0.tgz"]);
});
