// Config validation: every mistake is reported before any resource exists, one line per problem,
// each naming its key and the fix.
import { ConfigEnvironment, ConfigError, FleetConfig, loadFleetConfig, resolvePlacement } from "../../components/config";

const kind = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: "kind", ...extra });
const base = {
    clusters: [kind("ikofett", { karmadaHost: true }), kind("ikoclone")],
    iko: { chartPath: "./chart" },
};
const exists = () => true;

/** Raw config as Pulumi hands it over: `kamino:key` → JSON text. */
function raw(cfg: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
}

function problems(cfg: Record<string, unknown>, env: ConfigEnvironment = { pathExists: exists, isSecret: () => true }): string[] {
    try {
        loadFleetConfig(raw(cfg), env);
    } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).problems;
    }
    return [];
}

describe("valid config", () => {
    test("defaults fill everything the stack file leaves out", () => {
        const cfg: FleetConfig = loadFleetConfig(raw(base), { pathExists: exists });
        expect(cfg.cilium).toEqual({ version: "1.18.0", repo: "https://helm.cilium.io", values: {} });
        expect(cfg.karmada).toMatchObject({ chartVersion: "v1.15.0", apiServerNodePort: 32443, apiServerHostPort: 5443, kubectlImage: "bitnamisecure/kubectl" });
        expect(cfg.iko).toMatchObject({ chartPath: "./chart", namespace: "iko", releaseName: "iko", crdWaitSeconds: 300 });
        expect(cfg.clusters[1]).toEqual({ name: "ikoclone", provider: "kind", karmadaHost: false, labels: {}, workers: 1 });
        expect(cfg.irisClusters).toEqual([]);
        expect(cfg.kindNamePrefix).toBe("");
    });

    test("config keys of other namespaces are ignored", () => {
        expect(() => loadFleetConfig({ ...raw(base), "gcp:project": "p", "pulumi:disable-default-providers": "[]" }, { pathExists: exists })).not.toThrow();
    });
});

