// `kamino:manifests`: reading each YAML file into the objects Kamino creates in Karmada, what Kamino
// must know of each object's kind (its API resource and scope, for RBAC, the policy and discovery),
// and the checks: every document an object, no kind Kamino manages itself, no object twice.
import * as YAML from "yaml";
import { CONFIG_NAMESPACE, DEFAULTS } from "./defaults";
import { ConfigPath, Problem } from "./problems";
import { ManifestConfig, ManifestEntryConfig, ManifestObject } from "./schema";
import type { CheckContext, CheckedConfig } from "./context";

/** What Kamino knows of a kind: its API resource (plural) and whether its objects live in a namespace. */
export interface KindFacts {
    resource: string;
    namespaced: boolean;
}

/**
 * Built-in kinds a manifest may plausibly hold, keyed `group/Kind` ("" group: `/Kind`). Kinds not
 * listed are taken as namespaced with Kubernetes' guessed plural, unless a CRD in kamino:manifests
 * says otherwise; on `up` the Karmada API's discovery confirms both (manifest-kinds.ts).
 */
export const BUILT_IN_KINDS: Readonly<Record<string, KindFacts>> = Object.fromEntries(
    (
        [
            ["", "ConfigMap", "configmaps", true],
            ["", "Secret", "secrets", true],
            ["", "Service", "services", true],
            ["", "ServiceAccount", "serviceaccounts", true],
            ["", "PersistentVolumeClaim", "persistentvolumeclaims", true],
            ["", "Pod", "pods", true],
            ["", "Endpoints", "endpoints", true],
            ["", "LimitRange", "limitranges", true],
            ["", "ResourceQuota", "resourcequotas", true],
            ["", "Namespace", "namespaces", false],
            ["", "PersistentVolume", "persistentvolumes", false],
            ["apps", "Deployment", "deployments", true],
            ["apps", "StatefulSet", "statefulsets", true],
            ["apps", "DaemonSet", "daemonsets", true],
            ["apps", "ReplicaSet", "replicasets", true],
            ["batch", "Job", "jobs", true],
            ["batch", "CronJob", "cronjobs", true],
            ["autoscaling", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true],
            ["policy", "PodDisruptionBudget", "poddisruptionbudgets", true],
            ["networking.k8s.io", "NetworkPolicy", "networkpolicies", true],
            ["networking.k8s.io", "Ingress", "ingresses", true],
            ["networking.k8s.io", "IngressClass", "ingressclasses", false],
            ["discovery.k8s.io", "EndpointSlice", "endpointslices", true],
            ["rbac.authorization.k8s.io", "Role", "roles", true],
            ["rbac.authorization.k8s.io", "RoleBinding", "rolebindings", true],
            ["rbac.authorization.k8s.io", "ClusterRole", "clusterroles", false],
            ["rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", false],
            ["storage.k8s.io", "StorageClass", "storageclasses", false],
            ["scheduling.k8s.io", "PriorityClass", "priorityclasses", false],
            ["node.k8s.io", "RuntimeClass", "runtimeclasses", false],
            ["apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions", false],
            ["admissionregistration.k8s.io", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false],
            ["admissionregistration.k8s.io", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false],
        ] as const
    ).map(([group, kind, resource, namespaced]) => [`${group}/${kind}`, { resource, namespaced }]),
);

/** The API group of an apiVersion: `apps/v1` -> `apps`, `v1` -> "". */
export const apiGroup = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.split("/")[0] : "");

/**
 * A kind's plural as CRD authors write it: Kubernetes' guess (apimachinery
 * meta.UnsafeGuessKindToResource), except that a vowel before a final "y" keeps it (gateways).
 */
export function guessResource(kind: string): string {
    const singular = kind.toLowerCase();
    if (singular.endsWith("s")) return `${singular}es`;
    if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
    return `${singular}s`;
}

/** The kinds the CustomResourceDefinitions among `docs` define, keyed `group/Kind`. */
function crdKinds(docs: Record<string, unknown>[]): Record<string, KindFacts> {
    const out: Record<string, KindFacts> = {};
    for (const d of docs) {
        if (d.kind !== "CustomResourceDefinition" || apiGroup(String(d.apiVersion)) !== "apiextensions.k8s.io") continue;
        const spec = d.spec as { group?: unknown; scope?: unknown; names?: { kind?: unknown; plural?: unknown } } | undefined;
        if (typeof spec?.group !== "string" || typeof spec.names?.kind !== "string" || typeof spec.names.plural !== "string") continue;
        out[`${spec.group}/${spec.names.kind}`] = { resource: spec.names.plural, namespaced: spec.scope !== "Cluster" };
    }
    return out;
}

