// A Pull member whose karmada-agent is a real pod: the member is a real-node cluster, and nothing
// plays kubelet for the agent. Kamino's Deployment runs on the member's node from an image built
// here; the agent reaches its member's API through the in-cluster Service (kube-proxy) with its
// ServiceAccount's token, and the Karmada API at `kamino:karmada.endpoint`, an address on the
// real-node network (as kind members reach a kind host on the `kind` network), behind a TCP load
// balancer in front of the loopback Karmada. federated-iris is placed as Pulumi.dr.yaml places it,
// in failover mode on [ikoreal (this member), ikodr (a loopback member of the fleet, Push, IKO
// played)]. Proven: `up` joins it (the agent registers its Cluster and Karmada reports it Ready),
// federated-iris is propagated to it and reported Running, a no-op `up` changes nothing; its node
// loses power (kubelet, containerd and the agent's container killed at once), so the agent stops
// renewing its Lease, Karmada marks the Cluster not Ready, Kamino's taint policy fires and
// federated-iris moves to ikodr and is reported Running there (timed); the node's power back, the
// agent drops the stale copy; and `destroy` takes the agent and its Cluster away.
import { EngineSandbox, toolchainPath } from "../support/engine";
import { clusterOf, comeBack, copyOn, Fault, FleetView, outage, OutageTimeline, runsOn } from "./failover-scenario";
import { IkoPlayer, LoadBalancer, LoopbackFleet, resourcePath, waitFor } from "./harness";
import { PortAllocator } from "./harness/ports";
import { loopbackStack } from "./loopback-stack";
import { RealNodeCluster, RealNodes } from "./nodes";
import { Pod } from "./nodes/pods";
import { nodeTasks } from "../support/node-sweep";

jest.setTimeout(15 * 60_000);

const MEMBER = "ikoreal";
/** The backup of Pulumi.dr.yaml's failover placement, a loopback member (Push, IKO played by the harness). */
const BACKUP = "ikodr";
const ID = "default/federated-iris";
/** pull-failover.test.ts's limit for a Pull primary (the target median is 25 s; CI shares two cores with another fleet). */
const FAILOVER_LIMIT_S = 45;
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const CLUSTER = resourcePath("cluster.karmada.io/v1alpha1", "clusters", { name: MEMBER });

let nodes: RealNodes | undefined;
let fleet: LoopbackFleet;
let member: RealNodeCluster;
let balancer: LoadBalancer;
let sandbox: EngineSandbox;
let iko: IkoPlayer;
let stack: Awaited<ReturnType<typeof loopbackStack>>;
/** Karmada with both members: the real-node one and the fleet's loopback backup. */
let view: FleetView;

beforeAll(async () => {
    nodes = RealNodes.create();
    // The loopback fleet's own member is the backup; its Karmada's certificate names the network's gateway.
    fleet = new LoopbackFleet({ hostName: "ikofett", members: [BACKUP], karmadaAddresses: [nodes.network.gateway] });
    await fleet.start();
    member = await nodes.cluster({ name: MEMBER, nodes: [{ zone: "zone-a" }] });
    balancer = await new LoadBalancer(fleet.karmada.port, await new PortAllocator().next(), nodes.network.gateway).start();
    sandbox = new EngineSandbox(toolchainPath("engine"));
    view = { karmada: fleet.karmada, members: [member.api, ...fleet.members] };
    iko = new IkoPlayer(view.members, 0).start();
    stack = await loopbackStack(
        sandbox,
        { host: fleet.host, hostKubeconfig: fleet.hostKubeconfig, karmadaKubeconfig: fleet.karmadaKubeconfig, members: view.members },
        "pull-pod",
        {
            irisClustersFrom: "Pulumi.dr.yaml",
            playedBy: { ikoclone: MEMBER },
            runningTimeoutSeconds: 240,
            syncModes: { [MEMBER]: "Pull" },
            karmadaEndpoint: balancer.endpoint,
        },
    );
}, 10 * 60_000);

afterAll(async () => {
    await iko?.stop();
    sandbox?.cleanup();
    await balancer?.stop();
    await fleet?.stop();
    await nodes?.close();
});

/** The member's karmada-agent pods. */
async function agentPods(): Promise<Pod[]> {
    const list = (await member.client.get(`${resourcePath("v1", "pods", { namespace: "karmada-system" })}?labelSelector=app%3Dkarmada-agent`)) as unknown as {
        items: Pod[];
    };
    return list.items;
}

