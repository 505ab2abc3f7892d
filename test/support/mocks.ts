// Pulumi mocks for whole-stack and component tests: records every registered resource and
// answers with plausible outputs (kubeconfigs, service-account tokens, the Karmada kubeconfig).
import type { AgentReadyWaiter } from "../../components/karmada/members/pull-member";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as YAML from "yaml";
import { CrdReader } from "../../components/karmada/control-plane/crd-mirror";
import { RunningWaiter } from "../../components/live/iris-running";

/** A resource the program registered. */
export type Registered = pulumi.runtime.MockResourceArgs;

/** A kubeconfig as `kind get kubeconfig` prints it (fake credentials). */
export function fakeKubeconfig(server: string, name = "kind-test"): string {
    return YAML.stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": name,
        clusters: [{ name, cluster: { server, "certificate-authority-data": "Q0E=" } }],
        contexts: [{ name, context: { cluster: name, user: name } }],
        users: [{ name, user: { "client-certificate-data": "Q0VSVA==", "client-key-data": "S0VZ" } }],
    });
}

/** The kubeconfig Karmada's chart writes: an in-cluster server name, unreachable from the host. */
export const KARMADA_CHART_KUBECONFIG = fakeKubeconfig("https://karmada-apiserver.karmada-system.svc.cluster.local:5443", "karmada-apiserver");
export const FAKE_TOKEN = "ZmFrZS10b2tlbg=="; // base64 of "fake-token"
export const FAKE_CA = "ZmFrZS1jYQ=="; // base64 of "fake-ca"

/** A stand-in for IKO's live CRD, as the API server would return it. */
export const LIVE_IRIS_CRD = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "irisclusters.intersystems.com", uid: "1234", resourceVersion: "42", managedFields: [] },
    spec: {
        group: "intersystems.com",
        scope: "Namespaced",
        names: { kind: "IrisCluster", plural: "irisclusters", singular: "iriscluster", listKind: "IrisClusterList" },
        versions: [
            { name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
        ],
        conversion: { strategy: "Webhook", webhook: { clientConfig: { service: { name: "iko", namespace: "iko" } } } },
    },
    status: { acceptedNames: { kind: "IrisCluster" } },
};

/** A CRD reader that answers with LIVE_IRIS_CRD and records its calls. */
export function fakeCrdReader(calls: string[] = []): CrdReader {
    return async (kubeconfig, crdName) => {
        calls.push(`${crdName}@${YAML.parse(kubeconfig).clusters[0].cluster.server}`);
        return JSON.parse(JSON.stringify(LIVE_IRIS_CRD));
    };
}

/** A RunningWaiter that finds every target running at once, recording `id: targets`. */
export function fakeRunningWaiter(calls: string[] = []): RunningWaiter {
    return async (_kubeconfig, id, targets, _timeout, mode = "all") => {
        calls.push(`${id}: ${targets.join(",")}${mode === "all" ? "" : ` (${mode})`}`);
        // In failover mode it runs on one member: the first of the list, as after a first `up`.
        return mode === "failover" ? targets.slice(0, 1) : targets;
    };
}

