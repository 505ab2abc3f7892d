// The kill sweep's bookkeeping (test/cluster/chaos.ts): moments replay from their seed, every phase
// is drawn before one repeats, and the phase a run was in is read from what the CLI printed.
import { drawMoments, FIRST_PASS_MAX_DELAY_MS, PHASES, reached, runState, seededRandom } from "../cluster/chaos";

describe("kill moments", () => {
    test("a seed replays the same moments; another seed draws others", () => {
        const a = drawMoments(PHASES, 16, seededRandom(4242));
        expect(drawMoments(PHASES, 16, seededRandom(4242))).toEqual(a);
        expect(drawMoments(PHASES, 16, seededRandom(4243))).not.toEqual(a);
        for (const m of a) expect(m.delayMs).toBeGreaterThanOrEqual(0);
        for (const m of a) expect(m.delayMs).toBeLessThanOrEqual(1500);
    });

    test("every phase is drawn once before any phase repeats, early in the phase on that first pass", () => {
        for (const seed of [1, 2, 3, 99]) {
            const moments = drawMoments(PHASES, PHASES.length + 2, seededRandom(seed));
            expect(new Set(moments.slice(0, PHASES.length).map((m) => m.phase))).toEqual(new Set(PHASES));
            for (const m of moments.slice(0, PHASES.length)) expect(m.delayMs).toBeLessThanOrEqual(FIRST_PASS_MAX_DELAY_MS);
        }
    });

    test("a phase is reached once one of its steps started, even if it already ended", () => {
        const out = [
            " +  kubernetes:helm.sh/v3:Release ikoclone-iko-iko created (9s)",
            " +  kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition irisclusters-crd creating (0s)",
            " +  kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition irisclusters-crd created (0.1s)",
        ].join("\n");
        expect(reached(out, "crd-copy")).toBe(true);
        expect(reached(out, "policies")).toBe(false);
        expect(reached(out, "running-wait")).toBe(false);
        expect(reached(`${out}\n +  kubernetes:intersystems.com/v1alpha1:IrisCluster federated-iris-template creating (0s)`, "running-wait")).toBe(false);
        expect(reached(`${out}\n +  kubernetes:intersystems.com/v1alpha1:IrisCluster federated-iris-template created (0s)`, "running-wait")).toBe(true);
    });

    test("the phase is the one of the steps under way; components and providers name none", () => {
        const out = [
            " +  pulumi:pulumi:Stack kamino-faults creating (0s)",
            " +  kamino:index:Fleet fleet creating (0s)",
            " +  pulumi:providers:kubernetes ikoclone-k8s creating (0s)",
        ];
        expect(runState(out.join("\n"))).toEqual({ phase: "start", phases: [], underWay: [] });
        out.push(" +  kubernetes:helm.sh/v3:Release ikoclone-iko-iko creating (1s)");
        expect(runState(out.join("\n"))).toEqual({
            phase: "helm-installs",
            phases: ["helm-installs"],
            underWay: ["kubernetes:helm.sh/v3:Release ikoclone-iko-iko"],
        });
        out.push(
            " +  kubernetes:helm.sh/v3:Release ikoclone-iko-iko created (9s)",
            " +  kubernetes:cluster.karmada.io/v1alpha1:Cluster ikoclone-member-cluster creating (0s)",
        );
        expect(runState(out.join("\n")).phase).toBe("joins");
        // Side by side: another member's Helm install under way with this member's join.
        const sideBySide = [
            ...out,
            " +  kubernetes:helm.sh/v3:Release ikoclone2-iko-iko creating (0s)",
            " +  kubernetes:core/v1:ServiceAccount ikoclone-member-sa creating (0s)",
        ].join("\n");
        expect(runState(sideBySide).phases.sort()).toEqual(["helm-installs", "joins"]);
        out.push(
            " +  kubernetes:cluster.karmada.io/v1alpha1:Cluster ikoclone-member-cluster created (1s)",
            " +  kubernetes:intersystems.com/v1alpha1:IrisCluster federated-iris-template created (0.2s)",
        );
        // Templates created and nothing under way: the run waits for IRIS to run.
        expect(runState(out.join("\n"))).toEqual({ phase: "running-wait", phases: ["running-wait"], underWay: [] });
    });

    test("a destroy's deletes are read the same way", () => {
        const out =
            " -  kubernetes:policy.karmada.io/v1alpha1:PropagationPolicy iriscluster-propagate deleting (0s)\n -  kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition irisclusters-crd deleting (0s)";
        expect(runState(out).underWay).toHaveLength(2);
        expect(runState(out).phase).toBe("crd-copy");
        // The interpreter goes with the CRD copy; Karmada-side namespaces with the policies.
        expect(runState(" -  kubernetes:config.karmada.io/v1alpha1:ResourceInterpreterCustomization iris-interpreter-customization deleting (0s)").phase).toBe(
            "crd-copy",
        );
        expect(runState(" -  kubernetes:core/v1:Namespace karmada-ns-iris deleting (0s)").phase).toBe("policies");
        expect(runState(" -  kubernetes:core/v1:Namespace ikoclone-iko-ns deleting (0s)").phase).toBe("add-ons");
    });
});
