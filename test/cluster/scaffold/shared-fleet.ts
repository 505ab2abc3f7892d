// One loopback fleet shared by the suites of one test file (started before the first suite, stopped
// after the last), and what each suite does with it: its own IKO player and engine sandbox, and at
// its end, if another suite follows, the fleet left as it found it (API servers answering, its stack
// destroyed, no object of its run left on any API server), so that the next suite passes or fails
// on its own. After the last suite the fleet is stopped instead.
import { Stack } from "@pulumi/pulumi/automation";
import { EngineSandbox, toolchainPath } from "../../support/engine";
import * as path from "path";
import { AgentPlayer, ApiServer, findBinaries, IkoPlayer, KubeObject, LoopbackFleet, LoopbackFleetOptions, waitFor } from "../harness";
import { SuiteReport } from "./report";

/** A fleet started by `sharedFleet`; `fleet` throws if its start failed. */
export interface SharedFleet {
    readonly fleet: LoopbackFleet;
    /** Registers a suite; returns whether another suite was registered after it (asked at its end). */
    register(): () => boolean;
}

/** One fleet for every suite of the calling test file: registers its start and stop. */
export function sharedFleet(options: LoopbackFleetOptions): SharedFleet {
    let started: LoopbackFleet | undefined;
    let suites = 0;
    beforeAll(async () => {
        const t = Date.now();
        const fleet = new LoopbackFleet(options);
        await fleet.start();
        started = fleet;
        process.stderr.write(`[shared fleet] ${fleet.members.length} member(s) up in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
    }, 10 * 60_000);
    afterAll(async () => {
        await started?.stop();
    }, 2 * 60_000);
    return {
        get fleet(): LoopbackFleet {
            if (!started) throw new Error("the shared loopback fleet did not start (see its beforeAll)");
            return started;
        },
        register() {
            const index = suites++;
            return () => index < suites - 1;
        },
    };
}

/** What one suite gets on a shared fleet. */
export interface FleetSuite {
    readonly fleet: LoopbackFleet;
    readonly sandbox: EngineSandbox;
    readonly iko: IkoPlayer;
    /** Plays kubelet for Pull members' agents, when the suite asked for it (`agents: true`). */
    readonly agents: AgentPlayer;
    readonly report: SuiteReport;
}

/** How a suite plays IKO: the report interval and options of its IkoPlayer. */
export interface FleetSuiteOptions {
    ikoIntervalMs?: number;
    ikoOptions?: ConstructorParameters<typeof IkoPlayer>[2];
    /** The suite's stacks, destroyed at its end if it left anything in them. */
    stacks: () => (Stack | undefined)[];
    /** Run karmada-agent for Deployments of Pull members (AgentPlayer); stopped after the stacks are destroyed. */
    agents?: boolean;
    /** Where an agent dials its own member, by member (AgentPlayer's memberServers): may be filled in until its agent starts. */
    agentServers?: Record<string, string>;
}

/**
 * Registers a suite's set-up and tear-down on a shared fleet: an IKO player and a sandbox of its
 * own, and at the end, when another suite follows, its stacks destroyed and the fleet as the suite
 * found it (checked).
 */
export function onSharedFleet(shared: SharedFleet, name: string, options: FleetSuiteOptions): FleetSuite {
    const report = new SuiteReport(name);
    const followed = shared.register();
    let sandbox: EngineSandbox | undefined;
    let iko: IkoPlayer | undefined;
    let agents: AgentPlayer | undefined;
    let before: Fingerprint | undefined;
    beforeAll(async () => {
        before = await fingerprint(shared.fleet);
        iko = new IkoPlayer(shared.fleet.members, options.ikoIntervalMs ?? 1000, options.ikoOptions).start();
        if (options.agents) {
            const dir = path.join(shared.fleet.dir, `agents-${name.replace(/\W+/g, "-")}`);
            agents = new AgentPlayer(shared.fleet.members, { binary: findBinaries()["karmada-agent"], dir, memberServers: options.agentServers }).start();
        }
        sandbox = new EngineSandbox(toolchainPath("engine"));
    }, 2 * 60_000);
    afterAll(async () => {
        report.print();
        try {
            await iko?.stop();
            if (!followed()) return;
            await restartStoppedApiServers(shared.fleet, report);
            for (const stack of options.stacks()) if (stack) await destroyLeftovers(stack, report);
            if (before) await expectAsFound(shared.fleet, before);
        } finally {
            // After the destroy: a Pull member's removal needs its agent to drain the member.
            await agents?.stop();
            sandbox?.cleanup();
        }
    }, 10 * 60_000);
    return {
        get fleet() {
            return shared.fleet;
        },
        get sandbox() {
            if (!sandbox) throw new Error(`${name}: no sandbox (its beforeAll failed)`);
            return sandbox;
        },
        get iko() {
            if (!iko) throw new Error(`${name}: no IKO player (its beforeAll failed)`);
            return iko;
        },
        get agents() {
            if (!agents) throw new Error(`${name}: no agent player (ask for one with agents: true)`);
            return agents;
        },
        report,
    };
}

/** An API server a failing suite left stopped (e.g. mid-outage) is started again. */
async function restartStoppedApiServers(fleet: LoopbackFleet, report: SuiteReport): Promise<void> {
    for (const s of servers(fleet)) {
        const answers = await s.client.request("GET", "/readyz").then(
            (r) => r.status === 200,
            () => false,
        );
        if (!answers) {
            report.note(`${s.name}'s API server was left stopped: starting it again`);
            await fleet.startApiServer(s.name);
        }
    }
}

/** A stack the suite did not destroy (it failed part-way, or has no destroy test) is destroyed. */
async function destroyLeftovers(stack: Stack, report: SuiteReport): Promise<void> {
    const state = await stack.exportStack();
    const resources = ((state.deployment as { resources?: Array<{ type: string }> }).resources ?? []).filter((r) => !r.type.startsWith("pulumi:"));
    if (resources.length === 0) return;
    await report.timed(`destroy stack ${stack.name} (${resources.length} resources left)`, () => stack.destroy());
}

const servers = (fleet: LoopbackFleet): ApiServer[] => [fleet.host, ...fleet.members, fleet.karmada];

/** What a suite may not leave behind: per API server, its namespaces, CRDs, ClusterRoles and Karmada's Clusters. */
type Fingerprint = Record<string, string[]>;

async function names(s: ApiServer, path: string): Promise<string[]> {
    const res = await s.client.request("GET", path);
    if (res.status === 404) return [];
    if (res.status !== 200) throw new Error(`GET ${path} on ${s.name}: HTTP ${res.status}`);
    return (JSON.parse(res.body).items as KubeObject[]).map((o) => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`).sort();
}

async function fingerprint(fleet: LoopbackFleet): Promise<Fingerprint> {
    const print: Fingerprint = {};
    for (const s of servers(fleet)) {
        print[`${s.name} namespaces`] = await names(s, "/api/v1/namespaces");
        print[`${s.name} CRDs`] = await names(s, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
        print[`${s.name} ClusterRoles`] = await names(s, "/apis/rbac.authorization.k8s.io/v1/clusterroles");
    }
    print["Karmada Clusters"] = await names(fleet.karmada, "/apis/cluster.karmada.io/v1alpha1/clusters");
    print["Karmada ResourceBindings"] = await names(fleet.karmada, "/apis/work.karmada.io/v1alpha2/resourcebindings");
    return print;
}

/** Waits (deletions are asynchronous) until the fleet's fingerprint is the one taken before the suite. */
async function expectAsFound(fleet: LoopbackFleet, before: Fingerprint): Promise<void> {
    await waitFor(
        "the fleet as the suite found it",
        async () => {
            const now = await fingerprint(fleet);
            const diff = Object.keys({ ...before, ...now }).flatMap((k) => {
                const was = new Set(before[k] ?? []);
                const is = new Set(now[k] ?? []);
                return [...[...is].filter((x) => !was.has(x)).map((x) => `${k}: + ${x}`), ...[...was].filter((x) => !is.has(x)).map((x) => `${k}: - ${x}`)];
            });
            if (diff.length) throw new Error(`left behind or removed: ${diff.join("; ")}`);
            return true;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
    );
}