function outputsFor(a: Registered, preview: boolean): Record<string, unknown> {
    const state: Record<string, unknown> = { ...a.inputs };
    if (a.type === "command:local:Command") {
        if (preview) return state; // a new Command's stdout is unknown in preview
        const create = String(a.inputs.create);
        const kindName = /KIND_CLUSTER_NAME/.test(create) ? a.inputs.environment?.KIND_CLUSTER_NAME : "x";
        if (create.includes("--internal")) state.stdout = fakeKubeconfig(`https://${kindName}-control-plane:6443`);
        else if (create.includes("kind get kubeconfig")) state.stdout = fakeKubeconfig(`https://127.0.0.1:40${String(kindName).length}01`);
        else state.stdout = "";
        return state;
    }
    if (a.type === "kubernetes:core/v1:Secret") {
        if (a.id && a.name.endsWith("generated-kubeconfig")) {
            return preview ? {} : { data: { kubeconfig: Buffer.from(KARMADA_CHART_KUBECONFIG).toString("base64") } };
        }
        if (a.inputs.type === "kubernetes.io/service-account-token" && !preview) {
            state.data = { token: FAKE_TOKEN, "ca.crt": FAKE_CA };
        }
        return state;
    }
    if (a.type === "kubernetes:helm.sh/v3:Release" && !preview) {
        state.status = { name: a.inputs.name, namespace: a.inputs.namespace, status: "deployed" };
        return state;
    }
    if (a.type === "pulumi-nodejs:dynamic/kamino:AgentCertificate" && !preview) {
        return {
            ...state,
            certificate: FAKE_AGENT_CERT,
            privateKey: "FAKE-AGENT-KEY",
            notBefore: "2026-12-01T00:00:00.000Z",
            notAfter: "2027-12-01T00:00:00.000Z",
        };
    }
    if (a.type === "pulumi-nodejs:dynamic/kamino:ClusterMeshCa" && !preview) {
        return { ...state, caCrt: FAKE_MESH_CA_CERT, caKey: FAKE_MESH_CA_KEY };
    }
    if (a.type === "pulumi-nodejs:dynamic/kamino:EtcdCertificates" && !preview) {
        const pem = (what: string) => `-----BEGIN ${what}-----\nFAKE-ETCD\n-----END ${what}-----\n`;
        return {
            ...state,
            caCrt: pem("CERTIFICATE"),
            caKey: pem("RSA PRIVATE KEY"),
            memberCrt: pem("CERTIFICATE"),
            memberKey: FAKE_ETCD_MEMBER_KEY,
            clientCrt: pem("CERTIFICATE"),
            clientKey: FAKE_ETCD_CLIENT_KEY,
            notBefore: "2026-12-01T00:00:00.000Z",
            notAfter: "2029-11-30T00:00:00.000Z",
        };
    }
    if (a.type === "gcp:compute/address:Address" && !preview) {
        return {
            ...state,
            address: a.name.startsWith("karmada-address")
                ? FAKE_KARMADA_ADDRESS
                : a.inputs.addressType === "INTERNAL"
                  ? fakeInternalAddress(a.name)
                  : fakeNatAddress(a.name),
            selfLink: `https://www.googleapis.com/compute/v1/projects/p/regions/r/addresses/${a.inputs.name}`,
        };
    }
    if (a.type === "gcp:serviceaccount/account:Account" && !preview) {
        const email = `${a.inputs.accountId}@${a.inputs.project}.iam.gserviceaccount.com`;
        return { ...state, email, name: `projects/${a.inputs.project}/serviceAccounts/${email}` };
    }
    if (a.type === "gcp:container/cluster:Cluster" && !preview) {
        state.endpoint = "34.1.2.3";
        state.masterAuth = { clusterCaCertificate: FAKE_CA };
        return state;
    }
    return state;
}

/** An AgentReadyWaiter that finds every Pull member's Cluster Ready at once, recording its name. */
export function fakeAgentReadyWaiter(calls: string[] = []): AgentReadyWaiter {
    return async (_kubeconfig, clusterName) => (calls.push(clusterName), { waitedSeconds: 0 });
}

/** What the mocks answer for a reserved static address (the Karmada API's on a GKE host). */
export const FAKE_KARMADA_ADDRESS = "34.140.0.10";

/** What the mocks answer for a Cloud NAT egress address: one per resource name (e.g. iris-east-egress-ip-0), in 35.190.0.0/16. */
export function fakeNatAddress(resourceName: string): string {
    const sum = [...resourceName].reduce((n, ch) => n + ch.charCodeAt(0), 0);
    return `35.190.${sum % 250}.${Number(/(\d+)$/.exec(resourceName)?.[1] ?? 0) + 1}`;
}

/** What the mocks answer for a reserved internal address (an IRIS mirror member's load balancer): one per name, in 10.128.0.0/16. */
export function fakeInternalAddress(resourceName: string): string {
    const sum = [...resourceName].reduce((n, ch) => n + ch.charCodeAt(0), 0);
    return `10.128.${sum % 250}.${(sum % 200) + 10}`;
}

