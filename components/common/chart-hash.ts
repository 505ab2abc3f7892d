// Content hash of a local Helm chart: helm.v3.Release does not see template edits of a local
// chart unless an input changes, so the hash goes into the Release description.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";

/** SHA-256 over every file of a chart directory (paths and contents), in a stable order. */
export function hashChartDirectory(dir: string): string {
    const hash = crypto.createHash("sha256");
    const walk = (rel: string) => {
        const entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
        for (const e of entries) {
            const child = path.posix.join(rel, e.name);
            if (e.isDirectory()) walk(child);
            else if (e.isFile()) {
                hash.update(child)
                    .update("\0")
                    .update(fs.readFileSync(path.join(dir, child)))
                    .update("\0");
            }
        }
    };
    walk("");
    return hash.digest("hex").slice(0, 16);
}
