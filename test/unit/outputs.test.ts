// The stack outputs index.ts exports are the ones docs/configuration.md documents, and every one the
// program computes: an output dropped from index.ts (as `manifests` once was) fails here, not on a user.
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "../..");
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), "utf8");

/** The keys of the object index.ts returns (`name: outputs.x` or `...{ name }`). */
function exported(): string[] {
    const body = read("index.ts").split("return {")[1].split("\n    };")[0];
    return [...body.matchAll(/^\s+(\w+): outputs\.\w+,$|\{ (\w+) \}/gm)].map((m) => m[1] ?? m[2]).sort();
}

/** The keys the program computes (`const outputs = { ... }` in components/stack.ts). */
function computed(): string[] {
    const body = read("components/stack.ts").split("const outputs = {")[1].split("\n    };")[0];
    return [...body.matchAll(/^\s+(\w+):/gm)].map((m) => m[1]).sort();
}

/** The output names in the docs' Outputs table (`| \`a\`, \`b\` | ... |`). */
function documented(): string[] {
    const section = read("docs/configuration.md").split("## Outputs")[1].split("\n## ")[0];
    return section
        .split("\n")
        .filter((l) => l.startsWith("| `"))
        .flatMap((l) => [...l.split("|")[1].matchAll(/`(\w+)`/g)].map((m) => m[1]))
        .sort();
}

test("index.ts exports every output the program computes, and runningOn", () => {
    expect(exported()).toEqual([...computed(), "runningOn"].sort());
});

test("the docs' Outputs table lists exactly what index.ts exports", () => {
    expect(documented()).toEqual(exported());
});
