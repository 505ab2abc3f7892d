// What `npm run recover` decides, as pure functions: whether a stack lock belongs to a run that is
// still alive, which Helm releases of this stack a killed run left half-done and what to remove so
// Helm can install them again, and which releases stand on a cluster that left the config and can
// no longer be reached. commands/recover.ts does the talking (Pulumi CLI, API servers).
import * as zlib from "zlib";

/** A lock file of a DIY (file, bucket) backend: `.pulumi/locks/<org>/<project>/<stack>/<id>.json`. */
export interface StackLock {
    pid: number;
    hostname: string;
    username?: string;
    timestamp?: string;
}

/** What this machine can tell of a lock's process: gone, or running as the named program. */
export interface ProcessProbe {
    hostname: string;
    /** The program a live pid runs (e.g. `pulumi`), undefined when no such process runs; "" when it cannot be told. */
    programOf: (pid: number) => string | undefined;
}

/**
 * Whose a DIY backend's lock is: a run still going here ("running", never removed), a run that is
 * gone ("dead": its pid is not running, or runs another program since a reboot reused it), or a run
 * on another machine, which cannot be seen from here ("elsewhere").
 */
export function lockOwner(lock: StackLock, here: ProcessProbe): "running" | "dead" | "elsewhere" {
    if (lock.hostname !== here.hostname) return "elsewhere";
    if (!(lock.pid > 0)) return "dead";
    const program = here.programOf(lock.pid);
    if (program === undefined) return "dead";
    return program === "" || program === "pulumi" ? "running" : "dead";
}

/** One resource of `pulumi stack export --show-secrets`. */
export interface StateResource {
    urn: string;
    type: string;
    id?: string;
    custom?: boolean;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    provider?: string;
    parent?: string;
}

/** The deployment of `pulumi stack export --show-secrets`. */
export interface StateDeployment {
    resources?: StateResource[];
    pending_operations?: Array<{ resource: StateResource; type: string }>;
}

export const HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";
export const PROVIDER_TYPE = "pulumi:providers:kubernetes";

/** A Helm release this stack made or was making, and the provider (cluster) it went to. */
export interface StackRelease {
    urn: string;
    name: string;
    namespace: string;
    /** The chart as the Release names it: a path, a repo chart name, or a URL. */
    chart: string;
    /** `urn::id` of its Kubernetes provider. */
    provider: string;
    /** The killed run was creating it: Pulumi's state does not hold it. */
    pendingCreate: boolean;
}

/** Secret values in an export with --show-secrets: `{ <sig>: ..., plaintext: "<json>" }`. */
export function plain(value: unknown): unknown {
    if (value && typeof value === "object" && "plaintext" in (value as Record<string, unknown>)) {
        const text = (value as { plaintext: unknown }).plaintext;
        return typeof text === "string" ? JSON.parse(text) : text;
    }
    return value;
}

/** The Helm releases of this stack: in the state, and those a killed run was creating. */
export function stackReleases(deployment: StateDeployment): StackRelease[] {
    const fromState = (deployment.resources ?? []).filter((r) => r.type === HELM_RELEASE_TYPE).map((r) => release(r, false));
    const pending = (deployment.pending_operations ?? [])
        .filter((p) => p.resource.type === HELM_RELEASE_TYPE && p.type === "creating")
        .map((p) => release(p.resource, true));
    return [...fromState, ...pending].filter((r): r is StackRelease => r !== undefined);
}

function release(r: StateResource, pendingCreate: boolean): StackRelease | undefined {
    const inputs = r.inputs ?? {};
    const outputs = r.outputs ?? {};
    const name = plain(outputs.name ?? inputs.name);
    const namespace = plain(outputs.namespace ?? inputs.namespace) ?? "default";
    const chart = plain(inputs.chart);
    if (typeof name !== "string" || typeof namespace !== "string" || typeof chart !== "string" || !r.provider) return undefined;
    return { urn: r.urn, name, namespace, chart, provider: r.provider, pendingCreate };
}

