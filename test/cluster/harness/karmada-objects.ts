// The objects that turn a bare kube-apiserver into a Karmada API, built in code: Karmada's CRD
// bases (read from the upstream files in ../shared), its system namespaces, the APIService that
// routes cluster.karmada.io to karmada-aggregated-apiserver, and admission webhook configurations
// pointing at karmada-webhook on loopback. The webhook table lists what karmada-webhook registers
// (cmd/webhook/app/webhook.go) with the rules of Karmada's own configuration
// (artifacts/deploy/webhook-configuration.yaml; identical at v1.15.9 and v1.18.2).
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { KubeObject } from "./kube-client";

export const KARMADA_SYSTEM_NAMESPACE = "karmada-system";
export const KARMADA_CLUSTER_NAMESPACE = "karmada-cluster";
export const AGGREGATED_APISERVER_SERVICE = "karmada-aggregated-apiserver";
/** The name the aggregator verifies the aggregated API server's certificate against. */
export const AGGREGATED_APISERVER_DNS = `${AGGREGATED_APISERVER_SERVICE}.${KARMADA_SYSTEM_NAMESPACE}.svc`;
export const CLUSTER_API_SERVICE = "v1alpha1.cluster.karmada.io";

/** A CustomResourceDefinition as read from a file. */
export interface CrdObject extends KubeObject {
    kind: "CustomResourceDefinition";
    metadata: { name: string };
    spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean; storage: boolean }[] };
}

/** Every CRD in `dir` (one or more YAML documents per file), sorted by name. */
export function loadCrds(dir: string): CrdObject[] {
    if (!fs.existsSync(dir)) throw new Error(`Karmada CRD directory ${dir} does not exist`);
    const crds: CrdObject[] = [];
    for (const f of fs
        .readdirSync(dir)
        .filter((n) => /\.ya?ml$/.test(n))
        .sort()) {
        for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(dir, f), "utf8"))) {
            const obj = doc.toJS() as KubeObject | null;
            if (!obj) continue;
            if (obj.kind !== "CustomResourceDefinition") throw new Error(`${f}: expected a CustomResourceDefinition, found ${obj.kind}`);
            crds.push(obj as CrdObject);
        }
    }
    if (crds.length === 0) throw new Error(`no CRDs in ${dir}`);
    return crds.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** The namespaces Karmada's chart creates in the Karmada API. */
export function systemNamespaces(withClusterNamespace: boolean): KubeObject[] {
    const names = [KARMADA_SYSTEM_NAMESPACE, ...(withClusterNamespace ? [KARMADA_CLUSTER_NAMESPACE] : [])];
    return names.map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
}

/**
 * The Service and APIService for the aggregated `cluster.karmada.io` API. The Service is an
 * ExternalName to `localhost`: the aggregator dials `<externalName>:<APIService port>` and checks
 * the certificate against `<service>.<namespace>.svc`.
 */
export function aggregatedApiObjects(port: number, caPem: string): { service: KubeObject; apiService: KubeObject } {
    return {
        service: {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: AGGREGATED_APISERVER_SERVICE, namespace: KARMADA_SYSTEM_NAMESPACE },
            spec: { type: "ExternalName", externalName: "localhost" },
        },
        apiService: {
            apiVersion: "apiregistration.k8s.io/v1",
            kind: "APIService",
            metadata: { name: CLUSTER_API_SERVICE },
            spec: {
                group: "cluster.karmada.io",
                version: "v1alpha1",
                groupPriorityMinimum: 2000,
                versionPriority: 10,
                service: { name: AGGREGATED_APISERVER_SERVICE, namespace: KARMADA_SYSTEM_NAMESPACE, port },
                caBundle: Buffer.from(caPem).toString("base64"),
            },
        },
    };
}

type Scope = "Namespaced" | "Cluster" | "*";
type Op = "CREATE" | "UPDATE" | "DELETE";

