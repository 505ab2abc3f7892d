// Checks of the real-node layer itself (test/cluster/nodes), run on a cluster another test file
// starts (production-drills.test.ts), so that no file starts a cluster for them alone. Proven: what
// the loopback clusters cannot show: the scheduler places pods on nodes, pods get IPs from the node's
// bridge, a Service's ClusterIP answers through kube-proxy from another node, the cluster DNS
// resolves `*.svc.cluster.local`, the kubelet sets a Service's link variables, logs come back through
// the kubelet; and after close() nothing of the nodes is left on the machine.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { KubeObject, resourcePath } from "./harness";
import { RealNodeCluster, RealNodes, SHELL_IMAGE } from "./nodes";
import { podLogs, waitForPodPhase } from "./nodes/pods";
import { findRealNodes, nodeTasks, runRoot, sweptNothing } from "../support/node-sweep";

const onNode = (node: string) => ({ nodeSelector: { "kubernetes.io/hostname": node } });

/** Pods on the cluster's first two nodes: IPs, a ClusterIP Service across nodes, cluster DNS, service links and logs. */
export async function expectPodsRunAcrossNodes(cluster: RealNodeCluster): Promise<void> {
    const [first, second] = cluster.nodes.map((n) => n.name);
    const labels = { app: "web" };
    await cluster.applyAll([
        {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "web", namespace: "default", labels },
            spec: {
                ...onNode(first),
                containers: [
                    {
                        name: "httpd",
                        image: SHELL_IMAGE,
                        imagePullPolicy: "Never",
                        command: ["sh", "-c", 'mkdir -p /www && echo "hello from $(hostname)" > /www/index.html && exec httpd -f -p 8080 -h /www'],
                        readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
                    },
                ],
            },
        } as KubeObject,
        {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "web", namespace: "default" },
            spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
        } as KubeObject,
    ]);
    const web = await waitForPodPhase(cluster.client, "default", "web", ["Running"], 120_000);
    expect(web.status?.podIP).toMatch(/^10\.244\.0\.\d+$/);
    expect(web.spec?.nodeName).toBe(first);

    // Made after the Service, so the kubelet gives it WEB_SERVICE_HOST/PORT.
    await cluster.applyAll([
        {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "client", namespace: "default" },
            spec: {
                ...onNode(second),
                restartPolicy: "Never",
                containers: [
                    {
                        name: "client",
                        image: SHELL_IMAGE,
                        imagePullPolicy: "Never",
                        command: [
                            "sh",
                            "-c",
                            'set -e; echo "link=$WEB_SERVICE_HOST:$WEB_SERVICE_PORT"; ' +
                                "for i in $(seq 1 30); do curl -sf --max-time 2 http://web.default.svc.cluster.local/ && break; sleep 1; done; " +
                                'curl -sf --max-time 5 "http://$WEB_SERVICE_HOST:$WEB_SERVICE_PORT/"; nslookup web.default.svc.cluster.local',
                        ],
                    },
                ],
            },
        } as KubeObject,
    ]);
    const client = await waitForPodPhase(cluster.client, "default", "client", ["Succeeded", "Failed"], 120_000);
    const logs = await podLogs(cluster.client, "default", "client");
    expect({ phase: client.status?.phase, logs }).toEqual({ phase: "Succeeded", logs: expect.stringContaining("hello from web") });
    const svc = (await cluster.client.get(resourcePath("v1", "services", { namespace: "default", name: "web" }))) as { spec: { clusterIP: string } };
    expect(logs).toContain(`link=${svc.spec.clusterIP}:80`);
    expect(logs).toMatch(new RegExp(`Address:\\s*${svc.spec.clusterIP.replace(/\./g, "\\.")}`));
    expect(client.status?.podIP).toMatch(/^10\.244\.1\.\d+$/);
}

/** `n.close()` leaves no process, mount, network namespace, interface, cgroup or shim socket of its nodes. */
export async function expectCloseLeavesNothing(n: RealNodes): Promise<void> {
    const scope = n.network.scope;
    const before = findRealNodes(n.network.tag, scope.slice(-2));
    expect(before.killed).toBeGreaterThan(0); // it was running: the check below can fail
    // Its shims' sockets, in the machine's one directory for them (/run/containerd/s), found by containerd's naming.
    const tasks = nodeTasks(path.join(runRoot(n.network.tag), scope.slice(-2)));
    const sockets = tasks.flatMap((t) => (t.socket ? [t.socket] : []));
    expect(sockets.length).toBeGreaterThan(0);
    await n.close();
    const after = findRealNodes(n.network.tag, scope.slice(-2));
    expect(after).toEqual({ killed: 0, unmounted: 0, netns: [], links: [], cgroups: 0 });
    expect(sweptNothing(after)).toBe(true);
    expect(sockets.filter((s) => fs.existsSync(s))).toEqual([]);
    // runc kept its state under the node's (containerd's runc Root), not in the machine's /run/containerd/runc.
    const machineRunc = "/run/containerd/runc/k8s.io";
    expect(tasks.filter((t) => fs.existsSync(path.join(machineRunc, t.id)))).toEqual([]);
    expect(execFileSync("ip", ["netns", "list"], { encoding: "utf8" })).not.toContain(`km${scope}`);
}
