// How the commands (recover, failback, status) name a stack and run the Pulumi CLI on it: one
// parser for their arguments, one set of flags for every pulumi call, and one way to read a
// stack's outputs. Outputs are read with --show-secrets (the Karmada kubeconfig is one): what pulumi
// prints then is captured in this process, never shown, never written to disk, and never quoted in
// an error message, so a secret cannot leak through a failure either. Every pulumi call runs with a
// TMPDIR of its own, removed when it ends: pulumi-kubernetes writes each provider's kubeconfig, its
// credentials included, to a temp file it never removes (provider.go, `writeKubeconfigToFile`).
import { execFile, execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

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

/** A private temp directory (0700) for one pulumi call, and its removal. */
export function pulumiTmp(ref: StackRef): { env: NodeJS.ProcessEnv; remove: () => void } {
    const base = ref.env ?? process.env;
    const dir = fs.mkdtempSync(path.join(base.TMPDIR || os.tmpdir(), "kamino-pulumi-"));
    return { env: { ...base, TMPDIR: dir }, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a synchronous pulumi call with its private temp directory, removed when the call ends, even on failure. */
function withTmp<T>(ref: StackRef, run: (env: NodeJS.ProcessEnv) => T): T {
    const tmp = pulumiTmp(ref);
    try {
        return run(tmp.env);
    } finally {
        tmp.remove();
    }
}

/** Runs pulumi with stdout and stderr captured (never shown); rejects with a PulumiError naming pulumi's error. */
export function pulumiCaptured(ref: StackRef, args: string[]): Promise<string> {
    const tmp = pulumiTmp(ref);
    return new Promise<string>((resolve, reject) => {
        execFile("pulumi", pulumiArgs(ref, args), { cwd: ref.cwd, env: tmp.env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
            tmp.remove();
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
    const stdout = withTmp(ref, (env) =>
        execFileSync("pulumi", pulumiArgs(ref, args), {
            cwd: ref.cwd,
            env,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "inherit"],
            maxBuffer: 256 * 1024 * 1024,
        }),
    );
    return JSON.parse(stdout) as T;
}

/** A pulumi command that changes the stack, shown as it runs (`inherit`) or not at all (`ignore`); throws when it fails. */
export function pulumiRun(ref: StackRef, args: string[], output: "inherit" | "ignore"): void {
    withTmp(ref, (env) => execFileSync("pulumi", pulumiArgs(ref, args), { cwd: ref.cwd, env, stdio: ["ignore", output, output] }));
}

/** A pulumi command the user should see (`up`, `refresh`), streamed as it runs; resolves its exit code and output. */
export function pulumiShown(ref: StackRef, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
    const tmp = pulumiTmp(ref);
    return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
        const child = spawn("pulumi", pulumiArgs(ref, args), { cwd: ref.cwd, env: { ...tmp.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
        let output = "";
        const tee = (d: Buffer) => {
            output += d.toString();
            process.stdout.write(d);
        };
        child.stdout.on("data", tee);
        child.stderr.on("data", tee);
        child.on("error", (e) => {
            tmp.remove();
            reject(e);
        });
        child.on("close", (code) => {
            tmp.remove();
            resolve({ code, output });
        });
    });
}
