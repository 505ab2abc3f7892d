// The whole `npm run promote` on a fleet, as an operator runs it after a site loss: a loopback
// Karmada and primary member (ikoclone), and a DR member on a real node (ikodr) whose DR data pod,
// named as IKO names it, holds the stand-in `iris` (test/cluster/nodes/images.ts). `pulumi up` lays
// the mirror (IKO played by the harness; the pod made here, as IKO would make it); the primary's API
// server is then stopped for good, Karmada marks it not Ready, and the command runs in a process of
// its own against the stack. Shared by mirror-promote-pod.test.ts (asserted) and `npm run bench`
// (promote_s), so that the bench row is the code CI runs.
import { memberState } from "../../components/mirror/promote";
import { EngineSandbox } from "../support/engine";
import { CommandRun, runCommand } from "./chaos";
import { IkoPlayer, KubeObject, LoopbackFleet, waitFor } from "./harness";
import { existingFleetKeys, IRIS_IMAGE } from "./loopback-stack";
import { IRIS_STANDIN_IMAGE, RealNodeCluster, RealNodes } from "./nodes";
import { waitForPodPhase } from "./nodes/pods";

export const PRIMARY = "ikoclone";
export const DR = "ikodr";
/** The mirror's IrisCluster, and the DR data pod IKO would run for its DR member. */
export const MIRROR_ID = "default/iris";
export const DR_POD = "iris-ikodr-data-0";
const STACK = "promote";

/** The fleet, its stack (the mirror up) and what stops it all. */
export interface MirrorPromoteFleet {
    fleet: LoopbackFleet;
    dr: RealNodeCluster;
    sandbox: EngineSandbox;
    stack: Awaited<ReturnType<EngineSandbox["stack"]>>;
    /** Seconds from nothing to the mirror up: the fleet, the DR node and its pod, `pulumi up`. */
    upSeconds: number;
    stop(): Promise<void>;
}

/** The DR data pod as IKO names it: a stand-in iris that keeps a mirror status (CONNECTED, a DR async). */
function drPod(): KubeObject {
    return {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: DR_POD, namespace: "default", labels: { "intersystems.com/component": "data" } },
        spec: {
            containers: [
                {
                    name: "iris",
                    image: IRIS_STANDIN_IMAGE,
                    imagePullPolicy: "Never",
                    command: ["sh", "-c", "mkdir -p /irissys && : > /irissys/sessions.log && exec sleep 100000"],
                },
            ],
        },
    } as KubeObject;
}

/** Starts the fleet and the DR node, and lays the mirror with `pulumi up`. `nodes` is the caller's to close. */
export async function startMirrorPromoteFleet(nodes: RealNodes, binPath: string): Promise<MirrorPromoteFleet> {
    const t0 = Date.now();
    const fleet = new LoopbackFleet({ hostName: "ikofett", members: [PRIMARY] });
    let iko: IkoPlayer | undefined;
    let sandbox: EngineSandbox | undefined;
    const stop = async () => {
        await iko?.stop();
        sandbox?.cleanup();
        await fleet.stop();
    };
    try {
        await fleet.start();
        const dr = await nodes.cluster({ name: DR, nodes: [{ zone: "zone-a" }] });
        await dr.applyAll([drPod()]);
        await waitForPodPhase(dr.client, "default", DR_POD, ["Running"], 120_000);
        const members = [...fleet.members, dr.api];
        iko = new IkoPlayer(members, 0, { waitForNeeds: true }).start();
        sandbox = new EngineSandbox(binPath);
        const stack = await sandbox.stack(STACK, undefined, {
            ...existingFleetKeys({ host: fleet.host, hostKubeconfig: fleet.hostKubeconfig, karmadaKubeconfig: fleet.karmadaKubeconfig, members }),
            "kamino:irisClusters": [
                {
                    name: "iris",
                    namespace: "default",
                    image: IRIS_IMAGE,
                    // Existing clusters: the addresses the members reach each other at are given.
                    mirror: { primary: PRIMARY, drAsync: [DR], addresses: { [PRIMARY]: "10.250.0.5", [DR]: "10.250.1.5" } },
                    runningTimeoutSeconds: 240,
                },
            ],
        });
        const up = await stack.up();
        if (up.summary.result !== "succeeded") throw new Error(`pulumi up of the mirror: ${up.summary.result}`);
        return { fleet, dr, sandbox, stack, upSeconds: (Date.now() - t0) / 1000, stop };
    } catch (e) {
        await stop();
        throw e;
    }
}

/** From the primary's loss: Karmada marks its member not Ready; the command, from its start to PRIMARY; both. */
export interface PromoteTimeline {
    detected_s: number;
    promote_cmd_s: number;
    promote_s: number;
}

/** `npm run promote -- default/iris --to ikodr --stack promote`, as a user runs it (its own process, the stack's outputs). */
export function runPromote(f: MirrorPromoteFleet, extra: string[] = []): Promise<CommandRun> {
    return runCommand(f.sandbox, "promote", [MIRROR_ID, "--to", DR, "--stack", STACK, ...extra], f.sandbox.project);
}

/**
 * The primary's member lost for good (its API server stopped, not restarted), then, once Karmada
 * reports it not Ready, `npm run promote`; fails with the command's output unless it exits 0.
 */
export async function loseThePrimaryAndPromote(f: MirrorPromoteFleet): Promise<{ timeline: PromoteTimeline; run: CommandRun }> {
    const karmada = (method: string, p: string, body?: unknown, contentType?: string) => f.fleet.karmada.client.request(method, p, body, contentType);
    const t0 = Date.now();
    await f.fleet.stopApiServer(PRIMARY);
    await waitFor(`${PRIMARY} not Ready in Karmada`, async () => ((await memberState(karmada, PRIMARY)) !== "Ready" ? true : undefined), {
        timeoutMs: 300_000,
        intervalMs: 250,
    });
    const t1 = Date.now();
    const run = await runPromote(f);
    const t2 = Date.now();
    if (run.code !== 0) throw new Error(`npm run promote exited ${run.code}:\n${run.output.slice(-4000)}`);
    const s = (ms: number) => Math.round(ms / 100) / 10;
    return { timeline: { detected_s: s(t1 - t0), promote_cmd_s: s(t2 - t1), promote_s: s(t2 - t0) }, run };
}
