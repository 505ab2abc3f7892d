// commands/pulumi-stack.ts, how recover, failback and status run Pulumi: their command lines as
// each command spells them (and the one-line messages a wrong one gets), the flags of every pulumi
// call, pulumi's error line, the decoding of outputs, and, against a stand-in `pulumi` on PATH, that
// a secret the CLI prints never reaches an error message.
import * as fs from "fs";
import * as path from "path";
import {
    decodeOutputs,
    parseCommandArgs,
    pulumiArgs,
    pulumiCaptured,
    PulumiError,
    pulumiErrorLine,
    pulumiJson,
    pulumiRun,
    pulumiShown,
    readStackOutputs,
    STACK_OPTION,
    stackNameOf,
} from "../../commands/pulumi-stack";
import { runTempDir } from "../support/process-reaper";

/** A usage callback that throws what the command would print, so a test can read it. */
const usage = (message: string): never => {
    throw new Error(message);
};

describe("command lines", () => {
    // The specs recover, failback and status pass.
    const recover = {
        values: { "--stack": "stack", "-s": "stack", "--cwd": "cwd" },
        valueNames: { stack: "a stack name", cwd: "a directory" },
        flags: { "--destroy": "destroy", "--force-unlock": "forceUnlock" },
    };
    const failback = { ...STACK_OPTION, positionals: true };
    const status = { ...STACK_OPTION, flags: { "--watch": "watch", "-w": "watch", "--json": "json" } };

    test("values, flags and positionals, by every spelling", () => {
        const r = parseCommandArgs(["-s", "dr", "--destroy", "--cwd", "/p", "--force-unlock"], recover, usage);
        expect(r.values).toEqual({ stack: "dr", cwd: "/p" });
        expect([...r.flags].sort()).toEqual(["destroy", "forceUnlock"]);
        expect(parseCommandArgs(["default/federated-iris", "--stack", "dr"], failback, usage)).toEqual({
            values: { stack: "dr" },
            flags: new Set(),
            positionals: ["default/federated-iris"],
        });
        expect([...parseCommandArgs(["-w", "--json"], status, usage).flags]).toEqual(["watch", "json"]);
        expect(parseCommandArgs([], status, usage)).toEqual({ values: {}, flags: new Set(), positionals: [] });
    });

    test.each([
        ["recover", ["--stack"], "--stack needs a stack name", recover],
        ["recover", ["--cwd"], "--cwd needs a directory", recover],
        ["recover", ["--stack", "--destroy"], "--stack needs a stack name", recover],
        ["recover", ["dr"], "unknown argument dr", recover],
        ["status", ["-s", "-w"], "-s needs a stack name", status],
        ["status", ["--yes"], "unknown argument --yes", status],
        ["failback", ["default/x", "--force"], "unknown option --force", failback],
        ["failback", ["-s"], "-s needs a stack name", failback],
    ])("%s %j: %s", (_command, argv, message, spec) => {
        expect(() => parseCommandArgs(argv, spec, usage)).toThrow(new Error(message));
    });
});

describe("pulumi calls", () => {
    test("the stack when one is named, and never a prompt", () => {
        expect(pulumiArgs({ stack: "dr" }, ["stack", "output", "--json"])).toEqual(["stack", "output", "--json", "--stack", "dr", "--non-interactive"]);
        expect(pulumiArgs({}, ["whoami", "--json"])).toEqual(["whoami", "--json", "--non-interactive"]);
    });

    test("pulumi's error line, without its prefix; the first line, or the fallback, when none says error", () => {
        expect(pulumiErrorLine("warning: x\nerror: no stack named 'qa' found\n  more\n", "exit 255")).toBe("no stack named 'qa' found");
        expect(pulumiErrorLine("something broke\nand more", "exit 255")).toBe("something broke");
        expect(pulumiErrorLine("", "exit 255")).toBe("exit 255");
    });

    test("outputs: an object of outputs; none is an empty object", () => {
        expect(decodeOutputs('{"members":["ikoclone"],"karmadaKubeconfig":"apiVersion: v1\\n"}\n')).toEqual({
            members: ["ikoclone"],
            karmadaKubeconfig: "apiVersion: v1\n",
        });
        expect(decodeOutputs("")).toEqual({});
    });

    test("output that does not decode is an error that quotes none of it (it may hold secrets)", () => {
        const secret = "client-key-data: S0VZLXNlY3JldA==";
        for (const text of [`${secret} {`, `["${secret}"]`]) {
            let message = "";
            try {
                decodeOutputs(text);
            } catch (e) {
                expect(e).toBeInstanceOf(PulumiError);
                message = (e as Error).message;
            }
            expect(message).not.toBe("");
            expect(message).not.toContain("S0VZ");
        }
    });
});

