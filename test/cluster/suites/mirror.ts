// An IRIS mirror across the shared fleet's two members (real engine, real Karmada, IKO played by the
// harness, waiting for what each IrisCluster mounts), added to an IrisCluster that runs (which stays,
// as the pair: Pulumi aliases it, nothing is replaced): the failover pair pinned on one member, the DR
// IrisCluster on the other with the merge file that joins it to the mirror at the pair's address,
// each member's mirror Service only where its pods are. Then a promotion's fence, by `npm run
// promote`'s own code (components/mirror/promote.ts) while the pair's member is down: the pair
// withdrawn from Karmada, deleted on its member once that is back, and the next `up` with
// `mirror.promoted` leaving the DR member's objects exactly as they were. Then failback's first step
// (`mirror.rejoin`): the pair back on its member, its configSource carrying ValidatedMember=0.
// Members are existing clusters, so the stack gives the addresses they reach each other at
// (`mirror.addresses`).
import { parseMirrors } from "../../../components/mirror/mirror-state";
import { KarmadaRequest, memberState, withdrawPair } from "../../../components/mirror/promote";
import { EngineSandbox } from "../../support/engine";
import { KubeClient, KubeObject, LoopbackFleet, resourcePath, waitFor } from "../harness";
import { SuiteReport } from "../scaffold/report";
import { onSharedFleet, SharedFleet } from "../scaffold/shared-fleet";
import { existingFleetKeys, IRIS_IMAGE } from "../loopback-stack";

const PRIMARY = "ikoclone";
const DR = "ikoclone2";
/** The members of the shared fleet. */
export const MIRROR_MEMBERS = [PRIMARY, DR];
const NS = "mirror";
const WAIT = { timeoutMs: 120_000, intervalMs: 500 };
const ADDRESSES = { [PRIMARY]: "10.250.0.5", [DR]: "10.250.1.5" };
/** The pair's policy: the stack's name, which promote finds through Karmada's annotation on the template. */
const PAIR_POLICY = "iris-pair";

type Obj = KubeObject & { data?: Record<string, string>; spec?: Record<string, any>; status?: { phase?: string } };
const iris = (name: string) => resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: NS, name });
const configMap = (name: string) => resourcePath("v1", "configmaps", { namespace: NS, name });
const service = (name: string) => resourcePath("v1", "services", { namespace: NS, name });

let fleet: LoopbackFleet;
let sandbox: EngineSandbox;
let stack: Awaited<ReturnType<EngineSandbox["stack"]>>;
let report: SuiteReport;
const member = (name: string): KubeClient => fleet.members.find((m) => m.name === name)!.client;

/** The stack: IrisCluster `iris` with a mirror (its keys over the suite's), or placed on PRIMARY as a plain IrisCluster. */
function stackConfig(mirror: Record<string, unknown> | undefined): Record<string, unknown> {
    return {
        ...existingFleetKeys(fleet),
        "kamino:irisClusters": [
            {
                name: "iris",
                namespace: NS,
                image: IRIS_IMAGE,
                policyName: PAIR_POLICY,
                ...(mirror ? { mirror: { primary: PRIMARY, drAsync: [DR], addresses: ADDRESSES, ...mirror } } : { placement: { clusterNames: [PRIMARY] } }),
                runningTimeoutSeconds: 120,
            },
        ],
    };
}

const on = async (m: string, path: string) => member(m).get<Obj>(path);
const present = (m: string, path: string) => waitFor(`${path} on ${m}`, async () => ((await on(m, path)) ? true : undefined), WAIT);
const gone = (m: string, path: string) => waitFor(`${path} gone from ${m}`, async () => ((await on(m, path)) ? undefined : true), WAIT);

/**
 * A promotion's fence, as `npm run promote` makes it while the pair's member is down, and the next
 * `up` with what it recorded (`mirror.promoted`).
 */
async function promotionFence(): Promise<void> {
    const before = { iris: await on(DR, iris("iris-ikoclone2")), cpf: await on(DR, configMap("iris-ikoclone2-mirror")) };
    const mirror = parseMirrors((await stack.outputs()).mirrors.value)[0];
    const karmada: KarmadaRequest = (method, p, body, contentType) => fleet.karmada.client.request(method, p, body, contentType);
    // Karmada's annotation names the pair's policy (a policyName of the stack's, not Kamino's default).
    expect((await fleet.karmada.client.get<Obj>(iris("iris")))?.metadata?.annotations?.["propagationpolicy.karmada.io/name"]).toBe(PAIR_POLICY);
    expect(await memberState(karmada, PRIMARY)).toBe("Ready");
    await fleet.stopApiServer(PRIMARY);
    try {
        await report.timed(`${PRIMARY} not Ready in Karmada`, () =>
            waitFor(`${PRIMARY} not Ready`, async () => ((await memberState(karmada, PRIMARY)) !== "Ready" ? true : undefined), {
                timeoutMs: 300_000,
                intervalMs: 500,
            }),
        );
        expect(await report.timed("withdraw the pair (npm run promote's fence)", () => withdrawPair(karmada, mirror))).toBe(
            `IrisCluster iris deleted, PropagationPolicy ${PAIR_POLICY} deleted`,
        );
    } finally {
        await fleet.startApiServer(PRIMARY);
    }
    await report.timed("the pair deleted from its member once it is back", () => gone(PRIMARY, iris("iris")));
    // A second withdrawal (a promote run twice) changes nothing (with the template gone, the policy is named by Kamino's default).
    expect(await withdrawPair(karmada, mirror)).toMatch(/^IrisCluster iris already gone, PropagationPolicy \S+ already gone$/);

    // What promote recorded: the next up declares no pair and drops it from state; the Service goes too.
    await stack.setConfig("kamino:irisClusters", { value: JSON.stringify(stackConfig({ promoted: DR })["kamino:irisClusters"]) });
    const up = await report.timed("up: promoted, the pair fenced", () => stack.up());
    expect(up.summary.result).toBe("succeeded");
    // Only deletions: nothing of the DR member was updated or replaced.
    expect(Object.keys(up.summary.resourceChanges ?? {}).filter((op) => op !== "same")).toEqual(["delete"]);
    await gone(PRIMARY, service("iris-mirror"));
    const after = { iris: await on(DR, iris("iris-ikoclone2")), cpf: await on(DR, configMap("iris-ikoclone2-mirror")) };
    expect(after.iris?.metadata?.uid).toBe(before.iris?.metadata?.uid);
    expect(after.iris?.spec).toEqual(before.iris?.spec);
    expect(after.cpf?.data).toEqual(before.cpf?.data);
    expect((await stack.outputs()).mirrors.value[`${NS}/iris`]).toMatchObject({ promoted: DR });
}

