// karmada-apiserver's HTTP/2 health check, shortened on a highly available Karmada (pure).
// karmada-apiserver proxies the aggregated API (cluster.karmada.io: Clusters, their status, what
// agents and `npm run status` call) to karmada-aggregated-apiserver through its host Service, over one
// pooled HTTP/2 connection. When the node of the pod at its other end loses power, nothing closes
// that connection: every aggregated call waits on it until client-go's health check gives it up, 30 s
// without a frame and then 15 s for a ping by default (47.2 s seen in a node-loss drill). The chart
// has no key for a container's environment, so Kamino's post-renderer (chart-postrender.js, which
// Helm runs on the chart's manifests) sets it in the release itself: the pods start with it.

/** What chart-postrender.js exports (plain JavaScript, which Helm has Node run without a compile step). */
interface ChartPostrender {
    APISERVER_HTTP2_HEALTH_CHECK_ENV: readonly { readonly name: string; readonly value: string }[];
    withApiServerHealthCheck(manifests: string): string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const postrender = require("./chart-postrender.js") as ChartPostrender;

/**
 * The post-renderer's path as the Release's `postrender` names it: relative to the program's
 * directory, where Pulumi starts the Kubernetes provider (and Helm with it), so that the same
 * checkout anywhere shows no diff.
 */
export const CHART_POSTRENDER = "./components/karmada/control-plane/chart-postrender.js";

/**
 * client-go's HTTP/2 health check (k8s.io/apimachinery/pkg/util/net/http.go): a ping after 5 s
 * without a frame, the connection closed after 5 s more without its answer.
 */
export const APISERVER_HTTP2_HEALTH_CHECK_ENV = postrender.APISERVER_HTTP2_HEALTH_CHECK_ENV;

/** The longest a call through a dead pooled connection waits for the health check to close it, in seconds. */
export const APISERVER_HTTP2_GIVE_UP_S = APISERVER_HTTP2_HEALTH_CHECK_ENV.reduce((s, e) => s + Number(e.value), 0);

/** The chart's rendered manifests with the health check in karmada-apiserver's environment (what Helm gets back from the post-renderer). */
export const withApiServerHealthCheck = postrender.withApiServerHealthCheck;
