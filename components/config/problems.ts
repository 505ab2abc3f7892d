// What a config problem is (Problem, ConfigError), how a zod issue becomes one, and how problems
// are rendered: `kamino:<path> = <value>: <reason>; fix: <fix>`, with secret values scrubbed.
import { z } from "zod";
import { CONFIG_NAMESPACE } from "./defaults";
import { FIX_MARK, KEY_SCHEMAS } from "./schema";

/** A key path below `kamino:`, as zod reports it: `["clusters", 2, "name"]` is `kamino:clusters[2].name`. */
export type ConfigPath = (string | number)[];

/** One thing wrong with the stack config. The offending value is looked up by `path` when rendered. */
export interface Problem {
    path: ConfigPath;
    /** What is wrong, without the value (rendering adds it, or hides it when secret). */
    reason: string;
    /** What the user should do. */
    fix: string;
}

/** Raised when the stack config is invalid; `problems` has one line per problem, each naming its key. */
export class ConfigError extends Error {
    constructor(public readonly problems: string[]) {
        super(`Invalid Kamino stack config (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` + problems.map((p) => `  - ${p}`).join("\n"));
        this.name = "ConfigError";
    }
}

// ---------------------------------------------------------------------------------------------
// Schema issues -> problems

/** One problem per zod issue; an unknown-fields issue becomes one problem per field, at that field. */
export function problemsOfIssue(short: string, issue: z.ZodIssue): Problem[] {
    const path = [short, ...issue.path];
    if (issue.code === z.ZodIssueCode.unrecognized_keys) {
        return issue.keys.map((field) => ({
            path: [...path, field],
            reason: "unknown field",
            fix: `remove it or correct its spelling; docs/configuration.md lists the fields of ${CONFIG_NAMESPACE}:${short}`,
        }));
    }
    return [{ path, ...describeIssue(issue) }];
}

/**
 * Reason and fix of a zod issue. A schema's own message (reason and fix joined by FIX_MARK) wins;
 * otherwise both are built from the issue code, never from zod's default text, which can quote the value.
 */
