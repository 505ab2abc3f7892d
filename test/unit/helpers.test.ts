// Pure helpers: kubeconfigs, kind config, Helm values, Secret payloads, CRD copies, overrides, waiting.
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { IrisClusterConfig } from "../../components/config";
import { checkIdentity, crdGroup, mirrorableCrdSpec } from "../../components/karmada/control-plane/crd-mirror";
import { clusterAffinity, irisClusterSpec, overrideSpec } from "../../components/federation/federated-iris";
import { gkeTopology } from "../../components/clusters/gke-cluster";
import { KARMADA_DEFAULT_CERT_HOSTS, karmadaChartValues } from "../../components/karmada/control-plane/chart-values";
import { joinNames } from "../../components/karmada/members/member";
import { describeError, waitForObject } from "../../components/live/kube-read";
import { gkeKubeconfig, serverOf, withServer } from "../../components/common/kubeconfig";
import { defaultSubnets, kindInternalEndpoint, renderKindConfig } from "../../components/clusters/kind-config";
import { dockerConfigJson } from "../../components/common/secret-data";
import { secretStringData } from "../../components/federation/secret-sync";
import { mergeValues } from "../../components/common/values";
import { fakeKubeconfig, LIVE_IRIS_CRD } from "../support/mocks";

describe("kubeconfig", () => {
    const two = YAML.stringify({
        "current-context": "b",
        clusters: [
            { name: "a", cluster: { server: "https://a:1" } },
            { name: "b", cluster: { server: "https://b:2" } },
        ],
        contexts: [
            { name: "a", context: { cluster: "a", user: "u" } },
            { name: "b", context: { cluster: "b", user: "u" } },
        ],
        users: [{ name: "u", user: { token: "t" } }],
    });
    test("reads the server of the current or a named context", () => {
        expect(serverOf(two)).toBe("https://b:2");
        expect(serverOf(two, "a")).toBe("https://a:1");
    });
    test("rewrites only the active cluster's server", () => {
        const out = YAML.parse(withServer(two, "https://127.0.0.1:5443"));
        expect(out.clusters.map((c: { cluster: { server: string } }) => c.cluster.server)).toEqual(["https://a:1", "https://127.0.0.1:5443"]);
        expect(out.users).toEqual([{ name: "u", user: { token: "t" } }]);
    });
    test("refuses a kubeconfig without clusters or with a dangling context", () => {
        expect(() => serverOf("apiVersion: v1\n")).toThrow(/no clusters/);
        expect(() => serverOf(two, "nope")).toThrow(/no cluster for context 'nope'/);
    });
    test("GKE kubeconfig authenticates with the gcloud plugin and holds no credential", () => {
        const k = YAML.parse(gkeKubeconfig({ contextName: "gke_p_us-central1_g", endpoint: "34.1.2.3", caCertificate: "Q0E=" }));
        expect(k.clusters[0].cluster).toEqual({ server: "https://34.1.2.3", "certificate-authority-data": "Q0E=" });
        expect(k.users[0].user.exec.command).toBe("gke-gcloud-auth-plugin");
        expect(JSON.stringify(k.users)).not.toMatch(/token|password|client-key/);
    });
});

describe("kind config", () => {
    test("control plane plus workers, no default CNI, port mappings on loopback", () => {
        const c = YAML.parse(renderKindConfig({ workers: 2, portMappings: [{ containerPort: 32443, hostPort: 5443 }], podSubnet: "10.16.0.0/16" }));
        expect(c.nodes.map((n: { role: string }) => n.role)).toEqual(["control-plane", "worker", "worker"]);
        expect(c.nodes[0].extraPortMappings).toEqual([{ containerPort: 32443, hostPort: 5443, listenAddress: "127.0.0.1", protocol: "TCP" }]);
        expect(c.networking).toEqual({ disableDefaultCNI: true, podSubnet: "10.16.0.0/16" });
    });
    test("the node image goes on every node", () => {
        const c = YAML.parse(renderKindConfig({ workers: 1, nodeImage: "kindest/node:v1.33.1" }));
        expect(c.nodes.every((n: { image: string }) => n.image === "kindest/node:v1.33.1")).toBe(true);
    });
    test("default subnets never overlap and run out loudly", () => {
        const all = Array.from({ length: 100 }, (_, i) => Object.values(defaultSubnets(i))).flat();
        expect(new Set(all).size).toBe(200);
        expect(() => defaultSubnets(200)).toThrow(/set podSubnet and serviceSubnet/);
    });
    test("internal endpoint is the control-plane container on the kind network", () => {
        expect(kindInternalEndpoint("ikoclone")).toBe("https://ikoclone-control-plane:6443");
    });
});