describe("each mistake is named with its key", () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ["unknown key", { ...base, clusterz: [] }, /^kamino:clusterz: unknown config key \(did you mean kamino:clusters\?\)/],
        ["unknown field", { ...base, clusters: [kind("ikofett", { karmadaHost: true, wokers: 2 }), kind("ikoclone")] }, /^kamino:clusters\[0\]: unknown field 'wokers'/],
        ["no clusters", { clusters: [] }, /^kamino:clusters: must list at least one cluster/],
        ["no host", { ...base, clusters: [kind("a"), kind("b")] }, /^kamino:clusters: no cluster has 'karmadaHost: true'/],
        ["two hosts", { ...base, clusters: [kind("a", { karmadaHost: true }), kind("b", { karmadaHost: true })] }, /^kamino:clusters: 2 clusters have 'karmadaHost: true' \(a, b\)/],
        ["host alone", { ...base, clusters: [kind("a", { karmadaHost: true })] }, /at least one member cluster/],
        ["duplicate names", { ...base, clusters: [kind("a", { karmadaHost: true }), kind("a")] }, /^kamino:clusters\[1\]\.name: duplicate cluster name 'a'/],
        ["name kind/Karmada reject", { ...base, clusters: [kind("Ikofett", { karmadaHost: true }), kind("b")] }, /^kamino:clusters\[0\]\.name: cluster name must be a DNS-1123 label/],
        ["name over 48 characters", { ...base, clusters: [kind("a", { karmadaHost: true }), kind("m".repeat(49))] }, /^kamino:clusters\[1\]\.name: cluster name must be at most 48 characters/],
        ["unknown provider", { ...base, clusters: [kind("a", { karmadaHost: true }), { name: "b", provider: "eks" }] }, /^kamino:clusters\[1\]\.provider: provider must be one of kind, gke, existing/],
        [
            "placement on a cluster not in the fleet",
            { ...base, irisClusters: [{ name: "i", image: "img", placement: { clusterNames: ["nope"] } }] },
            /^kamino:irisClusters\[0\]\.placement\.clusterNames\[0\]: 'nope' is not a cluster of this fleet \(known: ikofett, ikoclone\)/,
        ],
        [
            "placement on the Karmada host",
            { ...base, irisClusters: [{ name: "i", image: "img", placement: { clusterNames: ["ikofett"] } }] },
            /'ikofett' hosts Karmada and is not a member/,
        ],
        ["IrisCluster without image", { ...base, irisClusters: [{ name: "i" }] }, /^kamino:irisClusters\[0\]\.image: is required: the IRIS image to run/],
        ["duplicate IrisCluster", { ...base, irisClusters: [{ name: "i", image: "x" }, { name: "i", image: "y" }] }, /^kamino:irisClusters\[1\]\.name: duplicate IrisCluster 'default\/i'/],
        ["Cilium version not a version", { ...base, cilium: { version: "latest" } }, /^kamino:cilium\.version: must be a chart version such as 1\.18\.0/],
        ["Karmada version without v (the seed's --version=1.15)", { ...base, karmada: { chartVersion: "1.15" } }, /^kamino:karmada\.chartVersion: must be a full chart version with a leading 'v', such as v1\.15\.0/],
        ["NodePort out of range", { ...base, karmada: { apiServerNodePort: 5443 } }, /^kamino:karmada\.apiServerNodePort: /],
        ["kind name too long with prefix", { ...base, kindNamePrefix: "abcdefghijklmnop", clusters: [kind("a", { karmadaHost: true }), kind("b".repeat(40))] }, /longer than 48 characters/],
    ];
    test.each(cases)("%s", (_, cfg, expected) => {
        const found = problems(cfg);
        expect(found.some((p) => expected.test(p))).toBe(true);
    });

    test("a missing IKO chart says where to get IKO", () => {
        const found = problems(base, { pathExists: () => false, isSecret: () => true });
        expect(found).toEqual([expect.stringMatching(/^kamino:iko\.chartPath: no Helm chart at '\.\/chart' \(no Chart\.yaml\)\. IKO is not on a public Helm repo: download the IKO tarball/)]);
    });

    test("kubeconfig files of existing clusters and of an existing Karmada must exist", () => {
        const cfg = {
            ...base,
            clusters: [kind("h", { karmadaHost: true }), { name: "e", provider: "existing", kubeconfigPath: "/nope/e.kubeconfig" }],
            karmada: { existingKubeconfigPath: "/nope/karmada.kubeconfig" },
        };
        const found = problems(cfg, { pathExists: (p: string) => !p.startsWith("/nope"), isSecret: () => true });
        expect(found).toEqual([
            "kamino:clusters[1].kubeconfigPath: file '/nope/e.kubeconfig' does not exist",
            "kamino:karmada.existingKubeconfigPath: file '/nope/karmada.kubeconfig' does not exist",
        ]);
    });

    test("several problems are all reported at once", () => {
        const found = problems({ clusters: [kind("a"), kind("a")], cilium: { version: "x" }, irisClusters: [{ name: "i" }] });
        expect(found.length).toBeGreaterThanOrEqual(4);
        expect(found.every((p) => p.startsWith("kamino:"))).toBe(true);
    });

    test("the error message lists the problems", () => {
        expect(() => loadFleetConfig(raw({ ...base, clusterz: 1 }), { pathExists: exists })).toThrow(/Invalid Kamino stack config \(1 problem\):\n {2}- kamino:clusterz/);
    });
});

describe("placement", () => {
    const cfg = loadFleetConfig(
        raw({ ...base, clusters: [kind("h", { karmadaHost: true }), kind("a", { labels: { env: "dr" } }), kind("b"), kind("c", { labels: { env: "dr" } })] }),
        { pathExists: exists },
    );
    test.each([
        ["no placement: every member", undefined, ["a", "b", "c"]],
        ["by name", { clusterNames: ["b"] }, ["b"]],
        ["by label", { clusterLabels: { env: "dr" } }, ["a", "c"]],
        ["with exclusion", { excludeClusters: ["a"] }, ["b", "c"]],
    ])("%s", (_, placement, expected) => {
        expect(resolvePlacement(cfg.clusters, placement)).toEqual(expected);
    });
});

describe("Karmada feature gates", () => {
    const gates = (featureGates?: Record<string, boolean>) =>
        loadFleetConfig(raw({ ...base, ...(featureGates ? { karmada: { featureGates } } : {}) }), { pathExists: exists }).karmada.featureGates;
    test("PropagateDeps is on by default", () => {
        expect(gates()).toEqual({ PropagateDeps: true });
    });
    test("a stack that sets another gate keeps Kamino's PropagateDeps", () => {
        expect(gates({ Failover: true })).toEqual({ PropagateDeps: true, Failover: true });
    });
    test("a stack that names PropagateDeps itself decides it", () => {
        expect(gates({ PropagateDeps: false, Failover: true })).toEqual({ PropagateDeps: false, Failover: true });
    });
});
