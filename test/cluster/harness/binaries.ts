// Where the Go programs the fleet runs are: the bin dirs `toolchain/build.sh --print-path cluster`
// prints (built from the Go module proxy into ~/.cache/kamino), or KAMINO_CLUSTER_PATH (a
// colon-separated list of dirs) to use binaries from elsewhere.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

/** The repository root (this file is test/cluster/harness/binaries.ts). */
export const REPO_ROOT = path.resolve(__dirname, "../../..");

export const BINARY_NAMES = [
    "etcd",
    "etcdutl",
    "kube-apiserver",
    "kube-controller-manager",
    "karmada-aggregated-apiserver",
    "karmada-webhook",
    "karmada-controller-manager",
    "karmada-scheduler",
    "karmada-agent",
] as const;

export type BinaryName = (typeof BINARY_NAMES)[number];
export type Binaries = Record<BinaryName, string>;

function searchDirs(groups: string[]): string[] {
    const fromEnv = process.env.KAMINO_CLUSTER_PATH;
    if (fromEnv) return fromEnv.split(":").filter(Boolean);
    const script = path.join(REPO_ROOT, "toolchain", "build.sh");
    try {
        const out = execFileSync(script, ["--print-path", ...groups], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
        return out.trim().split(":").filter(Boolean);
    } catch (e) {
        throw new Error(`${script} --print-path ${groups.join(" ")} failed: ${(e as Error).message}`);
    }
}

/** Absolute paths of every binary; one error naming all that are missing. */
export function findBinaries(): Binaries {
    return findNamedBinaries(BINARY_NAMES, ["cluster"]);
}

/** Absolute paths of `names`, built by the toolchain's `groups`; one error naming all that are missing. */
export function findNamedBinaries<N extends string>(names: readonly N[], groups: string[]): Record<N, string> {
    const dirs = searchDirs(groups);
    const found: Partial<Record<N, string>> = {};
    const missing: string[] = [];
    for (const name of names) {
        const hit = dirs
            .map((d) => path.join(d, name))
            .find((f) => {
                try {
                    fs.accessSync(f, fs.constants.X_OK);
                    return true;
                } catch {
                    return false;
                }
            });
        if (hit) found[name] = hit;
        else missing.push(name);
    }
    if (missing.length) {
        throw new Error(
            `missing ${missing.join(", ")} in ${dirs.join(":") || "(no dirs)"}; build them with \`toolchain/build.sh ${groups.join(" ")}\` ` +
                "(or point KAMINO_CLUSTER_PATH at dirs holding them)",
        );
    }
    return found as Record<N, string>;
}

/** A version toolchain/versions.env pins, e.g. `KARMADA_NEXT_VERSION` -> `v1.18.2`. */
export function toolchainVersion(key: string): string {
    const text = fs.readFileSync(path.join(REPO_ROOT, "toolchain", "versions.env"), "utf8");
    const m = new RegExp(`^${key}=(\\S+)$`, "m").exec(text);
    if (!m) throw new Error(`toolchain/versions.env has no ${key}`);
    return m[1];
}
