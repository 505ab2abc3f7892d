// What loading the program costs: a stack without GKE clusters must not load @pulumi/gcp (about a
// second of every preview and up). Checked in a plain Node process, as Pulumi runs the program.
import { execFileSync } from "child_process";
import * as path from "path";

const REPO = path.resolve(__dirname, "../..");

/** The scoped npm packages a fresh Node process has loaded after requiring `modules`. */
function packagesLoadedBy(...modules: string[]): string[] {
    const script = `${modules.map((m) => `require(${JSON.stringify(m)});`).join("")}
        const names = Object.keys(require.cache).map((f) => (f.match(/node_modules\\/(@[^/]+\\/[^/]+)\\//) || [])[1]).filter(Boolean);
        process.stdout.write(JSON.stringify([...new Set(names)].sort()));`;
    const out = execFileSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], { cwd: REPO, encoding: "utf8" });
    return JSON.parse(out) as string[];
}

jest.setTimeout(60_000);

test("the program's modules load without @pulumi/gcp", () => {
    const loaded = packagesLoadedBy("./components/stack");
    expect(loaded).toContain("@pulumi/kubernetes");
    expect(loaded).not.toContain("@pulumi/gcp");
});

test("the GKE component does load @pulumi/gcp (so the check above can see it)", () => {
    expect(packagesLoadedBy("./components/clusters/gke-cluster")).toContain("@pulumi/gcp");
});
