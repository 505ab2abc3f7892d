// The stack transform that makes Kamino's objects take their fields back (server-side apply force).
import * as pulumi from "@pulumi/pulumi";
import { forceFieldOwnership, isAppliedKubernetesObject, PATCH_FORCE_ANNOTATION, withPatchForce } from "../../components/common/field-ownership";

const transform = (type: string, props: Record<string, unknown>, custom = true) =>
    forceFieldOwnership({ type, name: "x", custom, props, opts: {} }) as { props: Record<string, unknown> } | undefined;

describe("field ownership", () => {
    test("objects the provider applies are annotated; Helm releases, charts, YAML groups, providers and components are not", () => {
        expect(isAppliedKubernetesObject("kubernetes:core/v1:Secret", true)).toBe(true);
        expect(isAppliedKubernetesObject("kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy", true)).toBe(true);
        expect(isAppliedKubernetesObject("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", true)).toBe(true);
        expect(isAppliedKubernetesObject("kubernetes:helm.sh/v3:Release", true)).toBe(false);
        expect(isAppliedKubernetesObject("kubernetes:helm.sh/v4:Chart", true)).toBe(false);
        expect(isAppliedKubernetesObject("kubernetes:yaml/v2:ConfigGroup", true)).toBe(false);
        expect(isAppliedKubernetesObject("pulumi:providers:kubernetes", true)).toBe(false);
        expect(isAppliedKubernetesObject("kamino:index:KarmadaMember", false)).toBe(false);
        expect(isAppliedKubernetesObject("command:local:Command", true)).toBe(false);
    });

    test("the annotation joins the object's own annotations and keeps the rest of metadata", () => {
        const out = transform("kubernetes:core/v1:ConfigMap", {
            metadata: { name: "cpf", namespace: "iris", annotations: { owner: "team-a" } },
            data: { a: "1" },
        })!;
        expect(out.props).toEqual({
            metadata: { name: "cpf", namespace: "iris", annotations: { owner: "team-a", [PATCH_FORCE_ANNOTATION]: "true" } },
            data: { a: "1" },
        });
        expect(transform("kubernetes:core/v1:Namespace", {})!.props.metadata).toEqual({ annotations: { [PATCH_FORCE_ANNOTATION]: "true" } });
        expect(transform("kubernetes:helm.sh/v3:Release", { name: "iko" })).toBeUndefined();
    });

    test("metadata or annotations that are Outputs stay Outputs, annotated", async () => {
        const whole = withPatchForce(pulumi.output({ name: "n", annotations: { a: "b" } })) as pulumi.Output<Record<string, unknown>>;
        expect(await new Promise((r) => whole.apply(r))).toEqual({ name: "n", annotations: { a: "b", [PATCH_FORCE_ANNOTATION]: "true" } });
        const inner = withPatchForce({ name: "n", annotations: pulumi.output({ a: "b" }) }) as { annotations: pulumi.Output<Record<string, string>> };
        expect(await new Promise((r) => inner.annotations.apply(r))).toEqual({ a: "b", [PATCH_FORCE_ANNOTATION]: "true" });
    });
});
