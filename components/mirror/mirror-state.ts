// A mirror as the commands see it: the stack output `mirrors` (what the last `pulumi up` declared,
// /tmp/contract-35.md) and the mirror's entry in the stack config (`kamino:irisClusters[<i>].mirror`),
// which `npm run promote` and `npm run failback` change before any `pulumi up` runs, so the config,
// not the output, says whether a promotion was already recorded.
import { DEFAULTS } from "../config/defaults";

/** One mirror in the stack output `mirrors`, keyed there by `<namespace>/<name>`. */
export interface MirrorOutput {
    /** The IRIS mirror's name, e.g. IRISMIRROR1. */
    name: string;
    /** The member running the failover pair. */
    primary: string;
    /** The pair's IrisCluster, e.g. `iris`. */
    pair: string;
    /** For each DR async member, its IrisCluster, e.g. { ikodr: "iris-ikodr" }. */
    drAsync: Record<string, string>;
    /** The DR member acting as primary, when the last `up` saw `mirror.promoted`. */
    promoted?: string;
    /** The pair declared again to rejoin as DR async (failback step 1). */
    rejoin?: boolean;
    /** The entry's index in `kamino:irisClusters`. */
    configIndex: number;
}

/** A mirror and where it is. */
export interface Mirror extends MirrorOutput {
    /** `<namespace>/<name>`. */
    id: string;
    namespace: string;
}

/** What the stack config says now about a mirror's promotion. */
export interface MirrorConfig {
    promoted?: string;
    rejoin?: boolean;
}

/** The mirror commands' own refusals and failures: `code` is the command's exit code. */
export class MirrorError extends Error {
    constructor(
        message: string,
        /** 1: could not finish (what was done is said); 3: refused before changing anything. */
        readonly code: 1 | 3,
    ) {
        super(message);
    }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The stack output `mirrors`, checked; an absent output is no mirror (a stack from before issue 35). */
export function parseMirrors(output: unknown): Mirror[] {
    if (output === undefined || output === null) return [];
    if (!isObject(output)) throw new MirrorError("the stack output mirrors is not an object: run pulumi up to write it again", 1);
    return Object.entries(output)
        .map(([id, v]) => {
            const m = v as Partial<MirrorOutput>;
            const [namespace, name] = id.split("/");
            if (!namespace || !name || !isObject(v) || typeof m.primary !== "string" || typeof m.pair !== "string" || !isObject(m.drAsync))
                throw new MirrorError(`the stack output mirrors["${id}"] is not a mirror as Kamino writes it: run pulumi up to write it again`, 1);
            return {
                id,
                namespace,
                name: typeof m.name === "string" ? m.name : "IRISMIRROR1",
                primary: m.primary,
                pair: m.pair,
                drAsync: m.drAsync as Record<string, string>,
                ...(typeof m.promoted === "string" ? { promoted: m.promoted } : {}),
                ...(m.rejoin === true ? { rejoin: true } : {}),
                configIndex: typeof m.configIndex === "number" ? m.configIndex : -1,
            };
        })
        .sort((a, b) => a.id.localeCompare(b.id));
}

/** The mirror named `<namespace>/<name>`, or a refusal naming the stack's mirrors. */
export function findMirror(mirrors: Mirror[], id: string, stack: string): Mirror {
    const found = mirrors.find((m) => m.id === id);
    if (found) return found;
    const known = mirrors.length ? `its mirrors are ${mirrors.map((m) => m.id).join(", ")}` : "it has no mirror";
    throw new MirrorError(
        `${id} is not a mirror of stack ${stack} (${known}). Fix: name one of them, or give the IrisCluster a mirror: entry in kamino:irisClusters and run pulumi up`,
        3,
    );
}

/** The config path of a mirror's field, as `pulumi config set --path` takes it. */
export const mirrorConfigPath = (m: Mirror, field: "promoted" | "rejoin") => `kamino:irisClusters[${m.configIndex}].mirror.${field}`;

/**
 * The mirror's entry in the stack config now (`kamino:irisClusters` as `pulumi config get --json`
 * gives it), checked to be the same IrisCluster the output's index names: a config edited since the
 * last `up` could have moved it, and a promotion must not be recorded on another entry.
 */
export function mirrorConfigOf(irisClusters: unknown, m: Mirror): MirrorConfig {
    const mirror = mirrorEntryOf(irisClusters, m).mirror as Record<string, unknown>;
    return {
        ...(typeof mirror.promoted === "string" ? { promoted: mirror.promoted } : {}),
        ...(mirror.rejoin === true || mirror.rejoin === "true" ? { rejoin: true } : {}),
    };
}

/** The mirror's entry in `kamino:irisClusters`, refused unless it is still the IrisCluster the output's index names. */
function mirrorEntryOf(irisClusters: unknown, m: Mirror): Record<string, unknown> {
    const entry = Array.isArray(irisClusters) ? (irisClusters[m.configIndex] as Record<string, unknown> | undefined) : undefined;
    const namespace = typeof entry?.namespace === "string" ? entry.namespace : DEFAULTS.irisNamespace;
    if (!isObject(entry) || entry.name !== m.pair || namespace !== m.namespace || !isObject(entry.mirror)) {
        throw new MirrorError(
            `kamino:irisClusters[${m.configIndex}] is not the mirror ${m.id} any more (the config changed since the last pulumi up). ` +
                "Fix: run pulumi up so that the stack output mirrors matches the config, then run this again",
            3,
        );
    }
    return entry;
}

/**
 * `kamino:irisClusters` with one field of the mirror's entry set (or removed, for undefined), every
 * other entry and field as it was: for a key stored as one JSON string, which `pulumi config set
 * --path` would replace by the path alone (the whole list lost) and `config rm --path` leaves as it is.
 */
export function withMirrorField(irisClusters: unknown, m: Mirror, field: "promoted" | "rejoin", value: string | boolean | undefined): unknown[] {
    const entry = mirrorEntryOf(irisClusters, m);
    const { [field]: _old, ...rest } = entry.mirror as Record<string, unknown>;
    const list = [...(irisClusters as unknown[])];
    list[m.configIndex] = { ...entry, mirror: value === undefined ? rest : { ...rest, [field]: value } };
    return list;
}

/** The member kubeconfig a command needs, from the secret output `kubeconfigs` (never printed). */
export function memberKubeconfig(kubeconfigs: unknown, member: string): string {
    const k = isObject(kubeconfigs) ? kubeconfigs[member] : undefined;
    if (typeof k !== "string" || k === "")
        throw new MirrorError(
            `the stack output kubeconfigs has no kubeconfig for member ${member}: run pulumi up, or reach it yourself (docs/disaster-recovery.md)`,
            1,
        );
    return k;
}
