// components/crds/karmada-api.ts: every path Kamino calls is one the Karmada API serves, by the
// upstream swagger.json in ../shared/schemas/karmada (Karmada v1.15, which v1.18 keeps), and the
// paths are the ones the tests' fake Karmadas answer.
import * as fs from "fs";
import * as path from "path";
import { KARMADA_API_VERSIONS, KARMADA_KINDS, KARMADA_PATHS } from "../../components/crds/karmada-api";
import { IrisCluster, KarmadaCluster, PropagationPolicy } from "../../components/crds";
import { SCHEMA_DIR } from "../support/karmada-schemas";

const served = new Set(Object.keys((JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, "swagger.json"), "utf8")) as { paths: Record<string, unknown> }).paths));

test.each([
    ["clusters", KARMADA_PATHS.clusters],
    ["cluster", KARMADA_PATHS.cluster("{name}")],
    ["works", KARMADA_PATHS.works],
    ["worksIn", KARMADA_PATHS.worksIn("{namespace}")],
    ["resourceBindings", KARMADA_PATHS.resourceBindings("{namespace}")],
    ["propagationPolicy", KARMADA_PATHS.propagationPolicy("{namespace}", "{name}")],
    ["workloadRebalancers", KARMADA_PATHS.workloadRebalancers],
])("%s: %s is served by Karmada", (_name, p) => {
    expect(served.has(p)).toBe(true);
});

test("every group and version is served", () => {
    for (const v of Object.values(KARMADA_API_VERSIONS)) expect(served.has(`/apis/${v}/`)).toBe(true);
});

test("the paths as the tests' fake Karmadas and kubectl know them", () => {
    expect(KARMADA_PATHS.cluster("ikoclone")).toBe("/apis/cluster.karmada.io/v1alpha1/clusters/ikoclone");
    expect(KARMADA_PATHS.worksIn("karmada-es-ikodr")).toBe("/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-ikodr/works");
    expect(KARMADA_PATHS.resourceBindings("default")).toBe("/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings");
});

test("the typed resources take their apiVersion from here", () => {
    expect(KarmadaCluster.apiVersion).toBe(KARMADA_API_VERSIONS.cluster);
    expect(KarmadaCluster.kind).toBe(KARMADA_KINDS.cluster);
    expect(PropagationPolicy.apiVersion).toBe(KARMADA_API_VERSIONS.policy);
});

test("an IrisCluster template's path: IKO's group, plural and version, in the template's namespace", () => {
    expect(IrisCluster.apiVersion).toBe("intersystems.com/v1alpha1");
    expect(KARMADA_PATHS.irisClusterTemplate("default", "federated-iris")).toBe(
        "/apis/intersystems.com/v1alpha1/namespaces/default/irisclusters/federated-iris",
    );
});