describe("against a stand-in pulumi on PATH", () => {
    let dir: string;
    // Jest gives tests a copy of process.env; child processes see the real one, so pulumi's PATH goes in the StackRef.
    let env: NodeJS.ProcessEnv;
    const args = () => fs.readFileSync(path.join(dir, "args"), "utf8").trim();
    /** Installs a `pulumi` that records its arguments, prints `stdout` and exits with `code`. */
    const standIn = (stdout: string, stderr = "", code = 0) => {
        const script = `#!/bin/sh\necho "$@" > "${dir}/args"\nprintf '%s' '${stdout}'\nprintf '%s' '${stderr}' >&2\nexit ${code}\n`;
        fs.writeFileSync(path.join(dir, "pulumi"), script, { mode: 0o755 });
    };
    beforeEach(() => {
        dir = runTempDir("pulumi-stack-");
        env = { ...process.env, PATH: `${dir}:${process.env.PATH}` };
    });
    afterEach(() => {
        fs.rmSync(dir, { recursive: true, force: true });
    });

    test("outputs are read with their secrets, from the named stack", async () => {
        standIn('{"karmadaKubeconfig":"secret-kubeconfig"}');
        expect(await readStackOutputs({ stack: "dr", env })).toEqual({ karmadaKubeconfig: "secret-kubeconfig" });
        expect(args()).toBe("stack output --json --show-secrets --stack dr --non-interactive");
    });

    test("the selected stack's name is asked only when none is named", async () => {
        standIn("organization/kamino/dev\n");
        expect(await stackNameOf({ stack: "dr", env })).toBe("dr");
        expect(fs.existsSync(path.join(dir, "args"))).toBe(false);
        expect(await stackNameOf({ env })).toBe("organization/kamino/dev");
        expect(args()).toBe("stack --show-name --non-interactive");
    });

    test("a failure is pulumi's error line, never what it printed on stdout", async () => {
        standIn("secret-kubeconfig", "error: no stack named qa found", 255);
        const failure = pulumiCaptured({ stack: "qa", env }, ["stack", "output", "--json", "--show-secrets"]);
        await expect(failure).rejects.toThrow(new PulumiError("no stack named qa found"));
    });

    test("every call runs with a TMPDIR of its own, gone when it ends: the provider's kubeconfig files go with it", async () => {
        // The stand-in does what pulumi-kubernetes does on Configure: a kubeconfig in $TMPDIR, never removed.
        const leaves = (code: number) =>
            fs.writeFileSync(
                path.join(dir, "pulumi"),
                `#!/bin/sh\necho "$TMPDIR" >> "${dir}/tmpdirs"\necho creds > "$TMPDIR/kubeconfig123"\necho '{}'\nexit ${code}\n`,
                { mode: 0o755 },
            );
        const out = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
        try {
            leaves(0);
            await pulumiCaptured({ env }, ["up"]);
            pulumiJson({ env }, ["preview", "--json"]);
            pulumiRun({ env }, ["refresh"], "ignore");
            await pulumiShown({ env }, ["up"]);
            leaves(1);
            await expect(pulumiCaptured({ env }, ["up"])).rejects.toThrow(PulumiError);
            expect(() => pulumiRun({ env }, ["up"], "ignore")).toThrow();
            expect((await pulumiShown({ env }, ["up"])).code).toBe(1);
        } finally {
            out.mockRestore();
        }
        const tmpdirs = fs.readFileSync(path.join(dir, "tmpdirs"), "utf8").trim().split("\n");
        expect(tmpdirs).toHaveLength(7);
        expect(new Set(tmpdirs).size).toBe(7);
        for (const t of tmpdirs) {
            expect(path.basename(t)).toMatch(/^kamino-pulumi-/);
            expect(fs.existsSync(t)).toBe(false);
        }
    });

    test("no pulumi on PATH: the hint names the npm script", async () => {
        // A PATH with nothing on it: no pulumi.
        await expect(pulumiCaptured({ command: "status", env: { ...env, PATH: dir } }, ["stack", "--show-name"])).rejects.toThrow(
            "the pulumi CLI is not on PATH (npm ci installs it: run through npm run status)",
        );
    });
});