/** The kubeconfig (and context) a Kubernetes provider of the state was configured with. */
export function providerKubeconfig(deployment: StateDeployment, providerRef: string): { kubeconfig: string; context?: string } | undefined {
    const [urn, id] = splitProviderRef(providerRef);
    const p = (deployment.resources ?? []).find((r) => r.urn === urn && (id === undefined || r.id === id));
    const kubeconfig = plain(p?.inputs?.kubeconfig);
    const context = plain(p?.inputs?.context);
    if (typeof kubeconfig !== "string" || kubeconfig === "") return undefined;
    return { kubeconfig, context: typeof context === "string" && context !== "" ? context : undefined };
}

/** `urn::id` -> [urn, id]; the id is what follows the last `::`. */
export function splitProviderRef(ref: string): [string, string | undefined] {
    const i = ref.lastIndexOf("::");
    return i < 0 ? [ref, undefined] : [ref.slice(0, i), ref.slice(i + 2)];
}

/** One revision of a release as Helm keeps it: a Secret `sh.helm.release.v1.<name>.v<n>`. */
export interface HelmRecord {
    /** The Secret's name. */
    secret: string;
    version: number;
    /** `deployed`, `pending-install`, `pending-upgrade`, `pending-rollback`, `superseded`, `failed`, ... */
    status: string;
    /** The chart's name inside the record, when it could be read. */
    chartName?: string;
}

const PENDING = new Set(["pending-install", "pending-upgrade", "pending-rollback"]);

/** What to do about one release: the revisions to remove, and why. */
export interface HelmHeal {
    deleteSecrets: string[];
    reason?: string;
}

/**
 * Heals one of this stack's releases after a killed run, so that the next `up` can install or
 * upgrade it. Helm refuses both while the newest revision is pending ("another operation is in
 * progress", or "cannot re-use a name that is still in use"):
 * - the killed run was creating it (Pulumi has no record): its revisions are removed, so the next
 *   `up` installs it again and Helm adopts the objects the half-done install made (they carry the
 *   release's ownership annotations);
 * - a pending upgrade or rollback of a release Pulumi holds: that revision is removed, so the last
 *   deployed one is current again and the next `up` upgrades from it.
 * Records whose chart is not the Release's are someone else's release of the same name: left alone.
 */
export function helmHeal(release: StackRelease, records: HelmRecord[]): HelmHeal {
    const ours = records.filter((r) => r.chartName === undefined || r.chartName === chartNameOf(release.chart));
    if (ours.length !== records.length)
        return { deleteSecrets: [], reason: `release ${release.namespace}/${release.name} holds another chart's revisions: left alone` };
    if (ours.length === 0) return { deleteSecrets: [] };
    if (release.pendingCreate) {
        return {
            deleteSecrets: ours.map((r) => r.secret),
            reason: `the killed run was installing ${release.namespace}/${release.name} (${describe(ours)}): its Helm record is removed so that up installs it again`,
        };
    }
    const newest = ours.reduce((a, b) => (b.version > a.version ? b : a));
    if (!PENDING.has(newest.status)) return { deleteSecrets: [] };
    return {
        deleteSecrets: [newest.secret],
        reason: `${release.namespace}/${release.name} revision ${newest.version} was left ${newest.status}: removed, so up upgrades from the last deployed revision`,
    };
}

const describe = (records: HelmRecord[]) => records.map((r) => `v${r.version} ${r.status}`).join(", ");

/** The chart name a Release input stands for: `./charts/iris-operator` -> `iris-operator`, `cilium/cilium` -> `cilium`. */
export function chartNameOf(chart: string): string {
    const last = chart.replace(/\/+$/, "").split("/").pop() ?? chart;
    return last.replace(/\.tgz$/, "").replace(/-\d+\.\d+\.\d+.*$/, "");
}

