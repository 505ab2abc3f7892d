// Helm's post-renderer for Karmada's chart (components/karmada/control-plane/chart-postrender.js):
// the health check lands in karmada-apiserver's container and nowhere else, every other document
// goes back byte for byte, a stream it cannot place the setting in fails, and the file runs as Helm
// runs it (an executable: manifests on stdin, the result on stdout, an error and a non-zero exit).
import { execFileSync, spawnSync } from "child_process";
import * as path from "path";
import * as YAML from "yaml";
import { APISERVER_HTTP2_HEALTH_CHECK_ENV, CHART_POSTRENDER, withApiServerHealthCheck } from "../../components/karmada/control-plane/apiserver-health-check";

const SCRIPT = path.join(__dirname, "..", "..", CHART_POSTRENDER);

/** A stream shaped as Helm renders Karmada's chart: `# Source:` comments, `---` between documents. */
const deployment = (name: string, env?: string) => `# Source: karmada/templates/${name}.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: karmada-system
spec:
  template:
    spec:
      initContainers:
        - name: wait
          image: docker.io/alpine:3.21
      containers:
        - name: ${name}
          image: docker.io/karmada/${name}:v1.18.1
          command:
            - kube-apiserver
            - --allow-privileged=true${env ? `\n          env:\n${env}` : ""}
          resources:
            {}
        - name: sidecar
          image: x
`;
const SERVICE = `# Source: karmada/templates/karmada-apiserver.yaml
apiVersion: v1
kind: Service
metadata:
  name: karmada-apiserver
  labels:
    
    app: karmada-apiserver
spec:
  ports:
  - port: 5443
`;
const CONFIGMAP = `# Source: karmada/templates/karmada-static-resource-job.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: karmada-static-resources
data:
  script: |
    set -e
    ---
    echo "a line of dashes, indented: not a document break"
`;
const stream = (...docs: string[]) => docs.map((d) => `---\n${d}`).join("");

const envOf = (out: string, container = "karmada-apiserver") => {
    const docs = YAML.parseAllDocuments(out).map((d) => d.toJS());
    const d = docs.find((o) => o?.kind === "Deployment" && o.metadata.name === "karmada-apiserver");
    return d.spec.template.spec.containers.find((c: { name: string }) => c.name === container).env;
};

test("the health check lands in karmada-apiserver's container only; every other document comes back byte for byte", () => {
    const input = stream(SERVICE, deployment("karmada-apiserver"), CONFIGMAP, deployment("karmada-controller-manager"));
    const out = withApiServerHealthCheck(input);
    expect(envOf(out)).toEqual(APISERVER_HTTP2_HEALTH_CHECK_ENV);
    expect(envOf(out, "sidecar")).toBeUndefined();
    const parts = out.split(/^---[ \t]*$/m);
    const before = input.split(/^---[ \t]*$/m);
    expect(parts).toHaveLength(before.length);
    // Only the apiserver's document differs, and only by the env: the same object otherwise.
    expect(parts.filter((p, i) => p !== before[i])).toHaveLength(1);
    const changed = YAML.parse(parts[2]);
    delete changed.spec.template.spec.containers[0].env;
    expect(changed).toEqual(YAML.parse(before[2]));
    // Quoted: Helm's YAML reader would take a plain 5 for a number, which a container's env refuses.
    expect(parts[2]).toContain('value: "5"');
});

test("a variable of the same name is replaced, any other kept", () => {
    const env = `            - name: HTTP2_PING_TIMEOUT_SECONDS\n              value: "15"\n            - name: GOMAXPROCS\n              value: "2"`;
    const out = withApiServerHealthCheck(stream(deployment("karmada-apiserver", env)));
    expect(envOf(out)).toEqual([{ name: "GOMAXPROCS", value: "2" }, ...APISERVER_HTTP2_HEALTH_CHECK_ENV]);
    // An upgrade's stream, rendered again, comes out the same: nothing for Helm to change.
    expect(withApiServerHealthCheck(out)).toBe(out);
});

test("a stream without exactly one karmada-apiserver Deployment, or without its container, fails: the chart must be read again", () => {
    expect(() => withApiServerHealthCheck(stream(SERVICE, CONFIGMAP))).toThrow("expected one karmada-apiserver Deployment in the chart's manifests, found 0");
    expect(() => withApiServerHealthCheck(stream(deployment("karmada-apiserver"), deployment("karmada-apiserver")))).toThrow("found 2");
    const renamed = deployment("karmada-apiserver").replace("- name: karmada-apiserver", "- name: apiserver");
    expect(() => withApiServerHealthCheck(stream(renamed))).toThrow("the chart's karmada-apiserver Deployment has no container karmada-apiserver");
    expect(() => withApiServerHealthCheck("---\nkind: [")).toThrow(/not YAML/);
});

test("as Helm runs it: an executable reading stdin and writing stdout; an error on stderr with a non-zero exit", () => {
    const input = stream(SERVICE, deployment("karmada-apiserver"));
    expect(execFileSync(SCRIPT, { input, encoding: "utf8" })).toBe(withApiServerHealthCheck(input));
    const failed = spawnSync(SCRIPT, { input: stream(SERVICE), encoding: "utf8" });
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toBe("kamino chart-postrender: expected one karmada-apiserver Deployment in the chart's manifests, found 0\n");
});
