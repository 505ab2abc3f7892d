// The real Pulumi engine for tests: the CLI, language host and providers built from Go modules
// by toolchain/build.sh, a copy of the project in a temp dir, a file backend, passphrase
// secrets, and nothing that reaches the network.
import { EngineEvent, LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { runTempDir } from "./process-reaper";

export const REPO = path.resolve(__dirname, "../..");

/** The colon-joined bin dirs of toolchain groups; fails with the command to build them. */
export function toolchainPath(...groups: string[]): string {
    let out: string;
    try {
        out = execFileSync(path.join(REPO, "toolchain/build.sh"), ["--print-path", ...groups], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    } catch (e) {
        throw new Error(`the Go-built toolchain is missing; run 'toolchain/build.sh ${groups.join(" ")}' (${(e as Error).message})`);
    }
    for (const dir of out.split(":")) {
        if (!fs.existsSync(dir)) throw new Error(`toolchain directory ${dir} does not exist; run 'toolchain/build.sh ${groups.join(" ")}'`);
    }
    return out;
}

/** Finds an executable in a PATH string. */
export function which(name: string, pathList: string): string {
    for (const dir of pathList.split(":")) {
        const p = path.join(dir, name);
        if (fs.existsSync(p)) return p;
    }
    throw new Error(`${name} not found in ${pathList}`);
}

/** A throwaway project copy with its own state, plugins home and environment. */
export class EngineSandbox {
    readonly dir: string;
    readonly project: string;
    readonly env: Record<string, string>;
    private command?: PulumiCommand;

    constructor(readonly binPath: string) {
        this.dir = runTempDir("kamino-engine-");
        this.project = path.join(this.dir, "project");
        fs.mkdirSync(this.project);
        for (const f of ["Pulumi.yaml", "index.ts", "preload.js", "tsconfig.json", "tsconfig.pulumi.json", "package.json", "components"]) {
            fs.cpSync(path.join(REPO, f), path.join(this.project, f), { recursive: true });
        }
        fs.symlinkSync(path.join(REPO, "node_modules"), path.join(this.project, "node_modules"));
        fs.cpSync(path.join(REPO, "test/fixtures/iris-operator"), path.join(this.project, "iris-operator"), { recursive: true });
        // The project's default backend (file://~) must not be used by tests.
        const pulumiYaml = fs.readFileSync(path.join(this.project, "Pulumi.yaml"), "utf8").replace(/^backend:\n {2}url: .*\n/m, "");
        fs.writeFileSync(path.join(this.project, "Pulumi.yaml"), pulumiYaml);
        fs.mkdirSync(path.join(this.dir, "state"));
        fs.mkdirSync(path.join(this.dir, "tmp"));
        this.env = {
            // The engine's temp files go with the sandbox: pulumi-kubernetes leaves a kubeconfig (with its
            // credentials) per provider it configures, and the Node host its pulumi-node-pipes-* when killed.
            TMPDIR: path.join(this.dir, "tmp"),
            PATH: `${binPath}:${process.env.PATH}`,
            PULUMI_HOME: path.join(this.dir, "home"),
            PULUMI_BACKEND_URL: `file://${path.join(this.dir, "state")}`,
            PULUMI_CONFIG_PASSPHRASE: "kamino-test",
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
            PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
            PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
            PULUMI_CREDENTIAL_STORE: "plaintext",
            // Helm's repository cache and config (the provider's Helm, for a chart from a repository) go with the sandbox too.
            HELM_CACHE_HOME: path.join(this.dir, "helm", "cache"),
            HELM_CONFIG_HOME: path.join(this.dir, "helm", "config"),
            HELM_DATA_HOME: path.join(this.dir, "helm", "data"),
        };
    }

    /** The CLI, pinned by path (never the npm shim, which downloads). */
    async pulumi(): Promise<PulumiCommand> {
        if (!this.command) {
            const root = path.join(this.dir, "pulumi-root");
            fs.mkdirSync(path.join(root, "bin"), { recursive: true });
            fs.symlinkSync(which("pulumi", this.binPath), path.join(root, "bin", "pulumi"));
            this.command = await PulumiCommand.get({ root, skipVersionCheck: true });
        }
        return this.command;
    }

    /** A stack of the copied project with the given stack file and config overrides. */
    async stack(name: string, stackFile: string | undefined, config: Record<string, unknown> = {}): Promise<Stack> {
        if (stackFile) fs.copyFileSync(path.join(REPO, stackFile), path.join(this.project, `Pulumi.${name}.yaml`));
        const stack = await LocalWorkspace.createOrSelectStack(
            { stackName: name, workDir: this.project },
            { pulumiCommand: await this.pulumi(), envVars: this.env },
        );
        for (const [key, value] of Object.entries(config)) {
            await stack.setConfig(key, { value: typeof value === "string" ? value : JSON.stringify(value) });
        }
        return stack;
    }

    /** Removes the sandbox unless KAMINO_KEEP_ENGINE=1. */
    cleanup(): void {
        if (process.env.KAMINO_KEEP_ENGINE !== "1") fs.rmSync(this.dir, { recursive: true, force: true });
    }
}

/** One planned step, from the engine's event stream. */
export interface PlannedStep {
    op: string;
    urn: string;
    type: string;
    parentType?: string;
    provider?: string;
    /** The inputs the step would apply (absent for a delete). */
    inputs?: Record<string, unknown>;
}

/** Collects the steps of a preview or update. */
export function stepRecorder(): { steps: PlannedStep[]; diagnostics: string[]; onEvent: (e: EngineEvent) => void } {
    const steps: PlannedStep[] = [];
    const diagnostics: string[] = [];
    return {
        steps,
        diagnostics,
        onEvent: (e) => {
            const m = e.resourcePreEvent?.metadata;
            if (m) {
                const parent = m.new?.parent ?? m.old?.parent;
                steps.push({
                    op: m.op,
                    urn: m.urn,
                    type: m.type,
                    parentType: parent ? parent.split("::")[2]?.split("$").pop() : undefined,
                    provider: m.provider,
                    inputs: m.new?.inputs,
                });
            }
            const d = e.diagnosticEvent;
            if (d && (d.severity === "warning" || d.severity === "error")) diagnostics.push(`${d.severity}: ${d.message.trim()}`);
        },
    };
}

/** How long one resource's step took, from the engine's events as they arrived. */
export interface StepDuration {
    op: string;
    /** The resource's type and name, from its URN. */
    resource: string;
    seconds: number;
}

/**
 * Times each step of an update or destroy (from its pre-event to its outputs or failure), for a test
 * that reports where a long run spent its time: `slowest(n)` lists the n longest, longest first.
 * Custom resources only: a component's step spans its children's.
 */
export function stepTimer(now: () => number = Date.now): {
    onEvent: (e: EngineEvent) => void;
    slowest: (n: number) => StepDuration[];
    /** The n slowest as one line for a test's report: "delete <type>::<name> 31.4 s, ...". */
    slowestLine: (n: number) => string;
} {
    const started = new Map<string, { op: string; at: number }>();
    const done: StepDuration[] = [];
    const resource = (urn: string) => urn.split("::").slice(-2).join("::").split("$").pop()!;
    const slowest = (n: number) => [...done].sort((a, b) => b.seconds - a.seconds).slice(0, n);
    return {
        onEvent: (e) => {
            const pre = e.resourcePreEvent?.metadata;
            if (pre && (pre.new ?? pre.old)?.custom === true) started.set(pre.urn, { op: pre.op, at: now() });
            const end = e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata;
            const start = end && started.get(end.urn);
            if (end && start) {
                started.delete(end.urn);
                done.push({ op: start.op, resource: resource(end.urn), seconds: (now() - start.at) / 1000 });
            }
        },
        slowest,
        slowestLine: (n) =>
            slowest(n)
                .map((s) => `${s.op} ${s.resource} ${s.seconds.toFixed(1)} s`)
                .join(", "),
    };
}