describe("Helm values", () => {
    test("maps merge, lists and scalars are replaced", () => {
        expect(mergeValues({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: 2, e: 3 })).toEqual({ a: { b: 1, c: [3] }, d: 2, e: 3 });
    });
    test("an Output is a leaf: a stack's map replaces it instead of merging into its fields", () => {
        const secret = pulumi.secret({ key: "k" });
        const merged = mergeValues({ certs: secret, keep: { a: 1 } }, { keep: { b: 2 } });
        expect(merged.certs).toBe(secret);
        expect(mergeValues({ certs: secret }, { certs: { key: "mine" } })).toEqual({ certs: { key: "mine" } });
        expect(merged.keep).toEqual({ a: 1, b: 2 });
    });
    test("Karmada values keep the chart's SANs and let the stack override", () => {
        const v = karmadaChartValues({
            nodePort: { certHosts: ["ikofett-control-plane", "127.0.0.1"], apiServerNodePort: 32443 },
            kubectlImage: "bitnamisecure/kubectl",
            featureGates: { PropagateDeps: true },
            values: { apiServer: { replicaCount: 2 } },
        }) as { certs: { auto: { hosts: string[] } }; apiServer: Record<string, unknown> };
        // A name the chart's defaults have already (127.0.0.1) is not repeated.
        expect(v.certs.auto.hosts).toEqual([...KARMADA_DEFAULT_CERT_HOSTS, "ikofett-control-plane"]);
        expect(v.apiServer).toEqual({ image: { tag: "v1.36.3" }, serviceType: "NodePort", nodePort: 32443, replicaCount: 2 });
    });
});

describe("Secret payloads", () => {
    test("docker config JSON as kubectl create secret docker-registry writes it", () => {
        const j = JSON.parse(dockerConfigJson({ server: "containers.intersystems.com", username: "u", password: "p" }));
        expect(j).toEqual({ auths: { "containers.intersystems.com": { username: "u", password: "p", auth: Buffer.from("u:p").toString("base64") } } });
    });
    test("config types map to Secret data", () => {
        expect(secretStringData("opaque", { "iris.key": "K" })).toEqual({ "iris.key": "K" });
        expect(secretStringData("tls", { "tls.crt": "C", "tls.key": "K" })).toEqual({ "tls.crt": "C", "tls.key": "K" });
        expect(Object.keys(secretStringData("dockerconfigjson", { server: "s", username: "u", password: "p" }))).toEqual([".dockerconfigjson"]);
    });
});

describe("CRD copy", () => {
    test("keeps the spec, drops a conversion webhook, adds a status subresource", () => {
        const spec = mirrorableCrdSpec(LIVE_IRIS_CRD);
        const { conversion: _, versions, ...rest } = LIVE_IRIS_CRD.spec;
        expect(spec).toEqual({ ...rest, versions: versions.map((v) => ({ ...v, subresources: { status: {} } })) });
        expect("conversion" in spec).toBe(false);
    });
    test("keeps a conversion that needs no webhook and existing subresources", () => {
        const crd = {
            spec: { group: "g", conversion: { strategy: "None" }, versions: [{ name: "v1", subresources: { scale: { specReplicasPath: ".spec.r" } } }] },
        };
        expect(mirrorableCrdSpec(crd)).toEqual({
            group: "g",
            conversion: { strategy: "None" },
            versions: [{ name: "v1", subresources: { scale: { specReplicasPath: ".spec.r" }, status: {} } }],
        });
    });
    test("the group comes from the CRD's name", () => {
        expect(crdGroup("irisclusters.intersystems.com")).toBe("intersystems.com");
        expect(() => crdGroup("irisclusters")).toThrow(/not a CRD name of the form <plural>.<group>/);
    });
    test("a live CRD that is not the expected one is refused", () => {
        const id = { kind: "IrisCluster", plural: "irisclusters", scope: "Namespaced" as const };
        expect(checkIdentity(LIVE_IRIS_CRD, "irisclusters.intersystems.com", id)).toBe(LIVE_IRIS_CRD);
        expect(() => checkIdentity(LIVE_IRIS_CRD, "irisclusters.intersystems.com", { ...id, scope: "Cluster" })).toThrow(
            'CRD irisclusters.intersystems.com is {"kind":"IrisCluster","plural":"irisclusters","scope":"Namespaced"}, expected',
        );
    });
    test("refuses an object without spec", () => {
        expect(() => mirrorableCrdSpec({ metadata: { name: "x" } })).toThrow(/CRD x has no spec/);
    });
});

describe("waiting for an object", () => {
    const clock = () => {
        let t = 0;
        return { now: () => t, sleep: async (ms: number) => void (t += ms) };
    };
    test("returns as soon as it exists, retrying not-found and errors", async () => {
        const answers = [undefined, new Error("connection refused"), { metadata: { name: "x" } }];
        const get = async () => {
            const a = answers.shift();
            if (a instanceof Error) throw a;
            return a;
        };
        await expect(waitForObject(get, "thing", { timeoutSeconds: 60, ...clock() })).resolves.toEqual({ metadata: { name: "x" } });
        expect(answers).toEqual([]);
    });
    test("times out with what it waited for and the last error", async () => {
        const get = async () => {
            throw new Error("HTTP 503");
        };
        await expect(waitForObject(get, "CRD irisclusters.intersystems.com", { timeoutSeconds: 30, intervalSeconds: 5, ...clock() })).rejects.toThrow(
            "timed out after 30s waiting for CRD irisclusters.intersystems.com (last result: HTTP 503)",
        );
    });
});

