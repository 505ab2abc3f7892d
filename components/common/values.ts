// Helm values helpers (pure).

/** A Helm values tree. */
export type Values = Record<string, unknown>;

/** A map of values; anything else (a list, an Output, a class instance) is a leaf. */
const isPlainObject = (v: unknown): v is Values => typeof v === "object" && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v));

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
