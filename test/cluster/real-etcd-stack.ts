// A stack of Kamino's KarmadaEtcd alone (the etcd a Karmada off kind keeps its state in), brought up
// by the real engine on a real-node host: shared by the real-pod test and the bench.
import * as fs from "fs";
import * as path from "path";
import { Stack } from "@pulumi/pulumi/automation";
import { EngineSandbox } from "../support/engine";

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
