// Plays IKO on the member API servers, which run no pods: every IrisCluster that appears on a
// member is given the status IKO would report, after a delay, as IKO does once IRIS has started.
import { ApiServer } from "./fleet";
import { Ticker } from "./ticker";
import { KubeObject, resourcePath } from "./kube-client";

/** What a member's IKO reports for its IrisClusters. */
export interface IkoReport {
    /** `status.phase`, e.g. Running, Creating, Failed. */
    phase: string;
    /** A condition to report with it, e.g. a Ready=False with the reason IRIS does not start. */
    condition?: { type: string; status: "True" | "False" | "Unknown"; reason?: string; message?: string };
}

const RUNNING: IkoReport = { phase: "Running", condition: { type: "Ready", status: "True" } };
/** What IKO reports while IRIS's pods start. */
const CREATING: IkoReport = { phase: "Creating", condition: { type: "Ready", status: "False", reason: "IRISStarting", message: "IRIS pods are starting" } };
const IRIS_LIST = resourcePath("intersystems.com/v1alpha1", "irisclusters");

type Ref = { name?: string };
type VolumeSource = { secret?: { secretName?: string }; configMap?: Ref };
type Iris = KubeObject & {
    spec?: { configSource?: Ref; licenseKeySecret?: Ref; imagePullSecrets?: Ref[]; tls?: Record<string, VolumeSource> };
    status?: { phase?: string };
};

/**
 * The ConfigMap and Secrets IRIS's pods need, as resource paths: without them the kubelet cannot
 * mount the CPF ConfigMap, license and TLS volumes, nor pull a private image, so IRIS does not start.
 */
export function irisNeeds(iris: Iris): string[] {
    const ns = iris.metadata?.namespace as string;
    const secret = (name?: string) => (name ? [resourcePath("v1", "secrets", { namespace: ns, name })] : []);
    const configMap = (name?: string) => (name ? [resourcePath("v1", "configmaps", { namespace: ns, name })] : []);
    const spec = iris.spec ?? {};
    return [
        ...configMap(spec.configSource?.name),
        ...secret(spec.licenseKeySecret?.name),
        ...(spec.imagePullSecrets ?? []).flatMap((r) => secret(r.name)),
        ...Object.values(spec.tls ?? {}).flatMap((v) => [...secret(v.secret?.secretName), ...configMap(v.configMap?.name)]),
    ];
}

/** Reports IrisCluster status on the members, Running by default; start() to begin, stop() to end. */
export class IkoPlayer {
    private readonly reports = new Map<string, IkoReport>();
    private readonly firstSeen = new Map<string, number>();
    private readonly ticker = new Ticker(() => this.tick());
    /** Each member's report under way. */
    private readonly inFlight = new Map<string, Promise<void>>();

    /**
     * @param delayMs how long after an IrisCluster appears on a member its status is written.
     * @param opts.waitForNeeds report Running only once the ConfigMap and Secrets the IrisCluster
     *        names are on the member (`irisNeeds`), as IRIS's pods would start only then; until then
     *        nothing is reported. Off by default: other suites name no such objects.
     * @param opts.creating until the delay has passed, report `Creating` (Ready False, IRISStarting),
     *        as IKO does while IRIS's pods start. Off by default: nothing is reported until then.
     */
    constructor(
        private readonly members: ApiServer[],
        private readonly delayMs: number,
        private readonly opts: { waitForNeeds?: boolean; creating?: boolean } = {},
    ) {}

    /** What `member` reports from now on (also for IrisClusters it reported before). */
    report(member: string, report: IkoReport = RUNNING): this {
        if (!this.members.some((m) => m.name === member)) throw new Error(`no member ${member}`);
        this.reports.set(member, report);
        return this;
    }

    start(): this {
        this.ticker.start();
        return this;
    }

    async stop(): Promise<void> {
        await this.ticker.stop();
        await Promise.all(this.inFlight.values());
    }

    /**
     * Each member on its own, as each runs its own IKO: a member whose API server hangs (or is still
     * starting) holds its own reports until its client gives up, never the other members'.
     */
    private async tick(): Promise<void> {
        for (const m of this.members) {
            if (this.inFlight.has(m.name)) continue;
            const report = this.reportOn(m)
                .catch(() => undefined) // a stopped member is skipped
                .finally(() => this.inFlight.delete(m.name));
            this.inFlight.set(m.name, report);
        }
    }

    private async reportOn(member: ApiServer): Promise<void> {
        const want = this.reports.get(member.name) ?? RUNNING;
        const list = await member.client.get<KubeObject & { items?: Iris[] }>(IRIS_LIST);
        for (const iris of list?.items ?? []) {
            const key = `${member.name}/${iris.metadata?.namespace}/${iris.metadata?.name}/${iris.metadata?.uid}`;
            const seen = this.firstSeen.get(key) ?? Date.now();
            this.firstSeen.set(key, seen);
            if (Date.now() - seen < this.delayMs) {
                if (this.opts.creating && iris.status?.phase !== CREATING.phase) await this.write(member, iris, CREATING);
                continue;
            }
            if (iris.status?.phase === want.phase) continue;
            if (this.opts.waitForNeeds && want.phase === "Running") {
                const present = await Promise.all(irisNeeds(iris).map((p) => member.client.get(p)));
                if (present.some((o) => o === undefined)) continue;
            }
            await this.write(member, iris, want);
        }
    }

    private async write(member: ApiServer, iris: Iris, report: IkoReport): Promise<void> {
        // The member's CRD has no status subresource (IKO's has none), so status is patched on the object.
        await member.client.mergePatch(
            resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: iris.metadata!.namespace as string, name: iris.metadata!.name as string }),
            {
                status: { phase: report.phase, conditions: report.condition ? [report.condition] : null },
            },
        );
    }
}
