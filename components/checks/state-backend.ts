// Where the stack's state lives, and a warning when a Karmada in the cloud keeps it in a file on one
// machine: the state holds every cluster's admin kubeconfig and the etcd CA's key, and a team
// needs one copy with a lock, not one per laptop. The backend is chosen as the Pulumi CLI chooses it
// (pkg/cmd/pulumi/.../GetCurrentCloudURLWithSource): PULUMI_BACKEND_URL, then `backend.url` in
// Pulumi.yaml, then the URL of `pulumi login` (credentials.json's `current`). The program inherits
// the CLI's environment and runs in the project directory, so it can read all three.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";

/** What the backend URL is read from (injected in tests). */
export interface BackendSources {
    env: Record<string, string | undefined>;
    /** The text of a file, or undefined when it cannot be read. */
    readFile: (file: string) => string | undefined;
    /** The project directory (Pulumi.yaml's). */
    projectDir: string;
    /** The user's home directory. */
    home: string;
}

export const systemBackendSources = (): BackendSources => ({
    env: process.env,
    readFile: (f) => {
        try {
            return fs.readFileSync(f, "utf8");
        } catch {
            return undefined;
        }
    },
    projectDir: process.cwd(),
    home: os.homedir(),
});

/** The backend URL the CLI uses for this run, or undefined when none can be told. */
export function currentBackendUrl(s: BackendSources): string | undefined {
    if (s.env.PULUMI_BACKEND_URL) return s.env.PULUMI_BACKEND_URL;
    const project = s.readFile(path.join(s.projectDir, "Pulumi.yaml"));
    const fromProject = project ? (YAML.parse(project) as { backend?: { url?: string } } | null)?.backend?.url : undefined;
    if (fromProject) return fromProject;
    const credentials = s.readFile(path.join(s.env.PULUMI_HOME || path.join(s.home, ".pulumi"), "credentials.json"));
    if (!credentials) return undefined;
    try {
        return (JSON.parse(credentials) as { current?: string }).current || undefined;
    } catch {
        return undefined;
    }
}

/** The warning for a stack that installs Karmada off kind (`hostProvider`) and keeps its state in a file backend; undefined otherwise (pure). */
export function stateBackendWarning(backendUrl: string | undefined, hostProvider: string | undefined): string | undefined {
    if (!backendUrl?.startsWith("file://") || hostProvider === undefined || hostProvider === "kind") return undefined;
    return (
        `the state of this stack (Karmada on ${hostProvider === "existing" ? "an" : "a"} ${hostProvider} host) is in a file backend on this machine (${backendUrl}): ` +
        "no lock against a teammate's or CI's run, and one disk holds every cluster's admin credentials; " +
        "fix: keep it in a shared backend with locking, e.g. PULUMI_BACKEND_URL=gs://<bucket> (pulumi stack export | pulumi stack import to move it) " +
        "and a KMS secrets provider (docs/production.md, The state backend)"
    );
}
