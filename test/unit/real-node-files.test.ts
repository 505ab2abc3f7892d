// The real nodes' pure parts (test/cluster/nodes): two nodes never share a path, socket or cgroup;
// the kubelet accepts cgroup v1 and uses its node's cgroup; and an image archive is a valid OCI
// layout whose digests match its blobs, with the files where the image says.
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { cniConfig, containerdConfig, kubeletConfig, kubeProxyConfig, NodeLayout, nodePaths } from "../cluster/nodes/node-config";
import { buildImageArchive } from "../cluster/nodes/oci-image";
import { objectPath } from "../cluster/nodes/real-node-cluster";
import { nextNetworkIndex } from "../cluster/nodes/node-network";
import { runTempDir } from "../support/process-reaper";

const layout = (name: string, i: number): NodeLayout => ({
    name,
    dir: `/tmp/kmabcde01/c/nodes/${name}`,
    ip: `10.250.1.${10 + i}`,
    podCidr: `10.244.${i}.0/24`,
    serviceCidr: "10.96.0.0/16",
    dnsIp: "10.96.0.10",
    cgroupRoot: `/kmbabcde01/${name}`,
    labels: { "topology.kubernetes.io/zone": `zone-${i}` },
});
const files = { clientCaFile: "/ca.crt", tlsCertFile: "/k.crt", tlsPrivateKeyFile: "/k.key" };

test("two nodes share no path, socket, bridge subnet or cgroup", () => {
    const [a, b] = [layout("c-control-plane", 0), layout("c-worker", 1)];
    const everything = (l: NodeLayout) => [...Object.values(nodePaths(l.dir)), l.cgroupRoot, l.podCidr, l.ip];
    const shared = everything(a).filter((x) => everything(b).includes(x));
    expect(shared).toEqual([]);
    // Every path the configurations name is under the node's own directory (or is a shared read-only tool).
    for (const text of [containerdConfig(a), kubeletConfig(a, files), kubeProxyConfig(a), cniConfig(a)]) {
        const paths = text.match(/\/(tmp|var|run|etc)\/[^"'\s,]+/g) ?? [];
        expect(paths.filter((p) => !p.startsWith(a.dir))).toEqual([]);
    }
});

test("the kubelet accepts cgroup v1, puts pods under its node's cgroup and the cluster DNS in pods", () => {
    const k = parse(kubeletConfig(layout("c-worker", 1), files));
    expect(k).toMatchObject({
        failCgroupV1: false,
        cgroupDriver: "cgroupfs",
        cgroupRoot: "/kmbabcde01/c-worker",
        clusterDNS: ["10.96.0.10"],
        address: "10.250.1.11",
    });
    expect(k.containerRuntimeEndpoint).toBe(`unix://${nodePaths(layout("c-worker", 1).dir).containerdSocket}`);
});

test("containerd clamps OOM scores (this machine withholds CAP_SYS_RESOURCE) and keeps its netns pins to itself", () => {
    const c = containerdConfig(layout("c-worker", 1));
    expect(c).toMatch(/^\s*restrict_oom_score_adj = true$/m);
    expect(c).toMatch(/^\s*netns_mounts_under_state_dir = true$/m);
    expect(c).toMatch(/\[plugins\.'io\.containerd\.nri\.v1\.nri'\]\s+disable = true/);
});

test("an image archive is an OCI layout whose digests match and whose layer holds the files", () => {
    const dir = runTempDir("kamino-oci-");
    try {
        const script = path.join(dir, "hello.sh");
        fs.writeFileSync(script, "#!/bin/sh\necho hi\n", { mode: 0o755 });
        const archive = path.join(dir, "img.tar");
        buildImageArchive(
            {
                name: "kamino.invalid/hello:1",
                files: [
                    { target: "/bin/hello", source: script },
                    { target: "/etc/motd", contents: "x" },
                ],
                entrypoint: ["/bin/hello"],
            },
            archive,
            path.join(dir, "work"),
        );
        const out = path.join(dir, "out");
        fs.mkdirSync(out);
        execFileSync("tar", ["-xf", archive, "-C", out]);
        const blob = (digest: string) => fs.readFileSync(path.join(out, "blobs", "sha256", digest.replace("sha256:", "")));
        const sha = (b: Buffer) => `sha256:${crypto.createHash("sha256").update(b).digest("hex")}`;
        const index = JSON.parse(fs.readFileSync(path.join(out, "index.json"), "utf8"));
        expect(index.manifests[0].annotations["io.containerd.image.name"]).toBe("kamino.invalid/hello:1");
        const manifestBlob = blob(index.manifests[0].digest);
        expect(sha(manifestBlob)).toBe(index.manifests[0].digest);
        const manifest = JSON.parse(manifestBlob.toString());
        const config = JSON.parse(blob(manifest.config.digest).toString());
        expect(config.config.Entrypoint).toEqual(["/bin/hello"]);
        expect(config.rootfs.diff_ids).toEqual([manifest.layers[0].digest]);
        const layer = path.join(dir, "layer.tar");
        fs.writeFileSync(layer, blob(manifest.layers[0].digest));
        expect(sha(fs.readFileSync(layer))).toBe(manifest.layers[0].digest);
        const listing = execFileSync("tar", ["-tvf", layer], { encoding: "utf8" });
        expect(listing).toMatch(/^-rwxr-xr-x 0\/0 .* \.\/bin\/hello$/m);
        expect(listing).toMatch(/\.\/etc\/motd$/m);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});

test("objects are applied at their kinds' plural paths", () => {
    const o = (apiVersion: string, kind: string, namespace?: string) => objectPath({ apiVersion, kind, metadata: { name: "x", namespace } });
    expect(o("v1", "Pod", "ns")).toBe("/api/v1/namespaces/ns/pods/x");
    expect(o("networking.k8s.io/v1", "NetworkPolicy", "ns")).toBe("/apis/networking.k8s.io/v1/namespaces/ns/networkpolicies/x");
    expect(o("storage.k8s.io/v1", "StorageClass")).toBe("/apis/storage.k8s.io/v1/storageclasses/x");
    expect(o("v1", "ResourceQuota", "ns")).toBe("/api/v1/namespaces/ns/resourcequotas/x");
    expect(o("v1", "Service")).toBe("/api/v1/namespaces/default/services/x");
});

test("a network index is the worker's own, and one another run holds on this machine is skipped", () => {
    const range = Array.from({ length: 32 }, (_, i) => 64 + i);
    expect(nextNetworkIndex(2, new Set(range.filter((i) => i !== 80)))).toBe(80);
    expect(() => nextNetworkIndex(2, new Set(range))).toThrow(/every real-node network of jest worker 2 \(10\.250\.64-95\.0\/24\) is in use/);
    expect(nextNetworkIndex(1, new Set())).toBeGreaterThanOrEqual(32);
});
