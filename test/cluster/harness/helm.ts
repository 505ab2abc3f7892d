// Helm's own rendering of a packaged chart (`helm template`, the toolchain's Helm v3, as the kubernetes
// provider's Helm renders it), for tests that need what a chart would create: its images, or one of
// its pod templates to run as it is.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { findNamedBinaries } from "./binaries";
import { runTempDir } from "../../support/process-reaper";

/** A rendered object, as `helm template` prints it. */
export type RenderedObject = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

/** `helm template <release> <archive> --namespace <namespace>` with `values`: every object it renders. */
export function renderChart(archive: string, values: unknown, release = "karmada", namespace = "karmada-system"): RenderedObject[] {
    const { helm } = findNamedBinaries(["helm"], ["chart"]);
    const dir = runTempDir("kamino-helm-");
    try {
        const file = path.join(dir, "values.yaml");
        fs.writeFileSync(file, YAML.stringify(values));
        const out = execFileSync(helm, ["template", release, archive, "--namespace", namespace, "-f", file], {
            encoding: "utf8",
            maxBuffer: 64 * 1024 * 1024,
            env: { PATH: path.dirname(helm), HOME: dir, HELM_CACHE_HOME: path.join(dir, "cache"), HELM_CONFIG_HOME: path.join(dir, "config") },
        });
        return YAML.parseAllDocuments(out)
            .map((d) => d.toJSON() as RenderedObject | null)
            .filter((o): o is RenderedObject => !!o);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

/** Every container image of every pod template the objects hold (Deployments, StatefulSets, Jobs), init containers included. */
export function imagesOf(objects: unknown[]): string[] {
    const found = new Set<string>();
    const walk = (x: unknown): void => {
        if (Array.isArray(x)) return x.forEach(walk);
        if (typeof x !== "object" || x === null) return;
        for (const [k, v] of Object.entries(x)) {
            if ((k === "containers" || k === "initContainers") && Array.isArray(v)) v.forEach((c) => found.add((c as { image: string }).image));
            else walk(v);
        }
    };
    walk(objects);
    return [...found].sort();
}
