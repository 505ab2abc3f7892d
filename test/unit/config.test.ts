// Config validation: every mistake is reported before any resource exists, one line per problem,
// each naming its key, the offending value (never a secret one) and the fix.
import {
    checkHostCount,
    checkPlacements,
    cidrFamily,
    ClusterConfig,
    ConfigEnvironment,
    ConfigError,
    configKey,
    describeIssue,
    FleetConfig,
    loadFleetConfig,
    lookup,
    MAX_SHOWN_VALUE,
    resolvePlacement,
    showValue,
} from "../../components/config";
import { kaminoStack } from "../../components/stack";
import { fakeCrdReader, MockRun } from "../support/mocks";
import { z } from "zod";

const kind = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: "kind", ...extra });
const gke = (extra: Record<string, unknown> = {}) => ({ name: "g", provider: "gke", project: "p", zone: "us-central1-a", ...extra });
const base = {
    clusters: [kind("ikofett", { karmadaHost: true }), kind("ikoclone")],
    iko: { chartPath: "./chart" },
};
const exists = () => true;
/** A fleet for failover: two members. */
const drBase = { ...base, clusters: [...base.clusters, kind("ikodr")] };

/** Raw config as Pulumi hands it over: `kamino:key` → JSON text. */
function raw(cfg: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(Object.entries(cfg).map(([k, v]) => [`kamino:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
}

/** Problems of a config checked by the function alone (fast; for the pure-function tests). */
function problems(cfg: Record<string, unknown>, env: ConfigEnvironment = { pathExists: exists, isSecret: () => false }): string[] {
    try {
        loadFleetConfig(raw(cfg), env);
    } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).problems;
    }
    return [];
}

/**
 * Runs the whole stack program under mocks with a bad config, as `pulumi up` would: it must throw a
 * ConfigError and register nothing. Secret keys are marked through Pulumi's own config, so the
 * stack's real secret detection is what is tested.
 */
async function rejectedByStack(cfg: Record<string, unknown>, opts: { pathExists?: (p: string) => boolean; secretKeys?: string[] } = {}): Promise<ConfigError> {
    const run = new MockRun(false);
    await run.install(raw(cfg), opts.secretKeys ?? []);
    let error: unknown;
    try {
        kaminoStack(raw(cfg), { pathExists: opts.pathExists ?? exists, crdReader: fakeCrdReader() });
    } catch (e) {
        error = e;
    }
    await run.settle();
    expect(run.resources).toEqual([]);
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Every line: `kamino:<path> = <value>: <reason>; fix: <fix>` or `kamino:<path> is missing: ...`. */
const LINE_FORMAT = /^kamino:[A-Za-z][\w.[\]-]* (= .+|is missing): .+; fix: .+$/;

describe("valid config", () => {
    test("defaults fill everything the stack file leaves out", () => {
        const cfg: FleetConfig = loadFleetConfig(raw(base), { pathExists: exists });
        expect(cfg.cilium).toEqual({ version: "1.18.0", repo: "https://helm.cilium.io", values: {} });
        expect(cfg.karmada).toMatchObject({
            chartVersion: "v1.18.1",
            apiServerNodePort: 32443,
            apiServerHostPort: 5443,
            kubectlImage: "bitnamisecure/kubectl",
        });
        expect(cfg.iko).toMatchObject({ chartPath: "./chart", namespace: "iko", releaseName: "iko", crdWaitSeconds: 300 });
        expect(cfg.clusters[1]).toEqual({ name: "ikoclone", provider: "kind", karmadaHost: false, syncMode: "Push", labels: {}, workers: 1 });
        expect(cfg.irisClusters).toEqual([]);
        expect(cfg.kindNamePrefix).toBe("");
    });

    test("config keys of other namespaces are ignored", () => {
        expect(() => loadFleetConfig({ ...raw(base), "gcp:project": "p", "pulumi:disable-default-providers": "[]" }, { pathExists: exists })).not.toThrow();
    });
});

type BadCase = {
    config: Record<string, unknown>;
    key: string;
    /** `= <value as shown>` or `is missing`. */
    shown: string;
    /** A fragment of the fix. */
    fix: string;
    pathExists?: (p: string) => boolean;
    secretKeys?: string[];
    /** The reason, where its wording is the point. */
    reason?: string;
};

const iris = (extra: Record<string, unknown> = {}) => ({ name: "i", image: "iris:1", ...extra });
const secretsBase = {
    ...base,
    secrets: [{ name: "iris-key-secret", fromConfig: "irisLicense" }],
    irisLicense: { "iris.key": "LICENSE" },
};

// Each a distinct mistake, named by the key and value a user would have to find in their stack file.
const BAD: Record<string, BadCase> = {
    "upper-case cluster name": {
        config: { ...base, clusters: [...base.clusters, kind("IkoBad")] },
        key: "kamino:clusters[2].name",
        shown: '= "IkoBad"',
        fix: "lower-case it",
    },
    "cluster name over Karmada's 48 characters": {
        config: { ...base, clusters: [base.clusters[0], kind("m".repeat(49))] },
        key: "kamino:clusters[1].name",
        shown: `= "${"m".repeat(49)}"`,
        fix: "shorten it",
    },
    "unknown key": { config: { ...base, clusterz: [] }, key: "kamino:clusterz", shown: "= []", fix: "pulumi config rm kamino:clusterz" },
    "unknown field of a cluster": {
        config: { ...base, clusters: [kind("ikofett", { karmadaHost: true, wokers: 2 }), kind("ikoclone")] },
        key: "kamino:clusters[0].wokers",
        shown: "= 2",
        fix: "remove it or correct its spelling",
    },
    "empty cluster list": { config: { clusters: [] }, key: "kamino:clusters", shown: "= []", fix: "list the Karmada host and at least one member" },
    "no cluster list": { config: { iko: base.iko }, key: "kamino:clusters", shown: "is missing", fix: "set it" },
    "cluster list is not a list": { config: { clusters: "ikofett" }, key: "kamino:clusters", shown: '= "ikofett"', fix: "write it as an array" },
    "no Karmada host": {
        config: { ...base, clusters: [kind("a"), kind("b")] },
        key: "kamino:clusters",
        shown: '= [{"name":"a","provider":"kind"},{"name":"b","provider":"kin…',
        fix: "mark exactly one cluster as the Karmada host",
    },
    "two Karmada hosts": {
        config: { ...base, clusters: [kind("a", { karmadaHost: true }), kind("b", { karmadaHost: true })] },
        key: "kamino:clusters",
        shown: '= [{"name":"a","provider":"kind","karmadaHost":true},{"name":…',
        fix: "keep it on exactly one cluster",
    },
    "a host and no member": {
        config: { ...base, clusters: [kind("a", { karmadaHost: true })] },
        key: "kamino:clusters",
        shown: '= [{"name":"a","provider":"kind","karmadaHost":true}]',
        fix: "add a member cluster",
    },
    "duplicate cluster names": {
        config: { ...base, clusters: [kind("a", { karmadaHost: true }), kind("a")] },
        key: "kamino:clusters[1].name",
        shown: '= "a"',
        fix: "rename one of them",
    },
    "unknown provider": {
        config: { ...base, clusters: [base.clusters[0], { name: "b", provider: "eks" }] },
        key: "kamino:clusters[1].provider",
        shown: '= "eks"',
        fix: "set provider to kind, gke or existing",
    },
    "no provider": {
        config: { ...base, clusters: [base.clusters[0], { name: "b" }] },
        key: "kamino:clusters[1].provider",
        shown: "is missing",
        fix: "set provider to kind, gke or existing",
    },
    "too many kind workers": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { workers: 11 })] },
        key: "kamino:clusters[1].workers",
        shown: "= 11",
        fix: "use a number of at most 10",
    },
    "worker count quoted": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { workers: "2" })] },
        key: "kamino:clusters[1].workers",
        shown: '= "2"',
        fix: "write it without quotes",
    },
    "fractional worker count": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { workers: 1.5 })] },
        key: "kamino:clusters[1].workers",
        shown: "= 1.5",
        fix: "drop the fraction",
    },
    "pod subnet without prefix length": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { podSubnet: "10.244.0.0" })] },
        key: "kamino:clusters[1].podSubnet",
        shown: '= "10.244.0.0"',
        fix: "write it as address/prefix",
    },
    "pod subnet with a prefix out of range (one CIDR validator, config/cidr.ts)": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { podSubnet: "10.244.0.0/99" })] },
        key: "kamino:clusters[1].podSubnet",
        shown: '= "10.244.0.0/99"',
        fix: "write it as address/prefix",
    },
    "IPv6 pod subnet for kind, which Kamino runs on IPv4": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { serviceSubnet: "fd00::/108" })] },
        key: "kamino:clusters[1].serviceSubnet",
        shown: '= "fd00::/108"',
        fix: "write it as address/prefix",
    },
    "label value with a space": {
        config: { ...base, clusters: [base.clusters[0], kind("b", { labels: { site: "dr site" } })] },
        key: "kamino:clusters[1].labels.site",
        shown: '= "dr site"',
        fix: "use at most 63 letters, digits",
    },
    "gke cluster without project": {
        config: { ...base, clusters: [base.clusters[0], gke({ project: undefined })] },
        key: "kamino:clusters[1].project",
        shown: "is missing",
        fix: "pulumi config set --path 'kamino:clusters[1].project' <project-id>",
    },
    "gke cluster without location": {
        config: { ...base, clusters: [base.clusters[0], gke({ zone: undefined })] },
        key: "kamino:clusters[1].region",
        shown: "is missing",
        fix: "set 'region' (us-central1, regional) or 'zone' (us-central1-a, zonal)",
    },
    "gke region that is not one": {
        config: { ...base, clusters: [base.clusters[0], gke({ zone: undefined, region: "central" })] },
        key: "kamino:clusters[1].region",
        shown: '= "central"',
        fix: "gcloud compute regions list",
    },
    "gke zone and region both": {
        config: { ...base, clusters: [base.clusters[0], gke({ region: "us-central1" })] },
        key: "kamino:clusters[1].zone",
        shown: '= "us-central1-a"',
        fix: "set either 'region' (a regional cluster) or 'zone' (a zonal cluster), not both",
    },
    "gke zone that is not one": {
        config: { ...base, clusters: [base.clusters[0], gke({ zone: "central" })] },
        key: "kamino:clusters[1].zone",
        shown: '= "central"',
        fix: "gcloud compute zones list",
    },
    "gke Karmada host that cannot call a kind member": {
        config: { ...base, clusters: [gke({ karmadaHost: true }), kind("k")], karmada: { authorizedNetworks: ["198.51.100.7/32"] } },
        key: "kamino:clusters[1].syncMode",
        shown: '= "Push" (default)',
        fix: "join 'k' by Pull (syncMode: Pull)",
    },
    "gke Karmada host open to nobody in particular": {
        config: { ...base, clusters: [gke({ karmadaHost: true }), kind("k", { syncMode: "Pull" })] },
        key: "kamino:karmada.authorizedNetworks",
        shown: "is missing",
        fix: "pulumi config set --path 'kamino:karmada.authorizedNetworks[0]' <CIDR>",
    },
    "gke release channel unknown": {
        config: { ...base, clusters: [base.clusters[0], gke({ releaseChannel: "FAST" })] },
        key: "kamino:clusters[1].releaseChannel",
        shown: '= "FAST"',
        fix: "use one of RAPID, REGULAR, STABLE, EXTENDED",
    },
    "gke without nodes": {
        config: { ...base, clusters: [base.clusters[0], gke({ nodeCount: 0 })] },
        key: "kamino:clusters[1].nodeCount",
        shown: "= 0",
        fix: "use a number of at least 1",
    },
    "existing cluster without kubeconfig": {
        config: { ...base, clusters: [base.clusters[0], { name: "e", provider: "existing" }] },
        key: "kamino:clusters[1].kubeconfigPath",
        shown: "is missing",
        fix: "set the path of the cluster's kubeconfig file",
    },
    "existing cluster's kubeconfig absent": {
        config: { ...base, clusters: [base.clusters[0], { name: "e", provider: "existing", kubeconfigPath: "/nope/e.kubeconfig" }] },
        key: "kamino:clusters[1].kubeconfigPath",
        shown: '= "/nope/e.kubeconfig"',
        fix: "give the path of the cluster's kubeconfig file",
        pathExists: (p) => !p.startsWith("/nope"),
    },
    "IKO chart absent": {
        config: base,
        key: "kamino:iko.chartPath",
        shown: '= "./chart"',
        fix: "download the IKO tarball from InterSystems",
        pathExists: () => false,
    },
    "IKO chart absent at the default path": {
        config: { clusters: base.clusters },
        key: "kamino:iko.chartPath",
        shown: '= "./iris-operator" (default)',
        fix: "'pulumi config set --path kamino:iko.chartPath <dir>/chart/iris-operator'",
        pathExists: () => false,
    },
    "CRD wait too short": {
        config: { ...base, iko: { chartPath: "./chart", crdWaitSeconds: 5 } },
        key: "kamino:iko.crdWaitSeconds",
        shown: "= 5",
        fix: "use a number of at least 10",
    },
    "Cilium version not a version": {
        config: { ...base, cilium: { version: "latest" } },
        key: "kamino:cilium.version",
        shown: '= "latest"',
        fix: "use a Cilium release, e.g. 1.18.0",
    },
    "Cilium repo not a URL": {
        config: { ...base, cilium: { repo: "helm.cilium.io" } },
        key: "kamino:cilium.repo",
        shown: '= "helm.cilium.io"',
        fix: "give a full URL",
    },
    "Karmada version without v (the seed's --version=1.15)": {
        config: { ...base, karmada: { chartVersion: "1.15" } },
        key: "kamino:karmada.chartVersion",
        shown: '= "1.15"',
        fix: "write it as vX.Y.Z, e.g. v1.18.1",
    },
    "Karmada NodePort out of range": {
        config: { ...base, karmada: { apiServerNodePort: 5443 } },
        key: "kamino:karmada.apiServerNodePort",
        shown: "= 5443",
        fix: "use a number of at least 30000",
    },
    "existing Karmada's kubeconfig absent": {
        config: { ...base, karmada: { existingKubeconfigPath: "/nope/karmada.kubeconfig" } },
        key: "kamino:karmada.existingKubeconfigPath",
        shown: '= "/nope/karmada.kubeconfig"',
        fix: "give the path of the Karmada API's kubeconfig file",
        pathExists: (p) => !p.startsWith("/nope"),
    },
    "kind name prefix with capitals": { config: { ...base, kindNamePrefix: "Dev_" }, key: "kamino:kindNamePrefix", shown: '= "Dev_"', fix: "lower-case it" },
    "kind name too long with its prefix": {
        config: { ...base, kindNamePrefix: "abcdefghijklmnop", clusters: [base.clusters[0], kind("b".repeat(40))] },
        key: "kamino:clusters[1].name",
        shown: `= "${"b".repeat(40)}"`,
        fix: "shorten the name or kindNamePrefix",
    },
    "IrisCluster without image": {
        config: { ...base, irisClusters: [{ name: "i" }] },
        key: "kamino:irisClusters[0].image",
        shown: "is missing",
        fix: "set it, e.g. containers.intersystems.com",
    },
    "IrisCluster running timeout too short": {
        config: { ...base, irisClusters: [iris({ runningTimeoutSeconds: 5 })] },
        key: "kamino:irisClusters[0].runningTimeoutSeconds",
        shown: "= 5",
        fix: "at least 10",
    },
    "IrisCluster waitForRunning quoted": {
        config: { ...base, irisClusters: [iris({ waitForRunning: "no" })] },
        key: "kamino:irisClusters[0].waitForRunning",
        shown: '= "no"',
        fix: "without quotes",
    },
    "IrisCluster name with capitals": {
        config: { ...base, irisClusters: [iris({ name: "Iris" })] },
        key: "kamino:irisClusters[0].name",
        shown: '= "Iris"',
        fix: "lower-case it",
    },
    "IrisCluster service type unknown": {
        config: { ...base, irisClusters: [iris({ serviceType: "External" })] },
        key: "kamino:irisClusters[0].serviceType",
        shown: '= "External"',
        fix: "use one of ClusterIP, NodePort, LoadBalancer",
    },
    "IrisClusters not a list": {
        config: { ...base, irisClusters: { name: "i" } },
        key: "kamino:irisClusters",
        shown: '= {"name":"i"}',
        fix: "write it as an array",
    },
    "duplicate IrisCluster": {
        config: { ...base, irisClusters: [iris(), iris({ image: "iris:2" })] },
        key: "kamino:irisClusters[1].name",
        shown: '= "i"',
        fix: "rename one or put it in another namespace",
    },
    "placement on a cluster not in the fleet": {
        config: { ...base, irisClusters: [iris({ placement: { clusterNames: ["nope"] } })] },
        key: "kamino:irisClusters[0].placement.clusterNames[0]",
        shown: '= "nope"',
        fix: "use a member cluster: ikoclone",
    },
    "placement on the Karmada host": {
        config: { ...base, irisClusters: [iris({ placement: { excludeClusters: ["ikofett"] } })] },
        key: "kamino:irisClusters[0].placement.excludeClusters[0]",
        shown: '= "ikofett"',
        fix: "use a member cluster: ikoclone",
    },
    "failover over a single member": {
        config: { ...drBase, irisClusters: [iris({ placement: { mode: "failover", clusterNames: ["ikoclone"] } })] },
        key: "kamino:irisClusters[0].placement.clusterNames",
        shown: '= ["ikoclone"]',
        fix: "list the first choice and at least one backup in placement.clusterNames",
    },
    "failover without a member list": {
        config: { ...drBase, irisClusters: [iris({ placement: { mode: "failover" } })] },
        key: "kamino:irisClusters[0].placement.mode",
        shown: '= "failover"',
        fix: "list the first choice and at least one backup",
    },
    "failover by labels (no order)": {
        config: { ...drBase, irisClusters: [iris({ placement: { mode: "failover", clusterNames: ["ikoclone", "ikodr"], clusterLabels: { site: "a" } } })] },
        key: "kamino:irisClusters[0].placement.clusterLabels",
        shown: '= {"site":"a"}',
        fix: "list the members in placement.clusterNames instead, first choice first",
    },
    "failover listing a member twice": {
        config: { ...drBase, irisClusters: [iris({ placement: { mode: "failover", clusterNames: ["ikoclone", "ikodr", "ikoclone"] } })] },
        key: "kamino:irisClusters[0].placement.clusterNames[2]",
        shown: '= "ikoclone"',
        fix: "list each member once",
    },
    "failover mode misspelled": {
        config: { ...drBase, irisClusters: [iris({ placement: { mode: "failback", clusterNames: ["ikoclone", "ikodr"] } })] },
        key: "kamino:irisClusters[0].placement.mode",
        shown: '= "failback"',
        fix: "use one of all, failover",
    },
    "failoverAfterSeconds without failover": {
        config: { ...drBase, irisClusters: [iris({ failoverAfterSeconds: 30 })] },
        key: "kamino:irisClusters[0].failoverAfterSeconds",
        shown: "= 30",
        fix: "remove it, or set placement.mode to failover",
    },
    "failoverAfterSeconds negative": {
        config: { ...drBase, irisClusters: [iris({ placement: { mode: "failover", clusterNames: ["ikoclone", "ikodr"] }, failoverAfterSeconds: -1 })] },
        key: "kamino:irisClusters[0].failoverAfterSeconds",
        shown: "= -1",
        fix: "use a number of at least 0",
    },
    "configSource naming a ConfigMap Kamino does not hold": {
        config: { ...base, irisClusters: [iris({ configSource: "iris-cpf" })] },
        key: "kamino:irisClusters[0].configSource",
        shown: '= "iris-cpf"',
        fix: "add it there (namespace default)",
        reason: "ConfigMap 'default/iris-cpf' is not in kamino:configMaps",
    },
    "a ConfigMap's CPF file is missing": {
        config: { ...base, irisClusters: [iris({ configSource: "cpf" })], configMaps: [{ name: "cpf", data: { "merge.cpf": { file: "/nope/merge.cpf" } } }] },
        key: "kamino:configMaps[0].data.merge.cpf.file",
        shown: '= "/nope/merge.cpf"',
        fix: "create it, or give its path relative to the project directory",
        reason: "file does not exist (ConfigMap 'default/cpf', key 'merge.cpf')",
        pathExists: (p: string) => !p.startsWith("/nope"),
    },
    "a ConfigMap no IrisCluster names and nothing places": {
        config: {
            ...base,
            irisClusters: [iris({ configSource: "cpf" })],
            configMaps: [
                { name: "cpf", data: {} },
                { name: "cfp", data: {} },
            ],
        },
        key: "kamino:configMaps[1]",
        shown: '= {"name":"cfp","data":{}}',
        fix: "set configSource: cfp on the IrisCluster that reads it, or give it a placement ('placement: {}' for every member)",
    },
    "a ConfigMap value with both file and value": {
        config: { ...base, configMaps: [{ name: "cpf", placement: {}, data: { "merge.cpf": { file: "a.cpf", value: "x" } } }] },
        key: "kamino:configMaps[0].data.merge.cpf",
        shown: '= {"file":"a.cpf","value":"x"}',
        fix: "write {file: path} to read a file, or {value: text} for inline text",
    },
    "overwriteExisting on a Secret that only follows its IrisCluster": {
        config: {
            ...secretsBase,
            irisClusters: [iris({ licenseKeySecret: "iris-key-secret" })],
            secrets: [{ name: "iris-key-secret", fromConfig: "irisLicense", overwriteExisting: true }],
        },
        key: "kamino:secrets[0].overwriteExisting",
        shown: "= true",
        fix: "give it a placement of its own",
        secretKeys: ["kamino:irisLicense"],
    },
    "override for no cluster": {
        config: { ...base, irisClusters: [iris({ overrides: [{ serviceType: "NodePort" }] })] },
        key: "kamino:irisClusters[0].overrides[0]",
        shown: '= {"serviceType":"NodePort"}',
        fix: "set clusterNames or clusterProviders",
    },
    "override for a non-member": {
        config: { ...base, irisClusters: [iris({ overrides: [{ clusterNames: ["ikofett"], serviceType: "NodePort" }] })] },
        key: "kamino:irisClusters[0].overrides[0].clusterNames[0]",
        shown: '= "ikofett"',
        fix: "use a member cluster: ikoclone",
    },
    "plaintext override path not a pointer": {
        config: { ...base, irisClusters: [iris({ overrides: [{ clusterNames: ["ikoclone"], plaintext: [{ path: "spec", operator: "remove" }] }] })] },
        key: "kamino:irisClusters[0].overrides[0].plaintext[0].path",
        shown: '= "spec"',
        fix: "start it with '/'",
    },
    "license Secret not synced": {
        config: { ...base, irisClusters: [iris({ licenseKeySecret: "iris-key" })] },
        key: "kamino:irisClusters[0].licenseKeySecret",
        shown: '= "iris-key"',
        fix: "add it there (namespace default) so Karmada can send it with the IrisCluster",
    },
    "Secret source key not set": {
        config: { ...base, secrets: [{ name: "iris-key-secret", fromConfig: "irisLicense" }] },
        key: "kamino:secrets[0].fromConfig",
        shown: '= "irisLicense"',
        fix: "pulumi config set --secret kamino:irisLicense",
    },
    "Secret source with the namespace prefix": {
        config: { ...base, secrets: [{ name: "iris-key-secret", fromConfig: "kamino:irisLicense" }] },
        key: "kamino:secrets[0].fromConfig",
        shown: '= "kamino:irisLicense"',
        fix: "give the key without the 'kamino:' prefix",
    },
    "Secret source not a secret": {
        config: secretsBase,
        key: "kamino:secrets[0].fromConfig",
        shown: '= "irisLicense"',
        fix: "set it again with 'pulumi config set --secret kamino:irisLicense",
    },
    "Secret type unknown": {
        config: { ...secretsBase, secrets: [{ name: "iris-key-secret", fromConfig: "irisLicense", type: "basic-auth" }] },
        key: "kamino:secrets[0].type",
        shown: '= "basic-auth"',
        fix: "use one of opaque, dockerconfigjson, tls",
        secretKeys: ["kamino:irisLicense"],
    },
    "duplicate Secrets": {
        config: { ...secretsBase, secrets: [secretsBase.secrets[0], secretsBase.secrets[0]] },
        key: "kamino:secrets[1].name",
        shown: '= "iris-key-secret"',
        fix: "remove one, or rename it",
        secretKeys: ["kamino:irisLicense"],
    },
    "registry Secret without password": {
        config: { ...base, secrets: [{ name: "pull", type: "dockerconfigjson", fromConfig: "icr" }], icr: { server: "s", username: "u" } },
        key: "kamino:secrets[0].fromConfig",
        shown: '= "icr"',
        fix: "pulumi config set --secret --path kamino:icr.password",
        secretKeys: ["kamino:icr"],
    },
    "Secret source named like an object built-in": {
        config: { ...base, secrets: [{ name: "s", fromConfig: "constructor" }] },
        key: "kamino:secrets[0].fromConfig",
        shown: '= "constructor"',
        fix: "pulumi config set --secret kamino:constructor",
    },
    "unknown key named like an object built-in": {
        config: { ...base, toString: "x" },
        key: "kamino:toString",
        shown: '= "x"',
        fix: "pulumi config rm kamino:toString",
    },
    "IKO pull secret source not set": {
        config: { ...base, iko: { chartPath: "./chart", imagePullSecretFromConfig: "icr" } },
        key: "kamino:iko.imagePullSecretFromConfig",
        shown: '= "icr"',
        fix: "pulumi config set --secret kamino:icr",
    },
};

describe("each mistake is named with its key, its value and the fix, before any resource exists", () => {
    test("the table covers at least 30 distinct mistakes", () => {
        expect(Object.keys(BAD).length).toBeGreaterThanOrEqual(30);
        expect(new Set(Object.values(BAD).map((c) => JSON.stringify(c.config))).size).toBe(Object.keys(BAD).length);
    });

    test.each(Object.entries(BAD))("%s", async (_, c) => {
        const error = await rejectedByStack(c.config, { pathExists: c.pathExists, secretKeys: c.secretKeys });
        const line = new RegExp(`^${escape(c.key)} ${escape(c.shown)}: ${c.reason ? escape(c.reason) : ".+"}; fix: .*${escape(c.fix)}`);
        expect(error.problems).toContainEqual(expect.stringMatching(line));
        for (const p of error.problems) expect(p).toMatch(LINE_FORMAT);
        expect(error.message).toContain(`  - ${c.key} ${c.shown}: `);
    });
});

describe("problem lines", () => {
    test("the issue's own example: a bad name shows the name", () => {
        expect(problems({ ...base, clusters: [...base.clusters, kind("IkoBad")] })).toEqual([
            "kamino:clusters[2].name = \"IkoBad\": cluster name must be a DNS-1123 label (lower-case letters, digits and '-', " +
                "starting and ending with a letter or digit); fix: lower-case it and replace any other character with '-'",
        ]);
    });

    test("files of existing clusters and of an existing Karmada are checked in that order", () => {
        const cfg = {
            ...base,
            clusters: [kind("h", { karmadaHost: true }), { name: "e", provider: "existing", kubeconfigPath: "/nope/e.kubeconfig" }],
            karmada: { existingKubeconfigPath: "/nope/karmada.kubeconfig" },
        };
        expect(problems(cfg, { pathExists: (p: string) => !p.startsWith("/nope") })).toEqual([
            `kamino:clusters[1].kubeconfigPath = "/nope/e.kubeconfig": file does not exist; fix: give the path of the cluster's kubeconfig file`,
            `kamino:karmada.existingKubeconfigPath = "/nope/karmada.kubeconfig": file does not exist; fix: give the path of the Karmada API's kubeconfig file`,
        ]);
    });

    test("an unknown field is reported at the field, one line per field", () => {
        const found = problems({ ...base, iko: { chartPath: "./chart", chartpath: "x", namspace: "iko" } });
        expect(found).toEqual([
            expect.stringMatching(
                /^kamino:iko\.chartpath = "x": unknown field; fix: remove it or correct its spelling; docs\/configuration\.md lists the fields of kamino:iko$/,
            ),
            expect.stringMatching(/^kamino:iko\.namspace = "iko": unknown field; /),
        ]);
    });

    test("a typo of a known key suggests the key", () => {
        expect(problems({ ...base, clusterz: [] })).toEqual([
            "kamino:clusterz = []: unknown config key (did you mean kamino:clusters?); fix: remove it with 'pulumi config rm kamino:clusterz'",
        ]);
    });

    test("several problems are all reported at once", () => {
        const found = problems({ clusters: [kind("a"), kind("a")], cilium: { version: "x" }, irisClusters: [{ name: "i" }] });
        expect(found.length).toBeGreaterThanOrEqual(4);
        for (const p of found) expect(p).toMatch(LINE_FORMAT);
    });

    test("the error message lists the problems", () => {
        expect(() => loadFleetConfig(raw({ ...base, clusterz: 1 }), { pathExists: exists })).toThrow(
            /Invalid Kamino stack config \(1 problem\):\n {2}- kamino:clusterz = 1: /,
        );
    });

    test("a long value is cut, so one bad entry does not flood the message", () => {
        const found = problems({ ...base, clusters: [kind("a", { karmadaHost: true, labels: { note: "x".repeat(500) } })] });
        const line = found.find((p) => p.startsWith("kamino:clusters[0].labels.note"))!;
        expect(line).toMatch(/^kamino:clusters\[0\]\.labels\.note = "x{58}…: /);
    });
});