/** What the mocks answer for the keys of Karmada's etcd (EtcdCertificates): the members' and the apiservers' client key. */
export const FAKE_ETCD_MEMBER_KEY = "FAKE-ETCD-MEMBER-KEY";
export const FAKE_ETCD_CLIENT_KEY = "FAKE-ETCD-CLIENT-KEY";

/** What the mocks answer for the ClusterMesh CA (ClusterMeshCa). */
export const FAKE_MESH_CA_CERT = "-----BEGIN CERTIFICATE-----\nFAKE-MESH-CA\n-----END CERTIFICATE-----\n";
export const FAKE_MESH_CA_KEY = "FAKE-MESH-CA-KEY";

/** What the mocks answer for a Pull member's agent certificate. */
export const FAKE_AGENT_CERT = "-----BEGIN CERTIFICATE-----\nFAKE-AGENT\n-----END CERTIFICATE-----\n";

/** Runs resources under mocks and gives access to what was registered. */
export class MockRun {
    readonly resources: Registered[] = [];

    constructor(readonly preview: boolean) {}

    /** Installs the mocks; call before creating resources. */
    async install(config: Record<string, string> = {}, secretKeys: string[] = [], stack = "dev"): Promise<void> {
        await pulumi.runtime.setMocks(
            {
                newResource: (a) => {
                    this.resources.push(a);
                    return { id: a.id || (this.preview ? undefined : `${a.name}-id`), state: outputsFor(a, this.preview) };
                },
                call: (a) => {
                    throw new Error(`unexpected invoke ${a.token}`);
                },
            },
            "kamino",
            stack,
            this.preview,
        );
        pulumi.runtime.setAllConfig(config, secretKeys);
    }

    /** Waits until every registration the program started has reached the mocks. */
    async settle(): Promise<void> {
        await pulumi.runtime.disconnect();
    }

    /** All resources of a type. */
    ofType(type: string): Registered[] {
        return this.resources.filter((r) => r.type === type);
    }

    /** The one resource of a type with that name; fails loudly otherwise. */
    get(type: string, name: string): Registered {
        const found = this.resources.filter((r) => r.type === type && r.name === name);
        if (found.length !== 1) {
            const names = this.ofType(type).map((r) => r.name);
            throw new Error(`expected one ${type} named ${name}, found ${found.length} (have: ${names.join(", ")})`);
        }
        return found[0];
    }

    /** The Kubernetes objects (custom resources and core types) of a given kind. */
    kind(kind: string): Registered[] {
        return this.resources.filter((r) => r.type.startsWith("kubernetes:") && r.type.endsWith(`:${kind}`) && !r.id);
    }
}

/** The name of the provider a resource was registered with (from the mock's `urn::id` reference). */
export function providerName(r: Registered): string | undefined {
    return r.provider?.split("::")[3];
}

/** Reads a stack file's `config:` block as raw Pulumi config (`kamino:key` → JSON text). */
export function stackConfig(file: string, overrides: Record<string, unknown> = {}): Record<string, string> {
    const doc = YAML.parse(fs.readFileSync(file, "utf8")) as { config: Record<string, unknown> };
    const merged = { ...doc.config, ...overrides };
    return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
}

/** The fixture chart used wherever the real IKO chart would be. */
export const FIXTURE_CHART = "test/fixtures/iris-operator";

/** Resolves an Output in tests (undefined when unknown). */
export function valueOf<T>(o: pulumi.Output<T>): Promise<T | undefined> {
    return (o as unknown as { promise(): Promise<T | undefined> }).promise();
}

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** True when a recorded input value is a Pulumi secret. */
export function isSecretInput(v: unknown): boolean {
    return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SECRET_SIG] === SECRET_VALUE;
}

/** A recorded input with secret wrappers removed (to compare values). */
export function plain(v: unknown): unknown {
    if (isSecretInput(v)) return plain((v as { value: unknown }).value);
    if (Array.isArray(v)) return v.map(plain);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
}
