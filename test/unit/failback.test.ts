// Failback, against a fake Karmada API that behaves as Karmada's scheduler does for a failover-placed
// IrisCluster: it resumes at the affinity group the binding observed, and reschedules when a
// WorkloadRebalancer names the workload.
import { failback, FailbackError, KarmadaRequest } from "../../components/karmada/failover/failback";
import { crdValidator, describeErrors } from "../support/karmada-schemas";

const BINDING = "/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings/federated-iris-iriscluster";
const groups = [
    { affinityName: "1-ikoclone", clusterNames: ["ikoclone"] },
    { affinityName: "2-ikodr", clusterNames: ["ikodr"] },
];

function fakeKarmada(opts: { on: string[]; observed?: string; clusterReady?: string; taints?: unknown[]; evicting?: string[] }) {
    const state = { clusters: opts.on, observed: opts.observed ?? "2-ikodr" };
    const calls: string[] = [];
    const request: KarmadaRequest = async (method, path, body, contentType) => {
        calls.push(`${method} ${path}${contentType ? ` (${contentType})` : ""}`);
        const ok = (o: unknown) => ({ status: 200, body: JSON.stringify(o) });
        if (method === "GET" && path === BINDING) {
            return ok({
                spec: {
                    clusters: state.clusters.map((name) => ({ name })),
                    placement: { clusterAffinities: groups },
                    gracefulEvictionTasks: (opts.evicting ?? []).map((fromCluster) => ({ fromCluster, creationTimestamp: "t" })),
                },
                status: { schedulerObservingAffinityName: state.observed },
            });
        }
        if (method === "GET" && path === "/apis/cluster.karmada.io/v1alpha1/clusters/ikoclone") {
            return ok({ spec: { taints: opts.taints ?? [] }, status: { conditions: [{ type: "Ready", status: opts.clusterReady ?? "True" }] } });
        }
        if (method === "PATCH" && path === `${BINDING}/status`) {
            state.observed = (body as { status: { schedulerObservingAffinityName: string } }).status.schedulerObservingAffinityName;
            return ok({});
        }
        if (method === "POST" && path === "/apis/apps.karmada.io/v1alpha1/workloadrebalancers") {
            // The scheduler: resume at the observed group, take its first feasible member.
            state.clusters = groups.find((g) => g.affinityName === state.observed)!.clusterNames;
            return { status: 201, body: "{}" };
        }
        return { status: 404, body: "" };
    };
    return { request, calls, state };
}
const fastClock = () => {
    let t = 0;
    return { now: () => t, sleep: async (ms: number) => void (t += ms) };
};

test("moves it back to the first member: the observed group is reset before the reschedule is asked for", async () => {
    const k = fakeKarmada({ on: ["ikodr"] });
    expect(await failback(k.request, "default/federated-iris", fastClock())).toEqual({ member: "ikoclone", from: ["ikodr"], moved: true });
    expect(k.state.clusters).toEqual(["ikoclone"]);
    const writes = k.calls.filter((c) => !c.startsWith("GET"));
    expect(writes).toEqual([`PATCH ${BINDING}/status (application/merge-patch+json)`, "POST /apis/apps.karmada.io/v1alpha1/workloadrebalancers"]);
});

test("already on the first member: nothing is written", async () => {
    const k = fakeKarmada({ on: ["ikoclone"], observed: "1-ikoclone" });
    expect(await failback(k.request, "default/federated-iris", fastClock())).toEqual({ member: "ikoclone", from: ["ikoclone"], moved: false });
    expect(k.calls.filter((c) => !c.startsWith("GET"))).toEqual([]);
});

test.each([
    ["the first member is not Ready", { clusterReady: "False" }, /ikoclone is not Ready in Karmada \(Ready=False\); fail back once it is/],
    [
        "the failover taint is still on it",
        { taints: [{ key: "cluster.karmada.io/not-ready", effect: "NoExecute" }] },
        /still has the failover taint cluster.karmada.io\/not-ready:NoExecute/,
    ],
    ["Karmada is still evicting from it", { evicting: ["ikoclone"] }, /still evicting IrisCluster default\/federated-iris from ikoclone .*try again then/],
])("refused, saying why, when %s", async (_, extra, message) => {
    const k = fakeKarmada({ on: ["ikodr"], ...extra });
    const error = await failback(k.request, "default/federated-iris", fastClock()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FailbackError);
    expect((error as Error).message).toMatch(message);
    expect(k.calls.filter((c) => !c.startsWith("GET"))).toEqual([]);
});

test("an IrisCluster that is not placed in failover mode, or a malformed name, is refused", async () => {
    const notFailover: KarmadaRequest = async () => ({
        status: 200,
        body: JSON.stringify({ spec: { clusters: [{ name: "a" }], placement: { clusterAffinity: { clusterNames: ["a"] } } } }),
    });
    await expect(failback(notFailover, "default/federated-iris")).rejects.toThrow(/is not placed in failover mode/);
    await expect(failback(notFailover, "federated-iris")).rejects.toThrow(/give the IrisCluster as namespace\/name/);
});

test("what failback writes is valid against Karmada's schemas (unknown fields would be pruned silently)", async () => {
    const writes: Array<{ path: string; body: unknown }> = [];
    const k = fakeKarmada({ on: ["ikodr"] });
    const recording: KarmadaRequest = (method, path, body, contentType) => {
        if (method !== "GET") writes.push({ path, body });
        return k.request(method, path, body, contentType);
    };
    await failback(recording, "default/federated-iris", fastClock());
    const binding = crdValidator("crds-v1.15.9/work.karmada.io_resourcebindings.yaml", "v1alpha2");
    const rebalancer = crdValidator("crds-v1.15.9/apps.karmada.io_workloadrebalancers.yaml");
    const [statusPatch, created] = writes;
    const asBinding = {
        apiVersion: "work.karmada.io/v1alpha2",
        kind: "ResourceBinding",
        metadata: { name: "x" },
        spec: { resource: { apiVersion: "v1", kind: "K", name: "n" } },
        ...(statusPatch.body as object),
    };
    expect([binding(asBinding), describeErrors(binding.errors)]).toEqual([true, []]);
    expect([rebalancer(created.body), describeErrors(rebalancer.errors)]).toEqual([true, []]);
    // The check bites: Karmada's Go field name is not its JSON name.
    expect(binding({ ...asBinding, status: { schedulerObservedAffinityName: "1-ikoclone" } })).toBe(false);
});
