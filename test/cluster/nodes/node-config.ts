// The configuration files of one real node (pure): containerd's, the CNI network's, the kubelet's
// and kube-proxy's. Each node runs in a network namespace of its own but shares this machine's
// mounts, cgroup hierarchies and processes with the other nodes, so every path, cgroup and socket
// here is the node's own.
import { stringify } from "yaml";

/** Where the Debian packages put runc and the CNI plugins. */
export const RUNC = "/usr/sbin/runc";
export const CNI_BIN_DIR = "/usr/lib/cni";
/** The sandbox ("pause") image every pod starts with; assembled here (images.ts). */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10.1";

/** What a node's files depend on. */
export interface NodeLayout {
    /** Node name, as the Node object is named. */
    name: string;
    /** The node's own directory; everything it writes is under it. */
    dir: string;
    /** The node's address on the fleet's network. */
    ip: string;
    /** The pods' subnet on this node, e.g. `10.244.1.0/24`. */
    podCidr: string;
    /** The cluster's Service ClusterIP range. */
    serviceCidr: string;
    /** The cluster DNS Service's ClusterIP. */
    dnsIp: string;
    /** Cgroup (relative to every hierarchy's root) that holds this node's pods. */
    cgroupRoot: string;
    /** Labels the kubelet registers the Node with, e.g. its zone. */
    labels: Record<string, string>;
    /** Taints the kubelet registers the Node with, as `key[=value]:Effect`. */
    taints?: string[];
}

/** The files of a node, by their paths under `dir`. */
export const nodePaths = (dir: string) => ({
    containerdRoot: `${dir}/containerd/root`,
    containerdState: `${dir}/containerd/state`,
    containerdConfig: `${dir}/containerd/config.toml`,
    containerdSocket: `${dir}/containerd/containerd.sock`,
    cniConfDir: `${dir}/cni/net.d`,
    cniDataDir: `${dir}/cni/ipam`,
    kubeletRoot: `${dir}/kubelet`,
    kubeletConfig: `${dir}/kubelet.yaml`,
    kubeletKubeconfig: `${dir}/kubelet.kubeconfig`,
    podLogs: `${dir}/pod-logs`,
    resolvConf: `${dir}/resolv.conf`,
    kubeProxyConfig: `${dir}/kube-proxy.yaml`,
    kubeProxyKubeconfig: `${dir}/kube-proxy.kubeconfig`,
    volumes: `${dir}/volumes`,
});

/**
 * containerd 2's configuration (version 3). Notable settings:
 * - `restrict_oom_score_adj`: this machine withholds CAP_SYS_RESOURCE, so no process may lower an
 *   OOM score below its own; the kubelet asks -998 for every pod sandbox, and runc then fails with
 *   "can't get final child's PID from pipe: EOF". containerd clamps to its own score instead.
 * - `netns_mounts_under_state_dir`: pod network namespaces are pinned under the node's own state
 *   directory, not in /run/netns beside every other node's.
 * - NRI off: its socket has one fixed path per machine.
 * - runc's root under the node's state (its default, /run/containerd/runc, is the machine's). The
 *   shims' sockets have one fixed directory, /run/containerd/s: node-sweep.ts removes the node's.
 */
export function containerdConfig(l: NodeLayout): string {
    const p = nodePaths(l.dir);
    return `version = 3
root = "${p.containerdRoot}"
state = "${p.containerdState}"

[grpc]
  address = "${p.containerdSocket}"

[plugins.'io.containerd.nri.v1.nri']
  disable = true

[plugins.'io.containerd.internal.v1.opt']
  path = "${l.dir}/containerd/opt"

[plugins.'io.containerd.grpc.v1.cri']
  disable_tcp_service = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "${PAUSE_IMAGE}"

[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["${CNI_BIN_DIR}"]
    conf_dir = "${p.cniConfDir}"
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "${RUNC}"
        SystemdCgroup = false
        Root = "${p.containerdState}/runc"
`;
}

/** The pods' network: a bridge on the node, addresses from the node's pod subnet, masqueraded out. */
export function cniConfig(l: NodeLayout): string {
    return JSON.stringify(
        {
            cniVersion: "1.0.0",
            name: "kamino-pods",
            plugins: [
                {
                    type: "bridge",
                    bridge: "cni0",
                    isGateway: true,
                    ipMasq: true,
                    hairpinMode: true,
                    ipam: { type: "host-local", dataDir: nodePaths(l.dir).cniDataDir, ranges: [[{ subnet: l.podCidr }]], routes: [{ dst: "0.0.0.0/0" }] },
                },
                { type: "portmap", capabilities: { portMappings: true } },
            ],
        },
        null,
        2,
    );
}

/** What the kubelet is given besides the layout. */
export interface KubeletFiles {
    /** CA that signs clients the kubelet accepts (the API server's, for logs and exec). */
    clientCaFile: string;
    /** The kubelet's serving certificate and key (SAN: the node's IP). */
    tlsCertFile: string;
    tlsPrivateKeyFile: string;
}

/**
 * The kubelet's configuration: cgroup v1 accepted (`failCgroupV1: false`: kubelet 1.35+ refuses it
 * otherwise), pods under the node's own cgroup, and no eviction for disk or image space, which
 * every node shares with this machine and with each other.
 */
export function kubeletConfig(l: NodeLayout, f: KubeletFiles): string {
    const p = nodePaths(l.dir);
    return stringify({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        failCgroupV1: false,
        cgroupDriver: "cgroupfs",
        cgroupRoot: l.cgroupRoot,
        containerRuntimeEndpoint: `unix://${p.containerdSocket}`,
        address: l.ip,
        port: 10250,
        readOnlyPort: 0,
        healthzBindAddress: "127.0.0.1",
        healthzPort: 10248,
        tlsCertFile: f.tlsCertFile,
        tlsPrivateKeyFile: f.tlsPrivateKeyFile,
        authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: f.clientCaFile } },
        authorization: { mode: "Webhook" },
        clusterDNS: [l.dnsIp],
        clusterDomain: "cluster.local",
        resolvConf: p.resolvConf,
        podLogsDir: p.podLogs,
        failSwapOn: false,
        localStorageCapacityIsolation: false,
        evictionHard: { "memory.available": "100Mi", "nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%" },
        imageGCHighThresholdPercent: 100,
        imageGCLowThresholdPercent: 99,
        serializeImagePulls: false,
        maxPods: 60,
        syncFrequency: "10s",
        fileCheckFrequency: "10s",
    });
}

/** kube-proxy in iptables mode, inside the node's network namespace. */
export function kubeProxyConfig(l: NodeLayout): string {
    return stringify({
        apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
        kind: "KubeProxyConfiguration",
        mode: "iptables",
        clientConnection: { kubeconfig: nodePaths(l.dir).kubeProxyKubeconfig },
        hostnameOverride: l.name,
        clusterCIDR: l.podCidr,
        bindAddress: l.ip,
        healthzBindAddress: "127.0.0.1:10256",
        metricsBindAddress: "127.0.0.1:10249",
        // Pod to Service to a pod behind the same bridge: SNAT makes the reply come back through the node, where conntrack undoes the DNAT.
        iptables: { masqueradeAll: true, syncPeriod: "10s", minSyncPeriod: "1s" },
        // nf_conntrack_max is one per machine (not per network namespace): leave it alone.
        conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
        oomScoreAdj: 0,
    });
}