/** One webhook karmada-webhook serves. */
interface WebhookRule {
    /** Webhook name (unique within its configuration). */
    name: string;
    /** Path karmada-webhook registers. */
    path: string;
    group: string;
    resources: string[];
    scope: Scope;
    operations: Op[];
    timeoutSeconds?: number;
    sideEffects?: "None" | "NoneOnDryRun";
    objectSelector?: Record<string, unknown>;
}

const CU: Op[] = ["CREATE", "UPDATE"];
const POLICY = "policy.karmada.io";
const WORK = "work.karmada.io";
const NETWORKING = "networking.karmada.io";
const AUTOSCALING = "autoscaling.karmada.io";
const CONFIG = "config.karmada.io";

const MUTATING: WebhookRule[] = [
    {
        name: "propagationpolicy.karmada.io",
        path: "/mutate-propagationpolicy",
        group: POLICY,
        resources: ["propagationpolicies"],
        scope: "Namespaced",
        operations: CU,
    },
    {
        name: "clusterpropagationpolicy.karmada.io",
        path: "/mutate-clusterpropagationpolicy",
        group: POLICY,
        resources: ["clusterpropagationpolicies"],
        scope: "Cluster",
        operations: CU,
    },
    { name: "overridepolicy.karmada.io", path: "/mutate-overridepolicy", group: POLICY, resources: ["overridepolicies"], scope: "Namespaced", operations: CU },
    {
        name: "resourcebinding.karmada.io",
        path: "/mutate-resourcebinding",
        group: WORK,
        resources: ["resourcebindings"],
        scope: "Namespaced",
        operations: ["CREATE"],
    },
    {
        name: "clusterresourcebinding.karmada.io",
        path: "/mutate-clusterresourcebinding",
        group: WORK,
        resources: ["clusterresourcebindings"],
        scope: "Cluster",
        operations: ["CREATE"],
    },
    { name: "work.karmada.io", path: "/mutate-work", group: WORK, resources: ["works"], scope: "Namespaced", operations: CU },
    { name: "autoscaling.karmada.io", path: "/mutate-federatedhpa", group: AUTOSCALING, resources: ["federatedhpas"], scope: "Namespaced", operations: CU },
    {
        name: "multiclusterservice.karmada.io",
        path: "/mutate-multiclusterservice",
        group: NETWORKING,
        resources: ["multiclusterservices"],
        scope: "Namespaced",
        operations: CU,
    },
];