/** What Kamino takes a kind to be: built in, defined by a manifest's CRD, or guessed (namespaced). */
export function kindFacts(group: string, kind: string, defined: Record<string, KindFacts> = {}): KindFacts {
    return BUILT_IN_KINDS[`${group}/${kind}`] ?? defined[`${group}/${kind}`] ?? { resource: guessResource(kind), namespaced: true };
}

/** `Kind[.group] namespace/name` (or `Kind[.group] name`): how outputs and messages name an object. */
export function manifestObjectId(o: Pick<ManifestObject, "kind" | "group" | "namespace" | "name">): string {
    return `${o.kind}${o.group ? `.${o.group}` : ""} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
}

/** One file read: its documents as objects, or why not. */
interface ReadFile {
    /** The non-empty documents, with their index in the file. */
    docs: Array<{ document: number; value: unknown }>;
    problems: Array<{ reason: string; fix: string }>;
}

function readYaml(text: string): ReadFile {
    const out: ReadFile = { docs: [], problems: [] };
    YAML.parseAllDocuments(text).forEach((doc, document) => {
        const error = doc.errors[0];
        if (error) {
            out.problems.push({
                reason: `document ${document} is not valid YAML (${error.message.split("\n")[0]})`,
                fix: "correct the YAML; separate documents with a line '---'",
            });
            return;
        }
        const value = doc.toJS();
        if (value !== null && value !== undefined) out.docs.push({ document, value });
    });
    return out;
}

/** The objects of one entry's documents, defaulted, and the problems of its documents (reason and fix). */
function objectsOf(
    docs: ReadFile["docs"],
    defined: Record<string, KindFacts>,
): { objects: ManifestObject[]; problems: Array<{ reason: string; fix: string }> } {
    const problems: Array<{ reason: string; fix: string }> = [];
    const objects: ManifestObject[] = [];
    for (const { document, value } of docs) {
        const at = `document ${document}`;
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
            problems.push({ reason: `${at} is not a Kubernetes object`, fix: "write one object (apiVersion, kind, metadata) per document" });
            continue;
        }
        const o = value as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
        const missing = [
            ...(typeof o.apiVersion === "string" && o.apiVersion !== "" ? [] : ["apiVersion"]),
            ...(typeof o.kind === "string" && o.kind !== "" ? [] : ["kind"]),
            ...(typeof o.metadata?.name === "string" && o.metadata.name !== "" ? [] : ["metadata.name"]),
        ];
        if (missing.length > 0) {
            problems.push({ reason: `${at} has no ${missing.join(", ")}`, fix: "every object needs apiVersion, kind and metadata.name" });
            continue;
        }
        const apiVersion = o.apiVersion as string;
        const kind = o.kind as string;
        const name = o.metadata!.name as string;
        if (kind.endsWith("List")) {
            problems.push({ reason: `${at} is a ${kind}`, fix: "write each of its items as a document of its own" });
            continue;
        }
        const group = apiGroup(apiVersion);
        const facts = kindFacts(group, kind, defined);
        const given = o.metadata!.namespace;
        if (given !== undefined && (typeof given !== "string" || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(given))) {
            problems.push({
                reason: `${at} (${kind} '${name}') has an invalid metadata.namespace`,
                fix: "use a namespace name: lower-case letters, digits and '-'",
            });
            continue;
        }
        if (!facts.namespaced && given !== undefined) {
            problems.push({ reason: `${at}: ${kind} '${name}' is cluster-scoped and cannot have a namespace`, fix: "remove its metadata.namespace" });
            continue;
        }
        const namespace = facts.namespaced ? ((given as string | undefined) ?? DEFAULTS.irisNamespace) : undefined;
        const metadata = { ...(value as { metadata: Record<string, unknown> }).metadata, ...(namespace ? { namespace } : {}) };
        objects.push({
            document,
            apiVersion,
            kind,
            group,
            name,
            namespace,
            resource: facts.resource,
            body: { ...(value as Record<string, unknown>), metadata },
        });
    }
    return { objects, problems };
}

/**
 * Reads every entry's file into its objects; `problems` name `kamino:manifests[i].path`. A CRD in
 * any file tells the scope and resource of its kind in every file. Without `readFile` (a caller
 * that cannot read files) nothing is read and entries get no objects.
 */
export function readManifests(
    entries: ManifestEntryConfig[],
    env: { pathExists?: (path: string) => boolean; readFile?: (path: string) => string },
): { manifests: ManifestConfig[]; problems: Problem[] } {
    const problems: Problem[] = [];
    const files = entries.map((entry, i): ReadFile => {
        const at: ConfigPath = ["manifests", i, "path"];
        if (env.pathExists && !env.pathExists(entry.path)) {
            problems.push({ path: at, reason: "file does not exist", fix: "create it, or give its path relative to the project directory" });
            return { docs: [], problems: [] };
        }
        if (!env.readFile) return { docs: [], problems: [] };
        try {
            return readYaml(env.readFile(entry.path));
        } catch (e) {
            problems.push({
                path: at,
                reason: `cannot read the file (${(e as Error).message})`,
                fix: "make it a readable file, relative to the project directory",
            });
            return { docs: [], problems: [] };
        }
    });
    const defined = crdKinds(
        files.flatMap((f) => f.docs.map((d) => d.value)).filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)),
    );
    const manifests = entries.map((entry, i): ManifestConfig => {
        const at: ConfigPath = ["manifests", i, "path"];
        const read = objectsOf(files[i].docs, defined);
        const fileProblems = [...files[i].problems, ...read.problems];
        problems.push(...fileProblems.map((p) => ({ path: at, ...p })));
        if (env.readFile && fileProblems.length === 0 && read.objects.length === 0 && !problems.some((p) => p.path[1] === i)) {
            problems.push({ path: at, reason: "the file holds no object", fix: "write at least one object in it, or remove the entry" });
        }
        return { ...entry, objects: read.objects };
    });
    return { manifests, problems };
}

/**
 * Why a kind cannot be in a manifest, and what to use instead; undefined when it can. Kamino keeps
 * these itself, with their own keys, and a second copy would fight it for the object. (An object a
 * follower declares, such as a ConfigMap of kamino:configMaps, is refused by name:
 * followers/derived.ts checkFollowerObjectsInManifests.)
 */
function managedKind(o: ManifestObject, cfg: CheckedConfig): { reason: string; fix: string } | undefined {
    const what = `${o.kind} '${o.namespace ? `${o.namespace}/` : ""}${o.name}'`;
    if (o.group === "intersystems.com" && o.kind === "IrisCluster") {
        return { reason: `${what}: Kamino federates IrisClusters itself`, fix: `declare it in ${CONFIG_NAMESPACE}:irisClusters instead` };
    }
    if (o.group === "" && o.kind === "Secret") {
        const j = (cfg.secrets ?? []).findIndex((s) => s.name === o.name && s.namespace === o.namespace);
        return {
            reason: `${what}: a Secret's values belong in encrypted secret config, not in a file${j >= 0 ? ` (it is ${CONFIG_NAMESPACE}:secrets[${j}] already)` : ""}`,
            fix: j >= 0 ? "remove it from the file" : `declare it in ${CONFIG_NAMESPACE}:secrets, its values in a secret config key`,
        };
    }
    if (o.group === "" && o.kind === "Namespace") {
        return {
            reason: `${what}: Kamino creates the namespaces its objects use, and Karmada sends every namespace to every member`,
            fix: "remove it; an object with metadata.namespace set makes its namespace",
        };
    }
    if (o.group.endsWith("karmada.io")) {
        return {
            reason: `${what} is a Karmada object, which stays in the Karmada API and is never propagated`,
            fix: "remove it; the entry's placement is what propagates the file's objects",
        };
    }
    return undefined;
}

