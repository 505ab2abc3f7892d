// Debugging aid: one real-node cluster, held running until SIGINT/SIGTERM, then removed whole.
//
//   npm run real-nodes -- [nodes] [name]          (default: 2 nodes, cluster "debug")
//
// Prints the admin kubeconfig's path; with any kubectl: `KUBECONFIG=<path> kubectl get pods -A -o wide`.
// The nodes' logs (containerd, kubelet, kube-proxy) are under <root>/<name>/logs; `ip netns list`
// shows the nodes' namespaces, `nsenter --net=/run/netns/<ns> iptables-save` a node's rules.
import { RealNodes } from "./index";
import { runTag, sweepRealNodes } from "../../support/node-sweep";

async function main(): Promise<void> {
    const count = Number(process.argv[2] ?? "2");
    const name = process.argv[3] ?? "debug";
    const nodes = RealNodes.create();
    let stopping = false;
    const stop = async () => {
        if (stopping) return;
        stopping = true;
        const left = await nodes.close();
        sweepRealNodes(runTag()); // and the images of this run
        console.log(`stopped; the sweep removed ${JSON.stringify(left)}`);
        process.exit(0);
    };
    process.on("SIGINT", () => void stop());
    process.on("SIGTERM", () => void stop());
    const t = Date.now();
    try {
        const cluster = await nodes.cluster({ name, nodes: Array.from({ length: count }, (_, i) => ({ zone: `zone-${String.fromCharCode(97 + i)}` })) });
        console.log(`cluster ${name} with ${count} node(s) ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
        console.log(`export KUBECONFIG=${cluster.kubeconfig}`);
        console.log(`logs: ${nodes.root}/${name}/logs; Ctrl-C to stop and remove everything`);
    } catch (e) {
        console.error(e);
        await stop();
    }
}

void main();
