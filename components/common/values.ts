// Helm values helpers (pure).

/** A Helm values tree. */
export type Values = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Values => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Merges Helm values the way `helm -f a -f b` does: maps merge key by key, anything else
 * (lists included) is replaced by the later value.
 */
export function mergeValues(...layers: Values[]): Values {
    const out: Values = {};
    for (const layer of layers) {
        for (const [key, value] of Object.entries(layer)) {
            out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeValues(out[key] as Values, value) : value;
        }
    }
    return out;
}
