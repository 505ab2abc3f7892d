// The NetworkPolicy follower (config/followers/network-policies.ts) on the failover suite's stack,
// around the suite's application failover: `kamino:irisClusters[0].networkPolicy` set on federated-iris
// (running on the first member then), its NetworkPolicy reaches that member only, as a dependency
// Karmada sends with the IrisCluster; once IKO's Failed report has moved federated-iris to the backup
// (the suite's own test), the NetworkPolicy is there and gone from the first member; the key removed,
// `up` takes it off the backup and out of Karmada, and the member's Role no longer names the kind.
// (Karmada does not move a failover placement back up its list by itself, so the suite's later
// failover, from the first member to the backup, is the one this follows.)
import { KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { SuiteReport } from "../scaffold/report";

type Stack = {
    getConfig(key: string): Promise<{ value: string }>;
    setConfig(key: string, value: { value: string }): Promise<void>;
    up(): Promise<{ summary: { result?: string } }>;
};
/** What the tests need of the failover suite, read when they run. */
export interface FailoverSuiteParts {
    fleet: LoopbackFleet;
    stack: Stack;
    report: SuiteReport;
    first: string;
    backup: string;
}

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
const NAME = "federated-iris-isolation";
const NP = resourcePath("networking.k8s.io/v1", "networkpolicies", { namespace: "default", name: NAME });
type Policy = KubeObject & { spec?: { podSelector?: unknown; ingress?: Array<{ from?: unknown[] }> } };

/** The NetworkPolicy on a member (undefined: none), its arrival and its leaving. */
function policyOn(fleet: LoopbackFleet) {
    const on = (member: string) => fleet.members.find((m) => m.name === member)!.client.get<Policy>(NP);
    return {
        on,
        arrives: (member: string) => waitFor(`${NAME} on ${member}`, async () => on(member), WAIT),
        leaves: (member: string) => waitFor(`${NAME} gone from ${member}`, async () => ((await on(member)) ? undefined : true), WAIT),
    };
}

/**
 * Polls both members every 250 ms from the end of the first test (the suite's Failed report comes
 * next): when the NetworkPolicy was first seen on the backup and first seen gone from the first member.
 */
class MoveWatch {
    readonly seen: { onBackup?: number; offFirst?: number } = {};
    private timer?: NodeJS.Timeout;
    private busy: Promise<void> = Promise.resolve();
    start(fleet: LoopbackFleet, first: string, backup: string): void {
        const policy = policyOn(fleet);
        const t0 = Date.now();
        const tick = async () => {
            const at = (Date.now() - t0) / 1000;
            if (this.seen.onBackup === undefined && (await policy.on(backup).catch(() => undefined))) this.seen.onBackup = at;
            if (this.seen.offFirst === undefined && !(await policy.on(first).catch(() => ({})))) this.seen.offFirst = at;
        };
        this.timer = setInterval(() => (this.busy = this.busy.then(tick)), 250);
    }
    async stop(): Promise<void> {
        clearInterval(this.timer);
        await this.busy;
    }
}
const watch = new MoveWatch();

/** `kamino:irisClusters` with federated-iris's networkPolicy set, or taken off (undefined). */
async function withPolicy(stack: Stack, networkPolicy: unknown): Promise<{ value: string }> {
    const entries = JSON.parse((await stack.getConfig("kamino:irisClusters")).value) as Array<Record<string, unknown>>;
    return { value: JSON.stringify(entries.map((e) => (e.name === "federated-iris" ? { ...e, networkPolicy } : e))) };
}

/** Before the suite's Failed report on the first member: the policy set, on the first member only. */
export function networkPolicyBeforeFailover(parts: () => FailoverSuiteParts): void {
    test("networkPolicy set on federated-iris: its NetworkPolicy reaches the member it runs on only, sent by Karmada as a dependency", async () => {
        const { fleet, stack, report, first, backup } = parts();
        const policy = policyOn(fleet);
        await stack.setConfig("kamino:irisClusters", await withPolicy(stack, { ingressFrom: ["10.20.0.0/16"], ingressFromNamespaces: ["apps"] }));
        const t = Date.now();
        expect((await stack.up()).summary.result).toBe("succeeded");
        const placed = await policy.arrives(first);
        report.record("networkPolicy set: up, then the NetworkPolicy on the member running federated-iris", (Date.now() - t) / 1000);
        expect(placed.spec?.podSelector).toEqual({ matchLabels: { "intersystems.com/name": "federated-iris" } });
        expect(placed.spec?.ingress?.[0].from).toHaveLength(4);
        expect(await policy.on(backup)).toBeUndefined();
        // In Karmada: its binding has no placement of its own, and federated-iris's binding requires it.
        const binding = await fleet.karmada.client.get<KubeObject & { spec?: { placement?: unknown; requiredBy?: Array<{ name: string }> } }>(
            resourcePath("work.karmada.io/v1alpha2", "resourcebindings", { namespace: "default", name: `${NAME}-networkpolicy` }),
        );
        expect(binding?.spec?.placement).toBeUndefined();
        expect(binding?.spec?.requiredBy?.map((r) => r.name)).toEqual(["federated-iris-iriscluster"]);
        watch.start(fleet, first, backup);
    });
}

/** After the suite's Failed report moved federated-iris to the backup: the policy moved too; then the key removed. */
export function networkPolicyAfterFailover(parts: () => FailoverSuiteParts): void {
    afterAll(() => watch.stop());
    test("the NetworkPolicy followed the failover (on the backup, gone from the first member); the key removed, up takes it off and narrows the Role", async () => {
        const { fleet, stack, report, first, backup } = parts();
        const policy = policyOn(fleet);
        await policy.arrives(backup);
        await policy.leaves(first);
        await watch.stop();
        report.record("failover: the NetworkPolicy on the backup, and gone from the first member (s after the Failed test began)", {
            onBackup_s: watch.seen.onBackup ?? -1,
            offFirst_s: watch.seen.offFirst ?? -1,
        });
        expect(watch.seen.onBackup).toBeDefined();

        await stack.setConfig("kamino:irisClusters", await withPolicy(stack, undefined));
        const t = Date.now();
        expect((await stack.up()).summary.result).toBe("succeeded");
        await policy.leaves(backup);
        report.record("networkPolicy removed: up, then the NetworkPolicy gone from the member", (Date.now() - t) / 1000);
        expect(await fleet.karmada.client.get(NP)).toBeUndefined();
        const role = await fleet.members
            .find((m) => m.name === backup)!
            .client.get<KubeObject & { rules?: Array<{ resources?: string[] }> }>(
                resourcePath("rbac.authorization.k8s.io/v1", "roles", { namespace: "default", name: `karmada-controller-manager:karmada-${backup}:default` }),
            );
        const resources = role?.rules?.flatMap((r) => r.resources ?? []) ?? [];
        expect(resources).toContain("irisclusters");
        expect(resources).not.toContain("networkpolicies");
    });
}
