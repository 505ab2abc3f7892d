// jest.config.js refuses a Node older than package.json's engines (test/support/node-version.js).
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

const { nodeTooOld } = require("../support/node-version") as { nodeTooOld: (version: string, range?: string) => string | undefined };

test("a Node older than the engines range is refused with the fix; the range's own and newer ones pass", () => {
    expect(nodeTooOld("20.20.2", ">=22")).toBe(
        "Node 20.20.2 runs these tests; package.json needs >=22. Put Node 24 first on PATH: PATH=$(toolchain/node.sh):$PATH",
    );
    expect(nodeTooOld("22.11.0", ">=22.12")).toMatch(/^Node 22\.11\.0 runs these tests/);
    for (const [v, range] of [
        ["22.0.0", ">=22"],
        ["22.12.0", ">=22.12"],
        ["24.22.3", ">=22"],
        ["23.1.0", ">=22.12"],
    ])
        expect(nodeTooOld(v, range)).toBeUndefined();
    expect(() => nodeTooOld("24.0.0", "^22")).toThrow(/engines\.node is \^22/);
    // The running Node (the one CI and `npm test` use) passes the real range.
    expect(nodeTooOld(process.versions.node)).toBeUndefined();
});

test("the system's older Node, where this machine has one, stops jest before any test, with the message", () => {
    const versionOf = (node: string) => execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
    const old = ["/usr/bin/node", "/usr/local/bin/node"].find((n) => fs.existsSync(n) && nodeTooOld(versionOf(n)) !== undefined);
    // Without an older Node here, the pure check above is the proof.
    if (!old) return;
    const root = path.join(__dirname, "..", "..");
    let out = "";
    try {
        execFileSync(old, [path.join(root, "node_modules/jest/bin/jest.js"), "--listTests"], {
            cwd: root,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
        });
    } catch (e) {
        out = String((e as { stderr?: string }).stderr);
    }
    expect(out).toMatch(/Node 2\d\.\d+\.\d+ runs these tests; package.json needs >=22\. Put Node 24 first on PATH/);
});
