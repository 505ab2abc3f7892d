// karmada-apiserver's HTTP/2 health check, shortened on a highly available Karmada (pure).
// karmada-apiserver proxies the aggregated API (cluster.karmada.io: Clusters, their status, what
// agents and `npm run status` call) to karmada-aggregated-apiserver through its host Service, over one
// pooled HTTP/2 connection. When the node of the pod at its other end loses power, nothing closes
// that connection: every aggregated call waits on it until client-go's health check gives it up, 30 s
// without a frame and then 15 s for a ping by default (47.2 s seen in a node-loss drill). The chart
// has no key for a container's environment, so Kamino patches it onto the chart's Deployment.
import type * as k8s from "@pulumi/kubernetes";

/** The chart's karmada-apiserver Deployment and its container (release `karmada`). */
export const APISERVER_DEPLOYMENT = "karmada-apiserver";

/**
 * client-go's HTTP/2 health check (k8s.io/apimachinery/pkg/util/net/http.go): a ping after 5 s
 * without a frame, the connection closed after 5 s more without its answer. A dead peer is given up
 * within 10 s; a live one answers a ping in milliseconds, and a busy connection is never pinged.
 */
export const APISERVER_HTTP2_HEALTH_CHECK_ENV = [
    { name: "HTTP2_READ_IDLE_TIMEOUT_SECONDS", value: "5" },
    { name: "HTTP2_PING_TIMEOUT_SECONDS", value: "5" },
];

/** The longest a call through a dead pooled connection waits for the health check to close it, in seconds. */
export const APISERVER_HTTP2_GIVE_UP_S = APISERVER_HTTP2_HEALTH_CHECK_ENV.reduce((s, e) => s + Number(e.value), 0);

/**
 * The server-side apply patch of the chart's karmada-apiserver Deployment: its container's
 * environment alone, so that Helm keeps owning the rest (an upgrade's three-way merge leaves fields
 * it never set).
 */
export function apiServerHealthCheckPatch(namespace: string): k8s.apps.v1.DeploymentPatchArgs {
    return {
        metadata: { name: APISERVER_DEPLOYMENT, namespace },
        spec: { template: { spec: { containers: [{ name: APISERVER_DEPLOYMENT, env: APISERVER_HTTP2_HEALTH_CHECK_ENV }] } } },
    };
}