describe("secret values never appear in an error", () => {
    const LICENSE = "LICENSE-KEY-do-not-print-0001";
    const PASSWORD = "icr-token-do-not-print";
    const clusters = base.clusters;

    test("a secret source that is not an object: the key is named, its value is not shown", async () => {
        const cfg = { ...base, secrets: [{ name: "pull", type: "dockerconfigjson", fromConfig: "icr" }], icr: PASSWORD };
        const error = await rejectedByStack(cfg, { secretKeys: ["kamino:icr"] });
        expect(error.problems).toEqual([
            `kamino:secrets[0].fromConfig = "icr": 'kamino:icr' must be an object with 'server', 'username', 'password'; fix: use 'pulumi config set --secret --path kamino:icr.<field> ...'`,
        ]);
        expect(error.message).not.toContain(PASSWORD);
    });

    test("a misspelt secret key that Pulumi marks secret shows [secret]", async () => {
        const cfg = { ...secretsBase, irisLicence: { "iris.key": LICENSE } };
        const error = await rejectedByStack(cfg, { secretKeys: ["kamino:irisLicense", "kamino:irisLicence"] });
        expect(error.problems).toEqual([
            expect.stringMatching(/^kamino:irisLicence = \[secret\]: unknown config key; fix: remove it with 'pulumi config rm kamino:irisLicence'$/),
        ]);
        expect(error.message).not.toContain(LICENSE);
    });

    test("a secret source is hidden even when Pulumi does not mark it and kamino:secrets itself is broken", async () => {
        const cfg = { ...base, secrets: [{ name: "Bad Name", fromConfig: "irisLicense" }], irisLicense: LICENSE };
        const error = await rejectedByStack(cfg);
        expect(error.problems).toContainEqual("kamino:irisLicense = [secret]: unknown config key; fix: remove it with 'pulumi config rm kamino:irisLicense'");
        expect(error.message).not.toContain(LICENSE);
    });

    test("a bad field inside a key Pulumi marks secret shows [secret]", async () => {
        const cfg = { ...base, iko: { chartPath: "./chart", releaseName: PASSWORD.toUpperCase() } };
        const error = await rejectedByStack(cfg, { secretKeys: ["kamino:iko"] });
        expect(error.problems).toEqual([expect.stringMatching(/^kamino:iko\.releaseName = \[secret\]: releaseName must be a DNS-1123 label/)]);
        expect(error.message).not.toContain(PASSWORD.toUpperCase());
    });

    test("values of a secret structural key are cut from reasons that quote them", async () => {
        // Placement problems list the fleet's cluster names; here the cluster list is secret.
        const cfg = { clusters: [clusters[0], kind("secret-member")], iko: base.iko, irisClusters: [iris({ placement: { clusterNames: ["nope"] } })] };
        const error = await rejectedByStack(cfg, { secretKeys: ["kamino:clusters"] });
        expect(error.problems).toEqual([
            'kamino:irisClusters[0].placement.clusterNames[0] = "nope": is not a cluster of this fleet (known: [secret], [secret]); fix: use a member cluster: [secret]',
        ]);
        expect(error.message).not.toContain("secret-member");
    });
});

