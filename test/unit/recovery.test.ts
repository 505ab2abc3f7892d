// What `npm run recover` decides after a killed run: locks, Helm records, releases to forget.
import * as zlib from "zlib";
import {
    chartNameOf,
    helmHeal,
    helmRecordOf,
    karmadaProviderRef,
    lockOwner,
    lostPullMembers,
    providerKubeconfig,
    StackRelease,
    stackReleases,
    StateDeployment,
    tornSidecars,
    undeletableReleaseNames,
} from "../../components/recovery/decisions";

const PROVIDER = "urn:pulumi:dev::kamino::kamino:index:Fleet$kamino:index:ExistingCluster$pulumi:providers:kubernetes::ikoclone-k8s";
const RELEASE = "urn:pulumi:dev::kamino::kamino:index:Fleet$kamino:index:IrisOperator$kubernetes:helm.sh/v3:Release::ikoclone-iko-iko";
const secretValue = (v: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", plaintext: JSON.stringify(v) });

const deployment: StateDeployment = {
    resources: [
        { urn: PROVIDER, id: "p-1", type: "pulumi:providers:kubernetes", inputs: { kubeconfig: secretValue("apiVersion: v1\nkind: Config\n"), context: "" } },
        {
            urn: RELEASE,
            id: "iris-operator/iko",
            type: "kubernetes:helm.sh/v3:Release",
            provider: `${PROVIDER}::p-1`,
            inputs: { name: "iko", namespace: "iris-operator", chart: "./iris-operator" },
        },
    ],
    pending_operations: [
        {
            type: "creating",
            resource: {
                urn: RELEASE.replace("ikoclone", "ikoclone2"),
                type: "kubernetes:helm.sh/v3:Release",
                provider: `${PROVIDER}::p-1`,
                inputs: { name: "iko", namespace: "iris-operator", chart: "./iris-operator" },
            },
        },
        { type: "creating", resource: { urn: "urn:pulumi:dev::kamino::kubernetes:core/v1:Secret::s", type: "kubernetes:core/v1:Secret" } },
    ],
};

const record = (version: number, status: string, chart = "iris-operator") => ({
    secret: `sh.helm.release.v1.iko.v${version}`,
    version,
    status,
    chartName: chart,
});
const release = (pendingCreate: boolean): StackRelease => ({
    urn: RELEASE,
    name: "iko",
    namespace: "iris-operator",
    chart: "./iris-operator",
    provider: PROVIDER,
    pendingCreate,
});

describe("recovery after a killed run", () => {
    test("a lock is a running run's only while its pulumi process runs on this machine", () => {
        const programs: Record<number, string> = { 42: "pulumi", 44: "bash", 45: "" };
        const here = { hostname: "laptop", programOf: (pid: number) => programs[pid] };
        expect(lockOwner({ pid: 42, hostname: "laptop" }, here)).toBe("running");
        expect(lockOwner({ pid: 43, hostname: "laptop" }, here)).toBe("dead");
        // After a reboot the pid may run something else: that is not the run that took the lock.
        expect(lockOwner({ pid: 44, hostname: "laptop" }, here)).toBe("dead");
        // Where the program cannot be told (no /proc), a live pid counts as the run.
        expect(lockOwner({ pid: 45, hostname: "laptop" }, here)).toBe("running");
        expect(lockOwner({ pid: 0, hostname: "laptop" }, here)).toBe("dead");
        // Another machine's run cannot be seen from here.
        expect(lockOwner({ pid: 42, hostname: "ci-runner" }, here)).toBe("elsewhere");
    });

    test("the stack's releases: those in the state and those a killed run was creating, with their provider", () => {
        expect(stackReleases(deployment)).toEqual([
            { urn: RELEASE, name: "iko", namespace: "iris-operator", chart: "./iris-operator", provider: `${PROVIDER}::p-1`, pendingCreate: false },
            {
                urn: RELEASE.replace("ikoclone", "ikoclone2"),
                name: "iko",
                namespace: "iris-operator",
                chart: "./iris-operator",
                provider: `${PROVIDER}::p-1`,
                pendingCreate: true,
            },
        ]);
        expect(providerKubeconfig(deployment, `${PROVIDER}::p-1`)).toEqual({ kubeconfig: "apiVersion: v1\nkind: Config\n", context: undefined });
        expect(providerKubeconfig(deployment, `${PROVIDER}::other-id`)).toBeUndefined();
    });

    test("a release the killed run was installing: every revision goes, so up installs it again", () => {
        expect(helmHeal(release(true), [record(1, "pending-install")]).deleteSecrets).toEqual(["sh.helm.release.v1.iko.v1"]);
        // Killed after Helm finished, before Pulumi recorded it: Pulumi would hit "cannot re-use a name".
        expect(helmHeal(release(true), [record(1, "deployed")]).deleteSecrets).toEqual(["sh.helm.release.v1.iko.v1"]);
        expect(helmHeal(release(true), []).deleteSecrets).toEqual([]);
    });

    test("a release Pulumi holds: only a pending newest revision goes; a deployed one is left", () => {
        expect(helmHeal(release(false), [record(1, "superseded"), record(2, "pending-upgrade")]).deleteSecrets).toEqual(["sh.helm.release.v1.iko.v2"]);
        expect(helmHeal(release(false), [record(1, "deployed"), record(2, "pending-rollback")]).deleteSecrets).toEqual(["sh.helm.release.v1.iko.v2"]);
        expect(helmHeal(release(false), [record(1, "superseded"), record(2, "deployed")]).deleteSecrets).toEqual([]);
        expect(helmHeal(release(false), [record(1, "failed")]).deleteSecrets).toEqual([]);
    });

    test("a release of the same name with another chart is someone else's: never touched", () => {
        const heal = helmHeal(release(true), [record(1, "pending-install", "nginx")]);
        expect(heal.deleteSecrets).toEqual([]);
        expect(heal.reason).toMatch(/another chart/);
        expect(chartNameOf("./iris-operator/")).toBe("iris-operator");
        expect(chartNameOf("cilium")).toBe("cilium");
        expect(chartNameOf("oci://registry/charts/karmada-1.18.2.tgz")).toBe("karmada");
    });

    test("a Helm storage Secret is read for its revision, status and chart", () => {
        const body = Buffer.from(zlib.gzipSync(JSON.stringify({ name: "iko", chart: { metadata: { name: "iris-operator" } } }))).toString("base64");
        const secret = {
            metadata: { name: "sh.helm.release.v1.iko.v3", labels: { owner: "helm", name: "iko", status: "pending-upgrade", version: "3" } },
            data: { release: Buffer.from(body).toString("base64") },
        };
        expect(helmRecordOf(secret)).toEqual({ secret: "sh.helm.release.v1.iko.v3", version: 3, status: "pending-upgrade", chartName: "iris-operator" });
        expect(helmRecordOf({ metadata: { name: "x", labels: { owner: "helm" } } })).toBeUndefined();
    });

    test("the releases a run could not delete on an unreachable cluster are read from the CLI's output", () => {
        const output = [
            "  kubernetes:helm.sh/v3:Release (ikoclone2-iko-iko):",
            '    error: can\'t delete Helm Release with unreachable cluster. Reason: "dial tcp 127.0.0.1:1: connect: connection refused"',
            "  kubernetes:core/v1:Namespace (ns):",
            "    error: something else",
        ].join("\n");
        expect(undeletableReleaseNames(output)).toEqual(["ikoclone2-iko-iko"]);
        expect(undeletableReleaseNames("kubernetes:helm.sh/v3:Release (a):\n    error: can't create Helm Release with unreachable cluster")).toEqual([]);
    });

    test("a sidecar a kill left empty or cut short is torn; whole ones and the blobs themselves are not", () => {
        const stack = ".pulumi/stacks/kamino/dev.json";
        const files = [
            { path: stack, content: "{}" },
            { path: `${stack}.attrs`, content: "" },
            { path: `${stack}.bak.attrs`, content: '{"user.cache_control":"","user.content_type":"appl' },
            { path: ".pulumi/meta.yaml.attrs", content: '{"user.content_type":"application/octet-stream","md5":"1B2M2Y8AsgTpgAmY7PhCfg=="}\n' },
            { path: ".pulumi/locks/organization/kamino/dev/x.json.attrs", content: "null" },
            // A blob is not a sidecar, whatever it holds.
            { path: ".pulumi/history/kamino/dev/dev-1.history.json", content: "" },
        ];
        expect(tornSidecars(files)).toEqual([`${stack}.attrs`, `${stack}.bak.attrs`, ".pulumi/locks/organization/kamino/dev/x.json.attrs"]);
    });

    test("the Karmada API's provider is the control plane's child, named with its id", () => {
        const karmada = "urn:pulumi:dev::kamino::kamino:index:Fleet$kamino:index:KarmadaControlPlane$pulumi:providers:kubernetes::karmada-api";
        expect(karmadaProviderRef({ resources: [...deployment.resources!, { urn: karmada, id: "k-1", type: "pulumi:providers:kubernetes" }] })).toBe(
            `${karmada}::k-1`,
        );
        expect(karmadaProviderRef(deployment)).toBeUndefined();
    });

    test("a Pull member is lost for good only when unreachable, not Ready, and removed by this run", () => {
        const clusters = [
            { name: "pull-gone", syncMode: "Pull", ready: "Unknown" },
            { name: "pull-back", syncMode: "Pull", ready: "True" },
            { name: "push-gone", syncMode: "Push", ready: "Unknown" },
            { name: "pull-up", syncMode: "Pull", ready: "False" },
        ];
        const unreachable = ["pull-gone-k8s", "pull-back-k8s", "push-gone-k8s", "karmada-api"];
        // It left the config: released. Still declared (only down): its agent will clean up when it returns.
        expect(lostPullMembers(clusters, unreachable, ["pull-up"], false)).toEqual(["pull-gone"]);
        expect(lostPullMembers(clusters, unreachable, ["pull-gone", "pull-up"], false)).toEqual([]);
        // A destroy removes every member; a Push member is Karmada's own to release, a reachable one its agent's.
        expect(lostPullMembers(clusters, unreachable, [], true)).toEqual(["pull-gone"]);
    });
});