describe("describing a failed API request", () => {
    test("status and the API's message, not the whole body", () => {
        const body = JSON.stringify({ kind: "Status", message: 'customresourcedefinitions is forbidden: User "x" cannot get', reason: "Forbidden", code: 403 });
        expect(describeError({ code: 403, body, message: "HTTP-Code: 403" })).toBe('HTTP 403: customresourcedefinitions is forbidden: User "x" cannot get');
    });
    test("a body that is not JSON is cut short", () => {
        expect(describeError({ code: 502, body: "x".repeat(500) })).toBe(`HTTP 502: ${"x".repeat(200)}`);
    });
    test("a network error keeps its message", () => {
        expect(describeError(new Error("connect ECONNREFUSED 127.0.0.1:6443"))).toBe("connect ECONNREFUSED 127.0.0.1:6443");
    });
});

describe("IrisCluster template and overrides", () => {
    const entry = (extra: Partial<IrisClusterConfig> = {}): IrisClusterConfig => ({
        name: "iris",
        namespace: "default",
        image: "iris:1",
        placement: { mode: "all" },
        failoverAfterSeconds: 10,
        overrides: [],
        waitForRunning: true,
        runningTimeoutSeconds: 900,
        spec: {},
        ...extra,
    });
    test("the seed's fields, and extra spec fields merged under the generated ones", () => {
        expect(
            irisClusterSpec(
                entry({ serviceType: "LoadBalancer", spec: { topology: { data: { mirrored: true } }, updateStrategy: { type: "RollingUpdate" } } }),
            ),
        ).toEqual({
            topology: { data: { mirrored: true, image: "iris:1" } },
            updateStrategy: { type: "RollingUpdate" },
            serviceTemplate: { spec: { type: "LoadBalancer" } },
        });
    });
    test("Secret references become IKO's fields", () => {
        expect(irisClusterSpec(entry({ licenseKeySecret: "iris-key", imagePullSecrets: ["pull"], tlsSecret: "tls" }))).toMatchObject({
            licenseKeySecret: { name: "iris-key" },
            imagePullSecrets: [{ name: "pull" }],
            tls: { common: { secret: { secretName: "tls" } } },
        });
    });
    test("placement maps to a cluster affinity", () => {
        expect(clusterAffinity(undefined)).toBeUndefined();
        expect(clusterAffinity({ clusterNames: ["a"], excludeClusters: ["b"], clusterLabels: { x: "y" } })).toEqual({
            clusterNames: ["a"],
            exclude: ["b"],
            labelSelector: { matchLabels: { x: "y" } },
        });
    });
    test("overrides become JSON patches that work whether or not the template has the field", () => {
        const selector = { apiVersion: "intersystems.com/v1alpha1", kind: "IrisCluster", name: "iris" };
        const withService = overrideSpec(
            entry({ serviceType: "LoadBalancer", overrides: [{ clusterProviders: ["gke"], serviceType: "ClusterIP", storageClassName: "premium-rwo" }] }),
            selector,
        )!;
        expect(withService.overrideRules).toEqual([
            {
                targetCluster: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["gke"] }] } },
                overriders: {
                    plaintext: [
                        { path: "/spec/serviceTemplate/spec/type", operator: "add", value: "ClusterIP" },
                        { path: "/spec/storageClassName", operator: "add", value: "premium-rwo" },
                    ],
                },
            },
        ]);
        const without = overrideSpec(entry({ overrides: [{ clusterNames: ["x"], serviceType: "NodePort" }] }), selector)!;
        expect(without.overrideRules[0].overriders.plaintext).toEqual([
            { path: "/spec/serviceTemplate", operator: "add", value: { spec: { type: "NodePort" } } },
        ]);
        expect(overrideSpec(entry(), selector)).toBeUndefined();
    });
});

describe("names and GKE topology", () => {
    test("join names match karmadactl's", () => {
        expect(joinNames("ikoclone")).toEqual({
            serviceAccount: "karmada-ikoclone",
            impersonator: "karmada-impersonator",
            clusterRole: "karmada-controller-manager:karmada-ikoclone",
            credentialsSecret: "ikoclone",
            impersonatorSecret: "ikoclone-impersonator",
        });
    });
    test("zonal and regional GKE locations", () => {
        expect(gkeTopology(undefined, "us-central1-a")).toEqual({ location: "us-central1-a", region: "us-central1", zones: ["us-central1-a"] });
        expect(gkeTopology("europe-west4", undefined)).toEqual({ location: "europe-west4", region: "europe-west4" });
    });
    test("fake kubeconfigs parse like real ones", () => {
        expect(serverOf(fakeKubeconfig("https://x:1"))).toBe("https://x:1");
    });
});
