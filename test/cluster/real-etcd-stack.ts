// A stack of Kamino's KarmadaEtcd alone (the etcd a Karmada off kind keeps its state in), brought up
// by the real engine on a real-node host: shared by the real-pod test and the bench. The bench's
// real-node row is `realEtcdHost`'s timings, so karmada-etcd-pods.test.ts runs the code the row measures.
import * as fs from "fs";
import * as path from "path";
import { Stack } from "@pulumi/pulumi/automation";
import { EngineSandbox } from "../support/engine";
import { LOCAL_STORAGE_CLASS, RealNodeCluster, RealNodes } from "./nodes";

/** The namespace of Karmada's chart, where Kamino's etcd runs. */
export const KARMADA_NAMESPACE = "karmada-system";

/** Writes the program into the sandbox and returns its stack, configured for the host. */
export async function karmadaEtcdStack(sandbox: EngineSandbox, stackName: string, hostKubeconfigFile: string, storageClass: string): Promise<Stack> {
    fs.writeFileSync(
        path.join(sandbox.project, "index.ts"),
        `import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KarmadaEtcd } from "./components/karmada/control-plane/karmada-etcd";
const kubeconfig = new pulumi.Config().requireSecret("hostKubeconfig");
const host = new k8s.Provider("host", { kubeconfig });
new KarmadaEtcd("karmada-etcd", { hostProvider: host, hostKubeconfig: kubeconfig, namespace: "${KARMADA_NAMESPACE}", settings: { members: 3, volumeSize: "1Gi", storageClass: "${storageClass}" } });
`,
    );
    const stack = await sandbox.stack(stackName, undefined);
    await stack.setConfig("kamino:hostKubeconfig", { value: fs.readFileSync(hostKubeconfigFile, "utf8"), secret: true });
    return stack;
}

/** What `realEtcdHost` times, in seconds: the host's start, `pulumi up` of the etcd until its members are Ready, both. */
export interface RealEtcdTimings {
    host_start_s: number;
    etcd_up_s: number;
    up_real_s: number;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/**
 * A three-node host in three zones (critical priority limited as on GKE) and Kamino's etcd on it by
 * `pulumi up`, timed. The caller owns `nodes` and `sandbox` and removes them.
 */
export async function realEtcdHost(
    nodes: RealNodes,
    sandbox: EngineSandbox,
    names: { host: string; stack: string },
    volumesPerNode = 1,
): Promise<{ host: RealNodeCluster; stack: Stack; timings: RealEtcdTimings }> {
    const t0 = Date.now();
    const host = await nodes.cluster({
        name: names.host,
        nodes: ["zone-a", "zone-b", "zone-c"].map((zone) => ({ zone, volumes: volumesPerNode })),
        limitCriticalPriority: true,
    });
    const t1 = Date.now();
    const stack = await karmadaEtcdStack(sandbox, names.stack, host.kubeconfig, LOCAL_STORAGE_CLASS);
    const up = await stack.up();
    if (up.summary.result !== "succeeded") throw new Error(`pulumi up of the etcd stack: ${up.summary.result}`);
    const t2 = Date.now();
    return { host, stack, timings: { host_start_s: seconds(t1 - t0), etcd_up_s: seconds(t2 - t1), up_real_s: seconds(t2 - t0) } };
}