/** The mirror suite's tests, on the shared fleet. */
export function mirrorSuite(shared: SharedFleet): void {
    const suite = onSharedFleet(shared, "mirror", { ikoOptions: { waitForNeeds: true }, stacks: () => [stack] });
    beforeAll(async () => {
        ({ fleet, sandbox, report } = suite);
        stack = await sandbox.stack("mirror", undefined, stackConfig(undefined));
    }, 10 * 60_000);

    test("a mirror added to a running IrisCluster keeps it as the pair (same object on its member); the DR IrisCluster on the other member joins at the pair's address; each Service where its pods are", async () => {
        expect((await report.timed("up: a plain IrisCluster", () => stack.up())).summary.result).toBe("succeeded");
        const plain = await on(PRIMARY, iris("iris"));
        await stack.setConfig("kamino:irisClusters", { value: JSON.stringify(stackConfig({})["kamino:irisClusters"]) });
        const up = await report.timed("up: a mirror over two members", () => stack.up());
        expect(up.summary.result).toBe("succeeded");
        // Not replaced: a replaced template would be deleted from the member, and IRIS's data with it.
        expect(Object.keys(up.summary.resourceChanges ?? {}).filter((op) => !["same", "create", "update"].includes(op))).toEqual([]);
        expect((await on(PRIMARY, iris("iris")))?.metadata?.uid).toBe(plain?.metadata?.uid);
        // `up` waited for both IrisClusters to run, each on its own member only.
        expect((await on(PRIMARY, iris("iris")))?.spec?.topology?.data?.mirrored).toBe(true);
        expect(await on(DR, iris("iris"))).toBeUndefined();
        const dr = await on(DR, iris("iris-ikoclone2"));
        expect(dr?.spec?.configSource).toEqual({ name: "iris-ikoclone2-mirror" });
        expect(dr?.spec?.topology?.data?.mirrored).toBeUndefined();
        expect(await on(PRIMARY, iris("iris-ikoclone2"))).toBeUndefined();
        expect((await on(DR, configMap("iris-ikoclone2-mirror")))?.data?.["data.cpf"]).toContain(
            `ConfigMirror:Name=IRISMIRROR1,Member=drasync,Primary=${ADDRESSES[PRIMARY]}\n`,
        );
        expect((await on(PRIMARY, service("iris-mirror")))?.spec).toMatchObject({ type: "LoadBalancer", loadBalancerIP: ADDRESSES[PRIMARY] });
        expect(await on(DR, service("iris-mirror"))).toBeUndefined();
        await present(DR, service("iris-ikoclone2-mirror"));
        expect((await stack.outputs()).mirrors.value).toEqual({
            [`${NS}/iris`]: { name: "IRISMIRROR1", primary: PRIMARY, pair: "iris", drAsync: { [DR]: "iris-ikoclone2" }, configIndex: 0 },
        });
    });

    test(
        "a promotion's fence: with the pair's member down, the promotion's own code withdraws the pair from Karmada; back, the member has it deleted; the next up with mirror.promoted drops it from state and leaves the DR member as it was",
        promotionFence,
    );

    test("failback's first step (mirror.rejoin): the pair back on its member, taking its role from the promoted member (ValidatedMember=0)", async () => {
        await stack.setConfig("kamino:irisClusters", { value: JSON.stringify(stackConfig({ promoted: DR, rejoin: true })["kamino:irisClusters"]) });
        const up = await report.timed("up: the pair rejoins", () => stack.up());
        expect(up.summary.result).toBe("succeeded");
        const pair = await on(PRIMARY, iris("iris"));
        expect(pair?.spec?.configSource).toEqual({ name: "iris-mirror" });
        expect((await on(PRIMARY, configMap("iris-mirror")))?.data).toEqual({ "data.cpf": "[MirrorMember]\nValidatedMember=0\n" });
        expect(await on(DR, configMap("iris-mirror"))).toBeUndefined();
    });

    test("destroy takes every mirror object off both members", async () => {
        const down = await report.timed("destroy", () => stack.destroy());
        expect(down.summary.result).toBe("succeeded");
        for (const m of MIRROR_MEMBERS)
            for (const p of [iris("iris"), iris("iris-ikoclone2"), configMap("iris-mirror"), configMap("iris-ikoclone2-mirror")]) await gone(m, p);
    });
}