describe("pure helpers", () => {
    test("one CIDR validator: IPv4 and IPv6, the prefix in range for the family", () => {
        expect(["10.0.0.0/8", "198.51.100.7/32", "0.0.0.0/0"].map(cidrFamily)).toEqual([4, 4, 4]);
        expect(["2001:db8::/32", "::/0", "fd00::/128"].map(cidrFamily)).toEqual([6, 6, 6]);
        expect(["10.0.0.0/99", "10.0.0.0/33", "fd00::/129", "10.0.0.0", "300.0.0.0/8", "office/8", "10.0.0.0/8/1"].map(cidrFamily)).toEqual(
            Array(7).fill(undefined),
        );
    });

    test("configKey writes a path as the key `pulumi config set --path` takes", () => {
        expect(configKey(["clusters", 2, "labels", "site"])).toBe("kamino:clusters[2].labels.site");
        expect(configKey(["kindNamePrefix"])).toBe("kamino:kindNamePrefix");
    });

    test("showValue renders short JSON, escapes, and cuts long values", () => {
        expect(showValue("IkoBad")).toBe('"IkoBad"');
        expect(showValue(3)).toBe("3");
        expect(showValue(null)).toBe("null");
        expect(showValue('a\nb"c')).toBe('"a\\nb\\"c"');
        const long = showValue("y".repeat(200));
        expect(long).toHaveLength(MAX_SHOWN_VALUE);
        expect(long.endsWith("…")).toBe(true);
    });

    test("lookup tells an absent value from a present one, through lists and objects", () => {
        const input = { clusters: [{ name: "a", karmadaHost: false }] };
        expect(lookup(input, ["clusters", 0, "karmadaHost"])).toEqual({ found: true, value: false });
        expect(lookup(input, ["clusters", 1, "name"])).toEqual({ found: false });
        expect(lookup(input, ["clusters", 0, "name", "length"])).toEqual({ found: false });
    });

    test("describeIssue never repeats zod's default text, which quotes the value", () => {
        const issue = z.enum(["kind", "gke"]).safeParse("hunter2-secret").error!.issues[0];
        expect(issue.message).toContain("hunter2-secret");
        const described = describeIssue(issue);
        expect(described).toEqual({ reason: "is not one of the allowed values", fix: "use one of kind, gke" });
    });

    test("checks are plain functions of the parsed config", () => {
        const cluster = (name: string, karmadaHost: boolean): ClusterConfig => ({
            name,
            provider: "kind",
            karmadaHost,
            syncMode: "Push",
            labels: {},
            workers: 1,
        });
        expect(checkHostCount({ clusters: [cluster("a", true), cluster("b", false)] })).toEqual([]);
        expect(checkHostCount({ clusters: [cluster("a", true), cluster("b", true)] })).toEqual([
            { path: ["clusters"], reason: "2 clusters have 'karmadaHost: true' (a, b)", fix: "keep it on exactly one cluster; the others join as members" },
        ]);
        const secrets = [
            { name: "s", namespace: "default", type: "opaque" as const, fromConfig: "k", overwriteExisting: false, placement: { clusterNames: ["a"] } },
        ];
        expect(checkPlacements({ clusters: [cluster("a", true), cluster("b", false)], secrets })).toEqual([
            {
                path: ["secrets", 0, "placement", "clusterNames", 0],
                reason: "hosts Karmada and is not a member; workloads can only be placed on members",
                fix: "use a member cluster: b",
            },
        ]);
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