test("up joins the member through a real karmada-agent pod, and federated-iris runs there", async () => {
    const throughBalancer = balancer.connections;
    const result = await stack.up();
    expect(result.outputs.runningOn.value).toEqual({ "default/federated-iris": [MEMBER] });
    const pods = await agentPods();
    expect(pods.map((p) => ({ node: p.spec?.nodeName, phase: p.status?.phase, ready: p.status?.containerStatuses?.[0]?.ready }))).toEqual([
        { node: member.nodes[0].name, phase: "Running", ready: true },
    ]);
    const cluster = (await fleet.karmada.client.get(CLUSTER)) as { spec?: { syncMode?: string }; status?: { conditions?: { type: string; status: string }[] } };
    expect(cluster.spec?.syncMode).toBe("Pull");
    expect(cluster.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(await member.client.get(IRIS)).toBeDefined();
    expect(await copyOn(view, BACKUP, ID)).toBeUndefined();
    // The agent's connections (a pod's, from the network) came through the balancer on the gateway.
    expect(balancer.connections).toBeGreaterThan(throughBalancer);
});

test("a no-op up changes nothing", async () => {
    const result = await stack.up();
    expect(result.summary.resourceChanges).not.toHaveProperty("update");
    expect(result.summary.resourceChanges).not.toHaveProperty("create");
    expect(result.summary.resourceChanges).not.toHaveProperty("delete");
});

test("the member's node loses power: federated-iris moves to the backup and runs there; power back, the agent drops the stale copy", async () => {
    const node = member.nodes[0];
    await runsOn(view, ID, MEMBER);
    let killed = 0;
    let atCut = { tasks: 0, sockets: 0 };
    const powerCut: Fault = {
        cut: async () => {
            killed = await node.powerOff();
            const tasks = nodeTasks(node.layout.dir);
            atCut = { tasks: tasks.length, sockets: tasks.filter((t) => t.socket).length };
        },
        restore: () => node.powerOn(),
    };
    let away: OutageTimeline | undefined;
    let ready: string | undefined;
    try {
        away = await outage(view, ID, MEMBER, BACKUP, 180_000, powerCut);
        ready = (await clusterOf(view, MEMBER))?.status?.conditions?.find((c) => c.type === "Ready")?.status;
        console.log(`${MEMBER}'s node powered off (${killed} processes killed): federated-iris Running on ${BACKUP} after (s) ${JSON.stringify(away)}`);
    } finally {
        // Power comes back whatever was seen, so that destroy finds the agent to take away; when the
        // failover already failed, its error is the one reported.
        const back = await comeBack(view, ID, MEMBER, 240_000, powerCut).catch((e: Error) => {
            if (away) throw e;
            console.log(`${MEMBER} did not come back either: ${e.message}`);
        });
        if (back) console.log(`${MEMBER}'s node powered on: its Cluster Ready and the stale copy gone after (s) ${JSON.stringify(back)}`);
    }
    // The kubelet, kube-proxy, containerd, its shims and the pods' processes (pause, the agent, CoreDNS).
    expect(killed).toBeGreaterThanOrEqual(6);
    // The dead tasks stay in containerd's state until it restarts; their shims' sockets went with the power.
    expect(atCut.tasks).toBeGreaterThan(0);
    expect(atCut.sockets).toBe(0);
    // A silent agent reads Unknown (notes §9a), which the taint policy taints.
    expect(ready).toBe("Unknown");
    expect(away!.notReady_s).toBeLessThanOrEqual(30);
    // The toleration (failoverAfterSeconds: 10) counts from the taint's timeAdded, which has whole seconds.
    expect(away!.evicted_s - away!.tainted_s).toBeGreaterThanOrEqual(8);
    expect(away!.failover_s).toBeLessThanOrEqual(FAILOVER_LIMIT_S);
    // Nothing fails back by itself; the agent runs again on the node.
    await runsOn(view, ID, BACKUP);
    await waitFor("the agent pod Running again", async () => ((await agentPods()).some((p) => p.status?.containerStatuses?.[0]?.ready) ? true : undefined), {
        timeoutMs: 120_000,
        intervalMs: 1000,
    });
});

test("destroy removes the agent pod and its Cluster", async () => {
    await stack.destroy();
    await waitFor("the agent's pods gone", async () => ((await agentPods()).length === 0 ? true : undefined), { timeoutMs: 120_000, intervalMs: 1000 });
    expect(await fleet.karmada.client.get(CLUSTER)).toBeUndefined();
});
