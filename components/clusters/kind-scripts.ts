// Pure helpers: the shell scripts a KindCluster runs through the command provider (`/bin/sh -c`,
// so POSIX sh, not bash). The cluster name comes from $KIND_CLUSTER_NAME; the config is on stdin.
import { KindConfigArgs } from "./kind-config";

/** Label kind puts on every node container: its role (`control-plane`, `worker`, `external-load-balancer`). */
export const KIND_ROLE_LABEL = "io.x-k8s.kind.role";

/** Deletes the cluster; kind treats a missing cluster as deleted, so a repeated destroy succeeds. */
export const KIND_DELETE_SCRIPT = 'kind delete cluster --name "$KIND_CLUSTER_NAME"';

/** Quotes a value for sh; config values are validated, this keeps the script safe regardless. */
function sq(value: string | number): string {
    return `'${String(value).replace(/'/g, `'\\''`)}'`;
}

/**
 * The guarded create: `kind create cluster` when no cluster of that name exists; otherwise the
 * existing cluster is adopted only when it is what this config would create (node roles and count,
 * kind's default CNI absent, every host port mapping published), else the script fails naming each
 * difference and the two ways out. Adoption is what makes a re-run after a failed `up` work, and a
 * changed script re-runs on every stack as an update, so a cluster Kamino made must always pass.
 */
export function kindCreateScript(args: Pick<KindConfigArgs, "workers" | "portMappings">): string {
    const lines = [
        "set -u",
        'name="$KIND_CLUSTER_NAME"',
        'node="$name-control-plane"',
        // A failing `kind get clusters` (Docker down) must not fall through to a create that fails less clearly.
        "clusters=$(kind get clusters) || { echo \"kamino: 'kind get clusters' failed (above); is Docker running? Check with 'docker info'\" >&2; exit 1; }",
        'if ! printf \'%s\\n\' "$clusters" | grep -qx -- "$name"; then',
        '  exec kind create cluster --name "$name" --config -',
        "fi",
        "problems=''",
        // Roles come from kind's container labels, as kind itself reads them.
        `workers=${sq(args.workers)}`,
        'nodes=$(kind get nodes --name "$name") || exit 1',
        "cp=0; w=0; other=''",
        "for n in $nodes; do",
        `  role=$(docker inspect --format '{{ index .Config.Labels "${KIND_ROLE_LABEL}" }}' "$n") || exit 1`,
        '  case "$role" in',
        "    control-plane) cp=$((cp + 1)) ;;",
        "    worker) w=$((w + 1)) ;;",
        '    *) other="$other $n ($role)" ;;',
        "  esac",
        "done",
        'if [ "$cp" -ne 1 ] || [ "$w" -ne "$workers" ] || [ -n "$other" ]; then',
        '  problems="$problems',
        "  - nodes: it has $cp control-plane and $w worker node(s)${other:+ and$other}; this stack makes 1 control-plane and $workers worker(s) (the cluster's 'workers' in kamino:clusters)\"",
        "fi",
        // kind writes its config nowhere readable; its default CNI is the kindnet DaemonSet, read the way
        // kind itself runs kubectl (inside the control-plane node, with the admin kubeconfig).
        'if daemonsets=$(docker exec "$node" kubectl --kubeconfig=/etc/kubernetes/admin.conf get daemonsets --namespace=kube-system --output=name 2>&1); then',
        "  if printf '%s\\n' \"$daemonsets\" | grep -qx 'daemonset.apps/kindnet'; then",
        '    problems="$problems',
        "  - CNI: kind's default CNI runs in it (DaemonSet kube-system/kindnet); this stack creates kind clusters with networking.disableDefaultCNI: true and installs Cilium\"",
        "  fi",
        "else",
        '  problems="$problems',
        "  - CNI: could not list its kube-system DaemonSets to look for kind's default CNI: $(printf '%s\\n' \"$daemonsets\" | head -n 1)\"",
        "fi",
    ];
    for (const m of args.portMappings ?? []) {
        const address = `${m.listenAddress ?? "127.0.0.1"}:${m.hostPort}`;
        const what = m.description ? ` for ${m.description}` : "";
        lines.push(
            `if ! published=$(docker port "$node" ${sq(`${m.containerPort}/tcp`)} 2>&1) || ! printf '%s\\n' "$published" | grep -qx -- ${sq(address)}; then`,
            '  problems="$problems',
            `  - ports: node port ${m.containerPort}/tcp is not published on ${address}${what}; docker port says: $(printf '%s' "$published" | tr '\\n' ' ')"`,
            "fi",
        );
    }
    lines.push(
        'if [ -n "$problems" ]; then',
        "  printf '%s\\n' \"kamino: kind cluster '$name' already exists but is not the cluster this stack would create, so it is not adopted:$problems\" \\",
        "    'Two ways out:' \\",
        '    "  - delete it, and the next up creates it: kind delete cluster --name $name" \\',
        '    "  - or keep it, and give this stack\'s kind clusters other names: pulumi config set kamino:kindNamePrefix <prefix> (e.g. kamino-)" >&2',
        "  exit 1",
        "fi",
        "echo \"kamino: adopting the existing kind cluster '$name': its nodes, CNI and port mappings match this stack\" >&2",
    );
    return lines.join("\n") + "\n";
}