/** A Helm storage Secret as the API returns it -> the record; the release body is read for its chart name. */
export function helmRecordOf(secret: { metadata?: { name?: string; labels?: Record<string, string> }; data?: Record<string, string> }): HelmRecord | undefined {
    const labels = secret.metadata?.labels ?? {};
    const version = Number(labels.version);
    if (!secret.metadata?.name || !labels.status || !Number.isFinite(version)) return undefined;
    let chartName: string | undefined;
    try {
        // data.release: base64 (the API's) of base64 (Helm's) of gzipped JSON.
        const helmEncoded = Buffer.from(secret.data?.release ?? "", "base64").toString("utf8");
        const json = JSON.parse(zlib.gunzipSync(Buffer.from(helmEncoded, "base64")).toString("utf8")) as { chart?: { metadata?: { name?: string } } };
        chartName = json.chart?.metadata?.name;
    } catch {
        chartName = undefined;
    }
    return { secret: secret.metadata.name, version, status: labels.status, chartName };
}

/**
 * The Releases a run could not delete because their cluster is unreachable: the provider will not
 * forget a Helm release it cannot reach, even with `deleteUnreachable`. Read from the CLI's output:
 * `kubernetes:helm.sh/v3:Release (<name>):\n    error: can't delete Helm Release with unreachable cluster`.
 */
export function undeletableReleaseNames(output: string): string[] {
    const names = new Set<string>();
    const re = /kubernetes:helm\.sh\/v3:Release \(([^)\s]+)\):\s*\n\s*error: can't delete Helm Release with unreachable cluster/g;
    for (let m = re.exec(output); m; m = re.exec(output)) names.add(m[1]);
    return [...names];
}

/** The URN's last part: the resource's name. */
export const urnName = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);

/** A file of a file backend's `.pulumi` folder, as read from disk. */
export interface BackendFile {
    path: string;
    content: string;
}

/**
 * The sidecars a kill left torn in a file backend. gocloud (Pulumi's blob library) writes a blob
 * atomically (a temp file, then a rename) but its `<blob>.attrs` sidecar (content type and MD5) in
 * place: created empty, then written. A run killed in between leaves it empty or cut short, and every
 * later command on the stack fails with "failed to load checkpoint: EOF" although the checkpoint is
 * whole. A blob without a sidecar reads as plain bytes, so a torn one can go.
 */
export function tornSidecars(files: BackendFile[]): string[] {
    return files
        .filter((f) => f.path.endsWith(".attrs"))
        .filter((f) => {
            try {
                const v = JSON.parse(f.content) as unknown;
                return v === null || typeof v !== "object" || Array.isArray(v);
            } catch {
                return true;
            }
        })
        .map((f) => f.path);
}

/** The Kubernetes provider of the Karmada API in the state (`kamino:index:KarmadaControlPlane`'s child), as `urn::id`. */
export function karmadaProviderRef(deployment: StateDeployment): string | undefined {
    const p = (deployment.resources ?? []).find((r) => r.type === PROVIDER_TYPE && r.id && r.urn.includes("kamino:index:KarmadaControlPlane$"));
    return p ? `${p.urn}::${p.id}` : undefined;
}

/** A member's Kubernetes provider is named after it (components/clusters: `<member>-k8s`). */
export const memberOfProvider = (providerName: string): string | undefined =>
    providerName.endsWith("-k8s") ? providerName.slice(0, -"-k8s".length) : undefined;

/** A Karmada Cluster as recover reads it. */
export interface JoinedCluster {
    name: string;
    syncMode?: string;
    /** Its Ready condition's status: "True", "False", "Unknown", or undefined before any. */
    ready?: string;
}

/**
 * The Pull members lost for good: their API server does not answer, their Cluster is not Ready,
 * and this run removes them (a destroy, or they left `kamino:clusters`). recover deletes their
 * Cluster first, so that Karmada releases their Works rather than the run waiting for their agent.
 * A member that is only down and still declared is left alone: its agent drops what Karmada moved
 * away when it comes back.
 */
export function lostPullMembers(clusters: JoinedCluster[], unreachableProviders: string[], declared: string[], destroy: boolean): string[] {
    const unreachable = new Set(unreachableProviders.map(memberOfProvider).filter((m) => m !== undefined));
    return clusters
        .filter((c) => c.syncMode === "Pull" && c.ready !== "True" && unreachable.has(c.name) && (destroy || !declared.includes(c.name)))
        .map((c) => c.name);
}
