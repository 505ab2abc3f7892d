// How the commands (recover, failback, status) name a stack and run the Pulumi CLI on it: one
// parser for their arguments, one set of flags for every pulumi call, and one way to read a
// stack's outputs. Outputs are read with --show-secrets (the Karmada kubeconfig is one): what pulumi
// prints then is captured in this process, never shown, never written to disk, and never quoted in
// an error message, so a secret cannot leak through a failure either.
import { execFile, execFileSync, spawn } from "child_process";

/** Which stack a command works on, and from where. */
export interface StackRef {
    /** The stack named with --stack; the selected stack when undefined. */
    stack?: string;
    /** The project folder (with Pulumi.yaml); this process's when undefined. */
    cwd?: string;
    /** The npm script the user ran (`status`), for the hint when the pulumi CLI is missing. */
    command?: string;
    /** The environment pulumi runs in (PATH finds it); this process's when undefined. */
    env?: NodeJS.ProcessEnv;
}

/** A pulumi command that failed; the message is pulumi's own error line, "error: " cut off. */
export class PulumiError extends Error {}

/** What a command accepts besides positional arguments. */
export interface ArgSpec {
    /** Options that take a value, by every spelling, e.g. { "--stack": "stack", "-s": "stack" }. */
    values?: Record<string, string>;
    /** What each value is, for the message when it is missing, e.g. { stack: "a stack name" }. */
    valueNames?: Record<string, string>;
    /** Options without a value, by every spelling, e.g. { "--watch": "watch", "-w": "watch" }. */
    flags?: Record<string, string>;
    /** True when the command takes positional arguments (then only a dash-argument is unknown). */
    positionals?: boolean;
}

/** A parsed command line: option values, the flags given, and the positional arguments. */
export interface ParsedArgs {
    values: Record<string, string>;
    flags: Set<string>;
    positionals: string[];
}

/**
 * Parses a command's arguments; a command line that does not parse goes to `usage`, which prints
 * the message with the command's usage and ends it. An option's value may not start with "-":
 * `--stack --destroy` is a missing stack name, not a stack called "--destroy".
 */
export function parseCommandArgs(argv: string[], spec: ArgSpec, usage: (message: string) => never): ParsedArgs {
    const parsed: ParsedArgs = { values: {}, flags: new Set(), positionals: [] };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const valueKey = spec.values?.[a];
        if (valueKey !== undefined) {
            const value = argv[++i];
            if (value === undefined || value.startsWith("-")) return usage(`${a} needs ${spec.valueNames?.[valueKey] ?? "a value"}`);
            parsed.values[valueKey] = value;
        } else if (spec.flags?.[a] !== undefined) {
            parsed.flags.add(spec.flags[a]);
        } else if (spec.positionals && !a.startsWith("-")) {
            parsed.positionals.push(a);
        } else {
            return usage(spec.positionals ? `unknown option ${a}` : `unknown argument ${a}`);
        }
    }
    return parsed;
}

/** `--stack` and its short form, as every command spells them. */
export const STACK_OPTION: ArgSpec = { values: { "--stack": "stack", "-s": "stack" }, valueNames: { stack: "a stack name" } };

/** The arguments of a pulumi command on the stack: the stack when one is named, and never a prompt. */
export function pulumiArgs(ref: StackRef, args: string[]): string[] {
    return [...args, ...(ref.stack ? ["--stack", ref.stack] : []), "--non-interactive"];
}

/** The line of pulumi's stderr that says what failed ("error: " cut off); `fallback` when none does. */
export function pulumiErrorLine(stderr: string, fallback: string): string {
    const line = stderr.split("\n").find((l) => l.startsWith("error:")) ?? stderr.trim().split("\n")[0] ?? "";
    return line.replace(/^error: /, "") || fallback;
}

/**
 * The outputs of `pulumi stack output --json`. Neither the text nor a piece of it goes into an
 * error (JSON.parse quotes what it could not read, and here that may be a secret).
 */
export function decodeOutputs(stdout: string): Record<string, unknown> {
    let decoded: unknown;
    try {
        decoded = JSON.parse(stdout.trim() || "{}");
    } catch {
        throw new PulumiError(`pulumi stack output printed ${stdout.length} characters that are not JSON`);
    }
    if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded))
        throw new PulumiError("pulumi stack output printed JSON that is not an object of outputs");
    return decoded as Record<string, unknown>;
}

/** Runs pulumi with stdout and stderr captured (never shown); rejects with a PulumiError naming pulumi's error. */
export function pulumiCaptured(ref: StackRef, args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
        execFile("pulumi", pulumiArgs(ref, args), { cwd: ref.cwd, env: ref.env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
            if (!err) return resolve(stdout);
            if ((err as NodeJS.ErrnoException).code === "ENOENT") {
                return reject(new PulumiError(`the pulumi CLI is not on PATH (npm ci installs it: run through npm run ${ref.command ?? "<command>"})`));
            }
            reject(new PulumiError(pulumiErrorLine(stderr, err.message)));
        });
    });
}

/** The name of the stack: the one named, else the selected one. */
export async function stackNameOf(ref: StackRef): Promise<string> {
    return ref.stack ?? (await pulumiCaptured(ref, ["stack", "--show-name"])).trim();
}

/** Every output of the stack, secrets in plain text: keep them in this process. */
export async function readStackOutputs(ref: StackRef): Promise<Record<string, unknown>> {
    return decodeOutputs(await pulumiCaptured(ref, ["stack", "output", "--json", "--show-secrets"]));
}

/** A pulumi command whose output is data (JSON): stdout captured, never shown; pulumi's errors go to stderr. */
export function pulumiJson<T>(ref: StackRef, args: string[]): T {
    return JSON.parse(
        execFileSync("pulumi", pulumiArgs(ref, args), {
            cwd: ref.cwd,
            env: ref.env,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "inherit"],
            maxBuffer: 256 * 1024 * 1024,
        }),
    ) as T;
}

/** A pulumi command that changes the stack, shown as it runs (`inherit`) or not at all (`ignore`); throws when it fails. */
export function pulumiRun(ref: StackRef, args: string[], output: "inherit" | "ignore"): void {
    execFileSync("pulumi", pulumiArgs(ref, args), { cwd: ref.cwd, env: ref.env, stdio: ["ignore", output, output] });
}

/** A pulumi command the user should see (`up`, `refresh`), streamed as it runs; resolves its exit code and output. */
export function pulumiShown(ref: StackRef, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
        const child = spawn("pulumi", pulumiArgs(ref, args), { cwd: ref.cwd, env: { ...(ref.env ?? process.env), ...env }, stdio: ["ignore", "pipe", "pipe"] });
        let output = "";
        const tee = (d: Buffer) => {
            output += d.toString();
            process.stdout.write(d);
        };
        child.stdout.on("data", tee);
        child.stderr.on("data", tee);
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, output }));
    });
}
