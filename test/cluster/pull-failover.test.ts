// Failover when the primary joins by Pull, at Kamino's failure-detection default (12 s): Pulumi.dr.yaml's
// federated-iris on ikoclone, then ikodr, both joined by Pull with the real karmada-agent played by the
// harness. A 5 s blink of ikoclone's API server changes nothing; losing its agent (the member's API
// up, Karmada hears nothing: Ready Unknown after the Lease grace) and losing its API server (the
// agent alive, reporting the failure: Ready False after its threshold) each move federated-iris to
// ikodr within the time below; after each return the agent removes the stale copy and one command
// fails back. `destroy` leaves nothing. A fleet of its own, so that it runs beside the shared one.
import { execFile } from "child_process";
import * as path from "path";
import { promisify } from "util";
import { REPO } from "../support/engine";
import { apiServerDown, clusterOf, comeBack, copyOn, Fault, goneFrom, outage, placementOf, runsOn } from "./failover-scenario";
import { LoopbackFleet, resourcePath } from "./harness";
import { loopbackStack } from "./loopback-stack";
import { FleetSuite, onSharedFleet, sharedFleet } from "./scaffold/shared-fleet";

jest.setTimeout(30 * 60_000);

const FIRST = "ikoclone";
const BACKUP = "ikodr";
const ID = "default/federated-iris";
/** The target for the median on a quiet machine is 25 s; CI shares two cores with another fleet. */
const FAILOVER_LIMIT_S = 45;

const shared = sharedFleet({ hostName: "ikofett", members: [FIRST, BACKUP] });
let suite: FleetSuite;
let fleet: LoopbackFleet;
let stack: Awaited<ReturnType<typeof loopbackStack>>;

describe("failover of a Pull member", () => {
    suite = onSharedFleet(shared, "pull-failover", { stacks: () => [stack], agents: true, ikoIntervalMs: 250 });
    beforeAll(async () => {
        fleet = suite.fleet;
        stack = await loopbackStack(suite.sandbox, fleet, "pull-dr", {
            irisClustersFrom: "Pulumi.dr.yaml",
            syncModes: { [FIRST]: "Pull", [BACKUP]: "Pull" },
            runningTimeoutSeconds: 120,
        });
    }, 10 * 60_000);

    const agentLost = (): Fault => ({ cut: () => suite.agents.pause(FIRST), restore: async () => suite.agents.resume(FIRST) });
    /** `npm run failback`, as a user runs it (its own process, the stack's outputs). */
    const failBack = async () => {
        const t = Date.now();
        const { stdout } = await promisify(execFile)(process.execPath, ["-r", "ts-node/register/transpile-only", path.join(REPO, "commands/failback.ts"), ID, "--stack", "pull-dr"], {
            cwd: suite.sandbox.project,
            env: { ...process.env, ...suite.sandbox.env, TS_NODE_PROJECT: path.join(REPO, "tsconfig.json") },
        });
        expect(stdout).toMatch(new RegExp(`^IrisCluster ${ID} moved from ${BACKUP} to ${FIRST}`));
        await runsOn(fleet, ID, FIRST);
        await goneFrom(fleet, ID, BACKUP);
        return (Date.now() - t) / 1000;
    };

    test("up: federated-iris runs on the Pull primary", async () => {
        await suite.report.timed("up", () => stack.up());
        await runsOn(fleet, ID, FIRST);
        expect((await clusterOf(fleet, FIRST))?.spec).toMatchObject({ syncMode: "Pull" });
    });

    test("a 5 s blink of the primary's API server: still Ready, still placed there, never evicted", async () => {
        const notReady: string[] = [];
        const frozen = fleet.freezeApiServer(FIRST, 5_000);
        const until = Date.now() + 25_000;
        while (Date.now() < until) {
            const ready = (await clusterOf(fleet, FIRST))?.status?.conditions?.find((c) => c.type === "Ready");
            if (ready?.status !== "True") notReady.push(`${ready?.status} since ${ready?.lastTransitionTime}`);
            const p = await placementOf(fleet, ID);
            expect(p.clusters).toEqual([FIRST]);
            await new Promise((r) => setTimeout(r, 250));
        }
        await frozen;
        expect(notReady).toEqual([]);
        expect(await copyOn(fleet, FIRST, ID)).toBeDefined();
    });

    test.each([
        ["its agent is lost (Karmada hears nothing)", "agent"],
        ["its API server is lost (the agent reports it)", "apiserver"],
    ])("%s: federated-iris moves to the backup, the returning member drops its copy, failback", async (_what, kind) => {
        const fault = kind === "agent" ? agentLost() : apiServerDown(fleet, FIRST);
        await runsOn(fleet, ID, FIRST); // where the last step left it
        let away: Awaited<ReturnType<typeof outage>>;
        let ready: string | undefined;
        try {
            away = await outage(fleet, ID, FIRST, BACKUP, 180_000, fault);
            ready = (await clusterOf(fleet, FIRST))?.status?.conditions?.find((c) => c.type === "Ready")?.status;
            suite.report.record(`Pull primary, ${kind} lost: outage timeline (s)`, { ...away });
        } finally {
            // The member comes back whatever was seen, so that the next test starts from a whole fleet.
            const back = await comeBack(fleet, ID, FIRST, 180_000, fault);
            suite.report.record(`Pull primary, ${kind} back: return timeline (s)`, { ...back });
        }
        suite.report.record(`Pull primary, ${kind}: failback (s)`, await failBack());
        // A dead agent reads Unknown, a failed member API False (notes §9a); either is tainted.
        expect(ready).toBe(kind === "agent" ? "Unknown" : "False");
        expect(away.notReady_s).toBeLessThanOrEqual(30);
        // The toleration counts from the taint's timeAdded, which has whole seconds.
        expect(away.evicted_s - away.tainted_s).toBeGreaterThanOrEqual(8);
        expect(away.failover_s).toBeLessThanOrEqual(FAILOVER_LIMIT_S);
    });

    test("destroy leaves nothing of the Pull joins on Karmada or the members", async () => {
        await suite.report.timed("destroy", () => stack.destroy());
        for (const m of [FIRST, BACKUP]) {
            expect(await clusterOf(fleet, m)).toBeUndefined();
            expect(await copyOn(fleet, m, ID)).toBeUndefined();
            const member = fleet.members.find((x) => x.name === m)!.client;
            expect(await member.get(resourcePath("apps/v1", "deployments", { namespace: "karmada-system", name: "karmada-agent" }))).toBeUndefined();
        }
    });
});
