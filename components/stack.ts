// Helpers for the program entry point (index.ts): secret config values and check commands.
import * as pulumi from "@pulumi/pulumi";
import { FleetConfig } from "./config";

/** Reads every secret config key the fleet config references, as secret outputs. */
export function secretConfigValues(cfg: FleetConfig, config: pulumi.Config): Record<string, pulumi.Output<Record<string, string>>> {
    const keys = new Set([...cfg.secrets.map((s) => s.fromConfig), ...(cfg.iko.imagePullSecretFromConfig ? [cfg.iko.imagePullSecretFromConfig] : [])]);
    return Object.fromEntries([...keys].map((k) => [k, config.requireSecretObject<Record<string, string>>(k)]));
}

/** Commands (kubectl, kind, pulumi) a user can paste to see what the stack did. */
export function checkCommands(cfg: FleetConfig): Record<string, string> {
    const kubeconfigOf = (name: string) => {
        const c = cfg.clusters.find((x) => x.name === name)!;
        return c.provider === "kind"
            ? `kind get kubeconfig --name ${cfg.kindNamePrefix}${name} > ${name}.kubeconfig`
            : `pulumi stack output kubeconfigs --show-secrets --json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8"))["${name}"])' > ${name}.kubeconfig`;
    };
    const karmada = "kubectl --kubeconfig karmada.kubeconfig";
    const members = cfg.clusters.filter((c) => !c.karmadaHost);
    const out: Record<string, string> = {
        "1-karmada-kubeconfig": "pulumi stack output karmadaKubeconfig --show-secrets > karmada.kubeconfig",
        "2-members-ready": `${karmada} get clusters`,
        "3-templates": `${karmada} get irisclusters -A`,
        "4-placement-and-health": `${karmada} get resourcebindings -A -o custom-columns=NAME:.metadata.name,CLUSTERS:.spec.clusters[*].name,HEALTH:.status.aggregatedStatus[*].health`,
    };
    members.forEach((m, i) => {
        out[`${5 + i}-on-${m.name}`] = `${kubeconfigOf(m.name)} && kubectl --kubeconfig ${m.name}.kubeconfig get irisclusters -A`;
    });
    return out;
}

/**
 * True when a config key holds a Pulumi secret. The SDK knows (runtime.isConfigSecret) but
 * marks the function internal, so it is reached through a narrow cast.
 */
export function isSecretConfigKey(key: string): boolean {
    const runtime = pulumi.runtime as unknown as { isConfigSecret?: (k: string) => boolean };
    return runtime.isConfigSecret ? runtime.isConfigSecret(key) : true;
}
