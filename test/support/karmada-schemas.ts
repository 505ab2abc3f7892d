// Validators for Karmada objects from the upstream v1.15 schemas in ../shared/schemas/karmada:
// CRD openAPIV3Schemas for the policies and interpreter customizations, swagger.json for Cluster
// (served by the aggregated API server, it has no CRD).
import Ajv, { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

/** Where the shared schemas live: beside the repository, as in CI. */
export const SCHEMA_DIR = path.resolve(__dirname, "../../../shared/schemas/karmada");

type Schema = Record<string, unknown>;

/**
 * The API server prunes fields a structural schema does not declare, silently. To catch typos
 * the tests forbid them instead, except where the schema preserves unknown fields.
 */
export function forbidUnknownFields(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map(forbidUnknownFields);
    if (typeof schema !== "object" || schema === null) return schema;
    const s = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === "enum" || k === "example" ? v : forbidUnknownFields(v)])) as Schema;
    if (s.properties && s.additionalProperties === undefined && s["x-kubernetes-preserve-unknown-fields"] !== true) {
        s.additionalProperties = false;
    }
    return s;
}

function ajv(): Ajv {
    const a = new Ajv({ strict: false, allErrors: true });
    addFormats(a);
    for (const f of ["int32", "int64", "byte", "double", "float", "int-or-string"]) a.addFormat(f, true);
    return a;
}

/** A validator for a CRD kind from its CRD file (version v1alpha1 unless given). */
export function crdValidator(file: string, versionName = "v1alpha1"): ValidateFunction {
    const crd = YAML.parse(fs.readFileSync(path.join(SCHEMA_DIR, file), "utf8"));
    const version = crd.spec.versions.find((v: { name: string }) => v.name === versionName);
    return ajv().compile(forbidUnknownFields(version.schema.openAPIV3Schema) as Schema);
}

/** A validator for `cluster.karmada.io/v1alpha1` Cluster from swagger.json. */
export function clusterValidator(): ValidateFunction {
    const swagger = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, "swagger.json"), "utf8"));
    return ajv().compile({
        $ref: "#/definitions/com.github.karmada-io.karmada.pkg.apis.cluster.v1alpha1.Cluster",
        definitions: forbidUnknownFields(swagger.definitions),
    });
}

/** Validators by kind. */
export function karmadaValidators(): Record<string, ValidateFunction> {
    return {
        PropagationPolicy: crdValidator("policy.karmada.io_propagationpolicies.yaml"),
        ClusterPropagationPolicy: crdValidator("policy.karmada.io_clusterpropagationpolicies.yaml"),
        OverridePolicy: crdValidator("policy.karmada.io_overridepolicies.yaml"),
        ResourceInterpreterCustomization: crdValidator("config.karmada.io_resourceinterpretercustomizations.yaml"),
        // Only in the full v1.15.9 CRD set (ClusterTaintPolicy arrived in v1.14).
        ClusterTaintPolicy: crdValidator("crds-v1.15.9/policy.karmada.io_clustertaintpolicies.yaml"),
        Cluster: clusterValidator(),
    };
}

/** Readable validation errors. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
    return (errors ?? []).map(
        (e) => `${e.instancePath || "/"} ${e.message}${e.params && "additionalProperty" in e.params ? ` '${e.params.additionalProperty}'` : ""}`,
    );
}
