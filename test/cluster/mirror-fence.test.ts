// The fence of `npm run promote` against a real Karmada (the loopback fleet: real kube-apiservers,
// Karmada v1.18's controllers, no nodes): a pair IrisCluster propagated to its member by a
// PropagationPolicy whose name is not Kamino's default (as kamino:irisClusters[].policyName allows);
// the member's API server is stopped until Karmada reports it not Ready; then the promotion's own
// code (components/mirror/promote.ts: memberState, withdrawPair) reads the member's state, finds the
// policy by Karmada's annotation on the template and deletes both from the Karmada API. Proven: the
// annotation names the policy; the withdrawal needs no member; the IrisCluster stays on the member
// while it is down and is deleted there once it is back; a second withdrawal finds both gone.
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { parseMirrors } from "../../components/mirror/mirror-state";
import { KarmadaRequest, memberState, withdrawPair } from "../../components/mirror/promote";
import { clusterCondition, joinCluster, KarmadaClusterObject, KubeObject, LoopbackFleet, resourcePath, waitFor } from "./harness";

jest.setTimeout(10 * 60_000);

const MEMBER = "ikoclone";
const POLICY = "iriscluster-propagate";
const MIRROR = parseMirrors({ "default/iris": { name: "IRISMIRROR1", primary: MEMBER, pair: "iris", drAsync: { ikodr: "iris-ikodr" }, configIndex: 0 } })[0];
const IRIS = resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default", name: "iris" });
const CRD = parse(fs.readFileSync(path.join(__dirname, "../fixtures/iris-operator/templates/irisclusters-crd.yaml"), "utf8")) as KubeObject;
const CLUSTER = resourcePath("cluster.karmada.io/v1alpha1", "clusters", { name: MEMBER });

let fleet: LoopbackFleet;
let karmada: KarmadaRequest;
const member = () => fleet.members[0].client;
/** A wait that does not watch the fleet's processes (one API server is stopped on purpose). */
const until = (what: string, check: () => Promise<true | undefined>, timeoutMs: number) => waitFor(what, check, { timeoutMs, intervalMs: 500 });
const ready = async () => clusterCondition(await fleet.karmada.client.get<KarmadaClusterObject>(CLUSTER), "Ready")?.status;

beforeAll(async () => {
    fleet = await new LoopbackFleet({ members: [MEMBER] }).start();
    const k = fleet.karmada.client;
    karmada = (method, p, body, contentType) => k.request(method, p, body, contentType);
    const crdPath = resourcePath("apiextensions.k8s.io/v1", "customresourcedefinitions", { name: "irisclusters.intersystems.com" });
    await k.apply(crdPath, CRD);
    await member().apply(crdPath, CRD);
    await joinCluster({ clusterName: MEMBER, member: member(), karmada: k, apiEndpoint: fleet.members[0].server });
    await fleet.waitFor(`Cluster ${MEMBER} Ready`, async () => ((await ready()) === "True" ? true : undefined), 180_000, 250);
});

afterAll(async () => {
    await fleet?.stop();
});

test("the pair is propagated by its policy, and Karmada's annotation on the template names that policy", async () => {
    const k = fleet.karmada.client;
    await k.create(resourcePath("policy.karmada.io/v1alpha1", "propagationpolicies", { namespace: "default" }), {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: POLICY, namespace: "default" },
        spec: {
            resourceSelectors: [{ apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster", name: "iris" }],
            placement: { clusterAffinity: { clusterNames: [MEMBER] } },
        },
    });
    await k.create(resourcePath("intersystems.com/v1alpha1", "irisclusters", { namespace: "default" }), {
        apiVersion: "intersystems.com/v1alpha1",
        kind: "IrisCluster",
        metadata: { name: "iris", namespace: "default" },
        spec: { topology: { data: { image: "containers.intersystems.com/intersystems/iris-community:2025.1", mirrored: true } } },
    });
    await fleet.waitFor(`IrisCluster iris on ${MEMBER}`, () => member().get(IRIS), 120_000, 250);
    const template = await k.get(IRIS);
    expect(template?.metadata?.annotations?.["propagationpolicy.karmada.io/name"]).toBe(POLICY);
});

test("with the member down (not Ready in Karmada), the pair is withdrawn from the Karmada API; the member gets it deleted when it is back", async () => {
    expect(await memberState(karmada, MEMBER)).toBe("Ready");
    await fleet.stopApiServer(MEMBER);
    const t0 = Date.now();
    await until(`Cluster ${MEMBER} not Ready`, async () => ((await memberState(karmada, MEMBER)) !== "Ready" ? true : undefined), 300_000);
    console.log(`${MEMBER} not Ready in Karmada ${((Date.now() - t0) / 1000).toFixed(1)} s after its API server stopped`);

    const t1 = Date.now();
    expect(await withdrawPair(karmada, MIRROR)).toBe(`IrisCluster iris deleted, PropagationPolicy ${POLICY} deleted`);
    console.log(`withdrawal from the Karmada API: ${Date.now() - t1} ms`);
    await until("the template gone from Karmada", async () => ((await fleet.karmada.client.get(IRIS)) ? undefined : true), 60_000);
    const policy = resourcePath("policy.karmada.io/v1alpha1", "propagationpolicies", { namespace: "default", name: POLICY });
    // Karmada's finalizer lets the policy go a moment after the delete.
    await until("the policy gone from Karmada", async () => ((await fleet.karmada.client.get(policy)) ? undefined : true), 60_000);

    await fleet.startApiServer(MEMBER);
    // While Karmada has not reached it again, the member still has the pair (what the fence's docs say).
    expect(await member().get(IRIS)).toBeDefined();
    const t2 = Date.now();
    await until(`IrisCluster iris deleted from ${MEMBER}`, async () => ((await member().get(IRIS)) ? undefined : true), 300_000);
    console.log(`the pair deleted from ${MEMBER} ${((Date.now() - t2) / 1000).toFixed(1)} s after its API server was back`);
});

test("a second withdrawal finds both gone and changes nothing", async () => {
    expect(await withdrawPair(karmada, MIRROR)).toBe("IrisCluster iris already gone, PropagationPolicy iris-propagate already gone");
});
