// A Pull member whose karmada-agent is a real pod: the member is a real-node cluster, and nothing
// plays kubelet for the agent. Kamino's Deployment runs on the member's node from an image built
// here; the agent reaches its member's API through the in-cluster Service (kube-proxy) with its
// ServiceAccount's token, and the Karmada API at `kamino:karmada.endpoint`, an address on the
// real-node network (as kind members reach a kind host on the `kind` network), behind a TCP load
// balancer in front of the loopback Karmada. Proven: `up` joins it (the agent registers its Cluster
// and Karmada reports it Ready), federated-iris is propagated to it and reported Running, a no-op
// `up` changes nothing, and `destroy` takes the agent and its Cluster away.
import { EngineSandbox, toolchainPath } from "../support/engine";
import { IkoPlayer, LoadBalancer, LoopbackFleet, resourcePath, waitFor } from "./harness";
import { PortAllocator } from "./harness/ports";
import { loopbackStack } from "./loopback-stack";
import { RealNodeCluster, RealNodes } from "./nodes";
import { Pod } from "./nodes/pods";

jest.setTimeout(15 * 60_000);

const MEMBER = "ikoreal";
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "federated-iris" });
const CLUSTER = resourcePath("cluster.karmada.io/v1alpha1", "clusters", { name: MEMBER });

let nodes: RealNodes | undefined;
let fleet: LoopbackFleet;
let member: RealNodeCluster;
let balancer: LoadBalancer;
let sandbox: EngineSandbox;
let iko: IkoPlayer;
let stack: Awaited<ReturnType<typeof loopbackStack>>;

beforeAll(async () => {
    nodes = RealNodes.create();
    // The loopback fleet's own member stays out of the stack; its Karmada's certificate names the network's gateway.
    fleet = new LoopbackFleet({ hostName: "ikofett", members: ["unused"], karmadaAddresses: [nodes.network.gateway] });
    await fleet.start();
    member = await nodes.cluster({ name: MEMBER, nodes: [{ zone: "zone-a" }] });
    balancer = await new LoadBalancer(fleet.karmada.port, await new PortAllocator().next(), nodes.network.gateway).start();
    sandbox = new EngineSandbox(toolchainPath("engine"));
    iko = new IkoPlayer([member.api], 0).start();
    stack = await loopbackStack(
        sandbox,
        { host: fleet.host, hostKubeconfig: fleet.hostKubeconfig, karmadaKubeconfig: fleet.karmadaKubeconfig, members: [member.api] },
        "pull-pod",
        {
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
    // The agent's connections (a pod's, from the network) came through the balancer on the gateway.
    expect(balancer.connections).toBeGreaterThan(throughBalancer);
});

test("a no-op up changes nothing", async () => {
    const result = await stack.up();
    expect(result.summary.resourceChanges).not.toHaveProperty("update");
    expect(result.summary.resourceChanges).not.toHaveProperty("create");
    expect(result.summary.resourceChanges).not.toHaveProperty("delete");
});

test("destroy removes the agent pod and its Cluster", async () => {
    await stack.destroy();
    await waitFor("the agent's pods gone", async () => ((await agentPods()).length === 0 ? true : undefined), { timeoutMs: 120_000, intervalMs: 1000 });
    expect(await fleet.karmada.client.get(CLUSTER)).toBeUndefined();
});
