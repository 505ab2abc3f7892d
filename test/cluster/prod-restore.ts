// docs/production.md's "Back up by hand" and "Restore", run on prod-fleet.ts's pods as an operator runs
// them: the same commands (kubectl, etcdctl, etcdutl, jq, from this machine), in the same order, in a
// shell whose KUBECONFIG is the host's. Each step here names the step of the page it is; where the run
// showed the page wrong, the page was fixed and this follows the fixed page.
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { toolchainPath } from "../support/engine";
import { runTempDir } from "../support/process-reaper";
import { SHELL_IMAGE } from "./nodes";
import { ETCD_USER } from "../../components/karmada/control-plane/etcd-cluster";

/** The shell that runs the page's commands: bash, `set -euo pipefail`, the toolchain's kubectl, etcdctl and etcdutl on PATH. */
export class RunbookShell {
    readonly dir = runTempDir("kamino-runbook-");

    constructor(hostKubeconfig: string, members: Record<string, string> = {}) {
        fs.copyFileSync(hostKubeconfig, path.join(this.dir, "hub.kubeconfig"));
        for (const [name, kubeconfig] of Object.entries(members)) fs.copyFileSync(kubeconfig, path.join(this.dir, `${name}.kubeconfig`));
    }

    /**
     * Runs `script` in the shell's directory; resolves to what it printed. Not synchronously: the
     * played load balancer and IKO live in this process, and a blocked event loop stops them.
     */
    run(script: string, timeoutMs = 300_000): Promise<string> {
        const env = {
            PATH: `${toolchainPath("cluster", "nodes", "chart")}:/usr/sbin:/usr/bin:/sbin:/bin`,
            HOME: this.dir,
            KUBECONFIG: path.join(this.dir, "hub.kubeconfig"),
        };
        return new Promise((resolve, reject) => {
            const child = execFile(
                "bash",
                ["-c", `set -euo pipefail\n${script}`],
                { cwd: this.dir, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
                (e, stdout, stderr) =>
                    e ? reject(new Error(`runbook step failed: ${e.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`)) : resolve(stdout),
            );
            child.stdin?.end();
        });
    }

    cleanup(): void {
        fs.rmSync(this.dir, { recursive: true, force: true });
    }
}

/** "Back up by hand": the client certificate, a snapshot through a port-forward, the Secrets file. Returns the snapshot's status table. */
export function backUpByHand(sh: RunbookShell, localPort: number): Promise<string> {
    return sh.run(`
for f in ca.crt tls.crt tls.key; do
  kubectl -n karmada-system get secret karmada-external-etcd-cert -o jsonpath="{.data.\${f//./\\\\.}}" | base64 -d > "etcd-$f"
done
kubectl -n karmada-system port-forward pod/karmada-etcd-0 ${localPort}:2379 > port-forward.log 2>&1 & PF=$!
# wait until the forward listens (the page's step: it is ready when it prints "Forwarding from")
for i in $(seq 1 60); do grep -q "Forwarding from" port-forward.log && break; sleep 0.5; done
etcdctl --endpoints=https://127.0.0.1:${localPort} --cacert=etcd-ca.crt --cert=etcd-tls.crt --key=etcd-tls.key \\
  snapshot save "karmada-etcd-$(date +%F).db"
kill $PF; etcdutl snapshot status "karmada-etcd-$(date +%F).db" -w table
kubectl -n karmada-system get secret karmada-cert karmada-webhook-cert karmada-kubeconfig -o json \\
  | jq 'del(.items[].metadata | .resourceVersion, .uid, .creationTimestamp, .managedFields)' > "karmada-secrets-$(date +%F).json"
`);
}

/** The helper pod of step 5: a shell and tar, mounting member `i`'s claim, running as etcd's user. */
export function helperPod(i: number): string {
    return JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `restore-${i}`, namespace: "karmada-system" },
        spec: {
            securityContext: { runAsUser: ETCD_USER, runAsGroup: ETCD_USER, fsGroup: ETCD_USER },
            terminationGracePeriodSeconds: 1,
            containers: [
                {
                    name: "shell",
                    image: SHELL_IMAGE,
                    imagePullPolicy: "Never",
                    command: ["sleep", "3600"],
                    volumeMounts: [{ name: "data", mountPath: "/var/lib/etcd" }],
                },
            ],
            volumes: [{ name: "data", persistentVolumeClaim: { claimName: `data-karmada-etcd-${i}` } }],
        },
    });
}

/** "Restore", steps 2 to 6, into the running host (step 1 is for a host that is gone). */
export function restore(sh: RunbookShell, pullMembers: string[]): Promise<string> {
    const helpers = [0, 1, 2].map((i) => `cat <<'EOF' | kubectl apply -f -\n${helperPod(i)}\nEOF`).join("\n");
    return sh.run(
        `
# 2. the old certificates back
kubectl apply -f karmada-secrets-$(date +%F).json
# 3. stop etcd, and wait until its members are gone
kubectl -n karmada-system scale statefulset karmada-etcd --replicas=0
kubectl -n karmada-system wait --for=delete pod/karmada-etcd-0 pod/karmada-etcd-1 pod/karmada-etcd-2 --timeout=180s
# 4. each member's data directory from the snapshot
peers=$(for i in 0 1 2; do printf 'karmada-etcd-%s=https://karmada-etcd-%s.karmada-etcd.karmada-system.svc.cluster.local:2380,' $i $i; done)
for i in 0 1 2; do
  etcdutl snapshot restore karmada-etcd-$(date +%F).db --name karmada-etcd-$i --initial-cluster "\${peers%,}" \\
    --initial-cluster-token karmada-etcd \\
    --initial-advertise-peer-urls https://karmada-etcd-$i.karmada-etcd.karmada-system.svc.cluster.local:2380 \\
    --bump-revision 1000000000 --mark-compacted \\
    --data-dir restore-$i
done
# 5. into each member's volume, replacing member/, through a helper pod on the claim
${helpers}
for i in 0 1 2; do
  kubectl -n karmada-system wait --for=condition=Ready pod/restore-$i --timeout=180s
  kubectl -n karmada-system exec restore-$i -- rm -rf /var/lib/etcd/member
  kubectl cp restore-$i/member karmada-system/restore-$i:/var/lib/etcd/member
  kubectl -n karmada-system delete pod restore-$i --wait=true
done
# 6. etcd back, then every Karmada component reconnects
kubectl -n karmada-system scale statefulset karmada-etcd --replicas=3
kubectl -n karmada-system rollout status statefulset karmada-etcd --timeout=300s
kubectl -n karmada-system rollout restart deployment
for d in $(kubectl -n karmada-system get deployment -o name); do kubectl -n karmada-system rollout status "$d" --timeout=300s; done
# 7. each Pull member's agent restarted: its caches hold what Karmada had after the snapshot
for m in ${pullMembers.join(" ")}; do
  kubectl --kubeconfig "$m.kubeconfig" -n karmada-system rollout restart deployment karmada-agent
  kubectl --kubeconfig "$m.kubeconfig" -n karmada-system rollout status deployment karmada-agent --timeout=180s
done
`,
        900_000,
    );
}