const VALIDATING: WebhookRule[] = [
    {
        name: "propagationpolicy.karmada.io",
        path: "/validate-propagationpolicy",
        group: POLICY,
        resources: ["propagationpolicies"],
        scope: "Namespaced",
        operations: CU,
    },
    {
        name: "clusterpropagationpolicy.karmada.io",
        path: "/validate-clusterpropagationpolicy",
        group: POLICY,
        resources: ["clusterpropagationpolicies"],
        scope: "Cluster",
        operations: CU,
    },
    {
        name: "overridepolicy.karmada.io",
        path: "/validate-overridepolicy",
        group: POLICY,
        resources: ["overridepolicies"],
        scope: "Namespaced",
        operations: CU,
    },
    {
        name: "clusteroverridepolicy.karmada.io",
        path: "/validate-clusteroverridepolicy",
        group: POLICY,
        resources: ["clusteroverridepolicies"],
        scope: "Cluster",
        operations: CU,
    },
    {
        name: "config.karmada.io",
        path: "/validate-resourceinterpreterwebhookconfiguration",
        group: CONFIG,
        resources: ["resourceinterpreterwebhookconfigurations"],
        scope: "Cluster",
        operations: CU,
    },
    {
        name: "resourceinterpretercustomization.karmada.io",
        path: "/validate-resourceinterpretercustomization",
        group: CONFIG,
        resources: ["resourceinterpretercustomizations"],
        scope: "Cluster",
        operations: CU,
        timeoutSeconds: 10,
    },
    {
        name: "federatedresourcequota.karmada.io",
        path: "/validate-federatedresourcequota",
        group: POLICY,
        resources: ["federatedresourcequotas"],
        scope: "Namespaced",
        operations: CU,
    },
    {
        name: "multiclusteringress.karmada.io",
        path: "/validate-multiclusteringress",
        group: NETWORKING,
        resources: ["multiclusteringresses"],
        scope: "Namespaced",
        operations: CU,
    },
    { name: "federatedhpa.karmada.io", path: "/validate-federatedhpa", group: AUTOSCALING, resources: ["federatedhpas"], scope: "Namespaced", operations: CU },
    {
        name: "cronfederatedhpa.karmada.io",
        path: "/validate-cronfederatedhpa",
        group: AUTOSCALING,
        resources: ["cronfederatedhpas"],
        scope: "Namespaced",
        operations: CU,
    },
    {
        name: "multiclusterservice.karmada.io",
        path: "/validate-multiclusterservice",
        group: NETWORKING,
        resources: ["multiclusterservices"],
        scope: "Namespaced",
        operations: CU,
    },
    {
        name: "resourcedeletionprotection.karmada.io",
        path: "/validate-resourcedeletionprotection",
        group: "*",
        resources: ["*"],
        scope: "*",
        operations: ["DELETE"],
        objectSelector: { matchExpressions: [{ key: "resourcetemplate.karmada.io/deletion-protected", operator: "Exists" }] },
    },
    {
        name: "resourcebinding.karmada.io",
        path: "/validate-resourcebinding",
        group: WORK,
        resources: ["resourcebindings"],
        scope: "Namespaced",
        operations: CU,
        sideEffects: "NoneOnDryRun",
    },
    {
        name: "clustertaintpolicy.karmada.io",
        path: "/validate-clustertaintpolicy",
        group: POLICY,
        resources: ["clustertaintpolicies"],
        scope: "Cluster",
        operations: CU,
    },
];

/** Every path the configurations below send requests to. */
export const WEBHOOK_PATHS = [...MUTATING, ...VALIDATING].map((w) => w.path);

/** Upstream uses 3 s (10 s for interpreter customizations); a loaded 2-core machine needs slack. */
const MIN_TIMEOUT_SECONDS = 10;

function webhook(rule: WebhookRule, baseUrl: string, caBundle: string): Record<string, unknown> {
    return {
        name: rule.name,
        rules: [{ operations: rule.operations, apiGroups: [rule.group], apiVersions: ["*"], resources: rule.resources, scope: rule.scope }],
        clientConfig: { url: `${baseUrl}${rule.path}`, caBundle },
        failurePolicy: "Fail",
        sideEffects: rule.sideEffects ?? "None",
        admissionReviewVersions: ["v1"],
        timeoutSeconds: Math.max(rule.timeoutSeconds ?? 3, MIN_TIMEOUT_SECONDS),
        ...(rule.objectSelector ? { objectSelector: rule.objectSelector } : {}),
    };
}

/**
 * Mutating and validating webhook configurations for karmada-webhook listening on
 * `https://127.0.0.1:<port>`, whose serving certificate is signed by `caPem`.
 */
export function webhookConfigurations(port: number, caPem: string): { mutating: KubeObject; validating: KubeObject } {
    const base = `https://127.0.0.1:${port}`;
    const ca = Buffer.from(caPem).toString("base64");
    return {
        mutating: {
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "MutatingWebhookConfiguration",
            metadata: { name: "mutating-config", labels: { app: "karmada-webhook" } },
            webhooks: MUTATING.map((r) => webhook(r, base, ca)),
        },
        validating: {
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "ValidatingWebhookConfiguration",
            metadata: { name: "validating-config", labels: { app: "karmada-webhook" } },
            webhooks: VALIDATING.map((r) => webhook(r, base, ca)),
        },
    };
}
