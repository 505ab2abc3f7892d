// The Pulumi CLI as a user runs it: `pulumi <args> --stack <stack> --non-interactive --color never`
// in the sandbox's project copy, with the sandbox's environment (backend, passphrase, plugins),
// its output collected. For what the Automation API cannot do: watch a run's output as it goes and
// kill it mid-run, or see exactly what a user sees when a command fails.
//
//   const up = startPulumi(sandbox, "dev", ["up", "--yes", "--skip-preview"]);
//   await waitFor(..., () => /creating/.test(up.output()) ...);
//   up.killTree("SIGKILL");        // the CLI, its language host and its providers, at once
//   await up.exited;
//   const { code, output } = await runPulumi(sandbox, "dev", ["cancel", "--yes"]);
//
// The CLI starts its provider plugins in process groups of their own, so killing its group is not
// enough: killTree() walks /proc for every descendant first. Whatever a test leaves running is
// killed when jest ends or is interrupted (test/support/process-reaper.ts).
import { spawn } from "child_process";
import { EngineSandbox, which } from "./engine";
import { killTree } from "./process-reaper";

/** A running (or finished) `pulumi` command. */
export interface PulumiProcess {
    readonly pid: number;
    /** stdout and stderr so far, interleaved as they arrived. */
    output(): string;
    /** The exit code once the CLI has exited and its output is complete; null if a signal ended it. */
    readonly exited: Promise<number | null>;
    /**
     * Sends `signal` (default SIGKILL) to the CLI and every process it started, directly or not, all
     * at once, as a machine losing power would. Returns the pids signalled (none once all are gone).
     */
    killTree(signal?: NodeJS.Signals): number[];
}

/** The sandbox parts the CLI needs: `env` is read when a command starts, so changes apply to the next one. */
export type PulumiSandbox = Pick<EngineSandbox, "binPath" | "project" | "env">;

/** Starts `pulumi <args>` on `stack`; `env` adds to (or overrides) the sandbox's environment. */
export function startPulumi(sandbox: PulumiSandbox, stack: string, args: string[], env: Record<string, string> = {}): PulumiProcess {
    const child = spawn(which("pulumi", sandbox.binPath), [...args, "--stack", stack, "--non-interactive", "--color", "never"], {
        cwd: sandbox.project,
        env: { ...process.env, ...sandbox.env, ...env },
        // Its own process group: a Ctrl-C in jest's terminal does not cancel it gracefully behind the test's back.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
        child.on("error", reject);
        // 'close' comes once the output pipes are drained too; should a descendant hold them open
        // after the CLI has gone, the output stops there.
        child.on("close", (code) => resolve(code));
        child.on("exit", (code) => setTimeout(() => resolve(code), 5_000).unref());
    });
    const pid = child.pid ?? -1;
    return {
        pid,
        output: () => out,
        exited,
        // Once the CLI has exited its pid may be reused, and what it started is no longer its descendant.
        killTree: (signal: NodeJS.Signals = "SIGKILL") => (pid > 0 && child.exitCode === null && child.signalCode === null ? killTree(pid, signal) : []),
    };
}

/** Runs `pulumi <args>` on `stack` to the end. */
export async function runPulumi(
    sandbox: PulumiSandbox,
    stack: string,
    args: string[],
    env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
    const p = startPulumi(sandbox, stack, args, env);
    const code = await p.exited;
    return { code, output: p.output() };
}
