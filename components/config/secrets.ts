// Secret handling: the fields each Secret type needs, which config keys hold secret values, and the
// check that such a key is set, marked secret and complete.
import { CONFIG_NAMESPACE } from "./defaults";
import { ConfigPath, hasOwn, Problem } from "./problems";
import { SecretConfig } from "./schema";

/** The part of `ConfigEnvironment` that secret handling reads. */
type SecretProbe = { isSecret?: (key: string) => boolean };

/** The fields each Secret type needs in its secret config value. */
export const SECRET_KEYS: Record<SecretConfig["type"], string[]> = {
    opaque: [],
    dockerconfigjson: ["server", "username", "password"],
    tls: ["tls.crt", "tls.key"],
};

/**
 * Config keys that hold secret values for Secrets and the IKO pull secret. Reads loosely typed
 * input too, so that secret values stay hidden even when `kamino:secrets` itself fails to parse.
 */
export function secretSourceKeys(cfg: { secrets?: unknown; iko?: unknown }): string[] {
    const keys: string[] = [];
    if (Array.isArray(cfg.secrets)) {
        for (const s of cfg.secrets) if (typeof s?.fromConfig === "string") keys.push(s.fromConfig);
    }
    const iko = cfg.iko as { imagePullSecretFromConfig?: unknown } | undefined;
    if (typeof iko?.imagePullSecretFromConfig === "string") keys.push(iko.imagePullSecretFromConfig);
    return keys;
}

/** Keys (without prefix) whose values are secret: Pulumi says so, or a Secret reads its values from it. */
export function secretKeysOf(input: Record<string, unknown>, env: SecretProbe): Set<string> {
    const marked = Object.keys(input).filter((short) => env.isSecret?.(`${CONFIG_NAMESPACE}:${short}`) === true);
    return new Set([...marked, ...secretSourceKeys(input)]);
}

/** A secret config key named by a Secret (or the IKO pull secret) is set, marked secret, and has the fields its type needs. */
export function checkSecretSource(at: ConfigPath, key: string, type: SecretConfig["type"], input: Record<string, unknown>, env: SecretProbe): Problem[] {
    const full = `${CONFIG_NAMESPACE}:${key}`;
    if (!hasOwn(input, key)) {
        return [{ path: at, reason: `config key '${full}' is not set`, fix: `set it with 'pulumi config set --secret ${full} ...'` }];
    }
    const problems: Problem[] = [];
    if (env.isSecret && !env.isSecret(full)) {
        problems.push({ path: at, reason: `config key '${full}' is not a secret`, fix: `set it again with 'pulumi config set --secret ${full} ...'` });
    }
    const value = input[key];
    const required = SECRET_KEYS[type];
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
        const fields = required.length > 0 ? ` with ${required.map((r) => `'${r}'`).join(", ")}` : " of fields";
        problems.push({ path: at, reason: `'${full}' must be an object${fields}`, fix: `use 'pulumi config set --secret --path ${full}.<field> ...'` });
        return problems;
    }
    const missing = required.filter((r) => typeof (value as Record<string, unknown>)[r] !== "string");
    if (missing.length > 0) {
        problems.push({
            path: at,
            reason: `'${full}' lacks ${missing.map((m) => `'${m}'`).join(", ")} for a ${type} Secret`,
            fix: `set ${missing.length > 1 ? "them" : "it"} with 'pulumi config set --secret --path ${full}.${missing[0]} ...'`,
        });
    }
    return problems;
}