export function describeIssue(issue: z.ZodIssue): { reason: string; fix: string } {
    const [reason, fix] = issue.message.split(FIX_MARK);
    if (fix !== undefined) return { reason, fix };
    const see = "see docs/configuration.md";
    switch (issue.code) {
        case z.ZodIssueCode.invalid_type:
            if (issue.received === "undefined") return { reason: "this field is required", fix: `set it; ${see}` };
            if (issue.expected === "integer") return { reason: "must be a whole number", fix: "drop the fraction" };
            return {
                reason: `must be ${article(issue.expected)}, not ${article(issue.received)}`,
                fix:
                    (issue.expected === "number" || issue.expected === "boolean") && issue.received === "string"
                        ? `write it without quotes`
                        : `write it as ${article(issue.expected)}`,
            };
        case z.ZodIssueCode.invalid_enum_value:
            return { reason: "is not one of the allowed values", fix: `use one of ${issue.options.join(", ")}` };
        case z.ZodIssueCode.too_small:
            if (issue.type === "string" && Number(issue.minimum) === 1) return { reason: "is empty", fix: "give a value or remove the field" };
            if (issue.type === "array") return { reason: `has fewer than ${issue.minimum} entries`, fix: `list at least ${issue.minimum}` };
            if (issue.type === "string") return { reason: `is shorter than ${issue.minimum} characters`, fix: "lengthen it" };
            return { reason: `is less than ${issue.minimum}`, fix: `use a number of at least ${issue.minimum}` };
        case z.ZodIssueCode.too_big:
            if (issue.type === "array") return { reason: `has more than ${issue.maximum} entries`, fix: `list at most ${issue.maximum}` };
            if (issue.type === "string") return { reason: `is longer than ${issue.maximum} characters`, fix: `shorten it to at most ${issue.maximum}` };
            return { reason: `is more than ${issue.maximum}`, fix: `use a number of at most ${issue.maximum}` };
        case z.ZodIssueCode.invalid_string:
            if (issue.validation === "url") return { reason: "is not a URL", fix: "give a full URL, e.g. https://helm.cilium.io" };
            return { reason: "is not in the expected format", fix: see };
        default:
            return { reason: "is not valid", fix: see };
    }
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

// ---------------------------------------------------------------------------------------------
// Rendering: `kamino:<path> = <value>: <reason>; fix: <fix>`, or `... is missing: ...`

/** Stands in for every value read from a secret config key. */
export const SECRET_PLACEHOLDER = "[secret]";
/** Longest rendered value; longer ones are cut, since the point is to recognise the value, not to dump it. */
export const MAX_SHOWN_VALUE = 60;
/** Secret strings shorter than this are not scrubbed from reasons: too likely to match ordinary words. */
const MIN_SCRUBBED_SECRET = 6;

/** Where rendering finds the offending values, and which keys must not show theirs. */
export interface RenderContext {
    input: Record<string, unknown>;
    /** Keys that parsed, defaults filled in: shows a defaulted value the input lacks. */
    parsed: Record<string, unknown>;
    secretKeys: Set<string>;
}

export function renderProblems(problems: Problem[], ctx: RenderContext): string[] {
    const secrets = secretStrings(ctx);
    return problems.map((p) => scrub(renderProblem(p, ctx), secrets));
}

function renderProblem(p: Problem, ctx: RenderContext): string {
    return `${configKey(p.path)} ${showAt(p.path, ctx)}: ${p.reason}; fix: ${p.fix}`;
}

/** `["clusters", 2, "name"]` -> `kamino:clusters[2].name`. */
export function configKey(path: ConfigPath): string {
    const [short, ...rest] = path;
    return `${CONFIG_NAMESPACE}:${short}${rest.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("")}`;
}

/** `= <value>`, `= <value> (default)`, `= [secret]` or `is missing`. */
function showAt(path: ConfigPath, ctx: RenderContext): string {
    const given = lookup(ctx.input, path);
    const found = given.found ? given : lookup(ctx.parsed, path);
    if (!found.found) return "is missing";
    const shown = ctx.secretKeys.has(String(path[0])) ? SECRET_PLACEHOLDER : showValue(found.value);
    return given.found ? `= ${shown}` : `= ${shown} (default)`;
}

/** A value as short JSON, cut to MAX_SHOWN_VALUE characters; JSON escapes quotes and newlines. */
export function showValue(value: unknown): string {
    const json = JSON.stringify(value) ?? String(value);
    return json.length > MAX_SHOWN_VALUE ? `${json.slice(0, MAX_SHOWN_VALUE - 1)}…` : json;
}

/** The value at a path, distinguishing "absent" from a present `undefined`-free JSON value. */
export function lookup(root: unknown, path: ConfigPath): { found: boolean; value?: unknown } {
    let here: unknown = root;
    for (const step of path) {
        if (typeof here !== "object" || here === null || !hasOwn(here, step)) return { found: false };
        here = (here as Record<string | number, unknown>)[step];
    }
    return here === undefined ? { found: false } : { found: true, value: here };
}

/**
 * Strings of secret keys that reasons may quote. Reasons quote only parsed config (cluster, Secret and
 * IrisCluster names), so this guards the odd stack that marks a whole structural key such as
 * `kamino:clusters` secret; values of other secret keys only ever appear through `showAt`, masked.
 */
function secretStrings(ctx: RenderContext): string[] {
    const out: string[] = [];
    const walk = (v: unknown): void => {
        if (typeof v === "string") out.push(v);
        else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
        else if (Array.isArray(v)) v.forEach(walk);
        else if (typeof v === "object" && v !== null) Object.values(v).forEach(walk);
    };
    for (const key of ctx.secretKeys) if (hasOwn(KEY_SCHEMAS, key)) walk(ctx.input[key]);
    // Longest first, so a secret containing another is cut whole.
    return [...new Set(out)].filter((s) => s.length >= MIN_SCRUBBED_SECRET).sort((a, b) => b.length - a.length);
}

function scrub(line: string, secrets: string[]): string {
    return secrets.reduce((l, s) => l.split(s).join(SECRET_PLACEHOLDER), line);
}

/** Own-property test: config input has no prototype, and user keys such as `constructor` must not look set. */
export const hasOwn = (o: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(o, key);