/**
 * The checks of `kamino:manifests`: each file readable and made of objects (readManifests), no
 * path listed twice, no kind Kamino manages under another key, no object in two places. Placements
 * are checked with the other placements (checkPlacements, checkFailoverPlacements).
 */
export function checkManifests(cfg: CheckedConfig, { env }: CheckContext): Problem[] {
    const entries = cfg.manifests ?? [];
    const { manifests, problems } = readManifests(entries, env);
    const firstPath = new Map<string, number>();
    const firstObject = new Map<string, string>();
    manifests.forEach((m, i) => {
        const at: ConfigPath = ["manifests", i, "path"];
        const earlier = firstPath.get(m.path);
        if (earlier !== undefined) {
            problems.push({ path: at, reason: `the file is listed twice (also ${CONFIG_NAMESPACE}:manifests[${earlier}])`, fix: "list each file once" });
            return;
        }
        firstPath.set(m.path, i);
        for (const o of m.objects) {
            const managed = managedKind(o, cfg);
            if (managed) {
                problems.push({ path: at, reason: `document ${o.document}: ${managed.reason}`, fix: managed.fix });
                continue;
            }
            const id = manifestObjectId(o);
            const seen = firstObject.get(id);
            if (seen !== undefined)
                problems.push({ path: at, reason: `document ${o.document}: ${id} is declared twice (also ${seen})`, fix: "keep one of them" });
            else firstObject.set(id, `${CONFIG_NAMESPACE}:manifests[${i}].path document ${o.document}`);
        }
    });
    return problems;
}
