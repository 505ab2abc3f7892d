// The source tree as components/README.md describes it: each folder imports only what its README's
// "May import" line names, the layers have no cycle, nothing in components reaches up to the Fleet,
// the commands or the tests, and no file or function grows past what a newcomer can read.
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "../..");
const COMPONENTS = path.join(ROOT, "components");
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function tsFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return tsFiles(p);
        return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
    });
}

/** Every relative module a file names: imports, re-exports, require() and import() types. */
function relativeImports(file: string, source = fs.readFileSync(file, "utf8")): string[] {
    const src = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
    const found: string[] = [];
    const visit = (n: ts.Node): void => {
        if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
            found.push(n.moduleSpecifier.text);
        } else if (ts.isCallExpression(n) && n.arguments.length === 1 && ts.isStringLiteral(n.arguments[0])) {
            const callee = n.expression.getText(src);
            if (callee === "require" || n.expression.kind === ts.SyntaxKind.ImportKeyword) found.push(n.arguments[0].text);
        } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
            found.push(n.argument.literal.text);
        }
        ts.forEachChild(n, visit);
    };
    visit(src);
    return found.filter((s) => s.startsWith("."));
}

/**
 * The layers: every folder of components/ whose README has a "May import:" line, named by its path
 * ("config", or "karmada/members" for a folder inside a folder that only groups layers).
 */
function layerFolders(dir = COMPONENTS): string[] {
    return fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => {
            const p = path.join(dir, e.name);
            const readme = path.join(p, "README.md");
            const isLayer =
                fs.existsSync(readme) &&
                fs
                    .readFileSync(readme, "utf8")
                    .split("\n")
                    .some((l) => l.startsWith("May import:"));
            return [...(isLayer ? [path.relative(COMPONENTS, p).split(path.sep).join("/")] : []), ...layerFolders(p)];
        });
}

const folders = layerFolders();

/**
 * The layer a path lies in: the deepest layer folder that holds it or that it names ("../config"
 * names the folder itself, its index.ts); "" for a file of components/ itself; undefined outside
 * components/. A path in a folder that only groups layers (components/karmada/x.ts) is in none:
 * its folder's name, which no README allows.
 */
function layerOf(p: string): string | undefined {
    const rel = path.relative(COMPONENTS, p);
    if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
    const parts = rel.split(path.sep);
    for (let n = parts.length; n > 0; n--) {
        const folder = parts.slice(0, n).join("/");
        if (folders.includes(folder)) return folder;
    }
    return parts.length === 1 ? "" : parts.slice(0, -1).join("/");
}

function mayImport(folder: string): string[] {
    const readme = path.join(COMPONENTS, folder, "README.md");
    const line = fs
        .readFileSync(readme, "utf8")
        .split("\n")
        .find((l) => l.startsWith("May import:"));
    if (!line) throw new Error(`${path.relative(ROOT, readme)} has no "May import:" line`);
    const list = line.slice("May import:".length).replace(/\.$/, "").trim();
    return list === "nothing" ? [] : list.split(",").map((s) => s.trim());
}

/** The imports of `file` (its text on disk, or `source`) that its layer's README does not allow. */
function layerViolations(file: string, source?: string): string[] {
    const folder = layerOf(file)!;
    const allowed = new Set([folder, ...mayImport(folder)]);
    return relativeImports(file, source)
        .filter((s) => {
            const layer = layerOf(path.resolve(path.dirname(file), s));
            return layer === undefined || !allowed.has(layer);
        })
        .map((s) => `${path.relative(ROOT, file)} imports ${s}`);
}

describe("components/ layers", () => {
    test("every folder says what it holds and what it may import, and is in components/README.md", () => {
        const index = fs.readFileSync(path.join(COMPONENTS, "README.md"), "utf8");
        for (const f of folders) {
            expect(mayImport(f).every((m) => folders.includes(m))).toBe(true);
            expect(index).toContain(`[\`${f}/\`](${f}/README.md)`);
        }
    });

    test("the declared layers have no cycle", () => {
        const state = new Map<string, "visiting" | "done">();
        const visit = (f: string, trail: string[]): void => {
            if (state.get(f) === "done") return;
            if (state.get(f) === "visiting") throw new Error(`import cycle: ${[...trail, f].join(" -> ")}`);
            state.set(f, "visiting");
            for (const m of mayImport(f)) visit(m, [...trail, f]);
            state.set(f, "done");
        };
        for (const f of folders) expect(() => visit(f, [])).not.toThrow();
    });

    test.each(folders)("components/%s imports only what its README allows", (folder) => {
        const offending = tsFiles(path.join(COMPONENTS, folder))
            .filter((file) => layerOf(file) === folder)
            .flatMap((file) => layerViolations(file));
        expect(offending).toEqual([]);
    });

    test("every file of components/ is in a layer, or is one of components/ itself (fleet.ts, stack.ts)", () => {
        expect(
            tsFiles(COMPONENTS)
                .filter((f) => {
                    const l = layerOf(f);
                    return l !== "" && !folders.includes(l!);
                })
                .map((f) => path.relative(ROOT, f)),
        ).toEqual([]);
    });

    test("fleet.ts and stack.ts import only components/, and the commands only components/", () => {
        const outside = [...tsFiles(COMPONENTS).filter((f) => layerOf(f) === ""), ...tsFiles(path.join(ROOT, "commands"))].flatMap((file) =>
            relativeImports(file)
                .filter(
                    (s) =>
                        layerOf(path.resolve(path.dirname(file), s)) === undefined &&
                        !path.resolve(path.dirname(file), s).startsWith(path.join(ROOT, "commands")),
                )
                .map((s) => `${path.relative(ROOT, file)} imports ${s}`),
        );
        expect(outside).toEqual([]);
    });

    test("the check sees an import that breaks the layers", () => {
        // karmada/failover/failback.ts is known to import live/; live may not import karmada/failover.
        const failback = path.join(COMPONENTS, "karmada", "failover", "failback.ts");
        expect(relativeImports(failback).map((s) => layerOf(path.resolve(path.dirname(failback), s)))).toContain("live");
        expect(mayImport("live")).not.toContain("karmada/failover");
    });

    test("the folders inside karmada/ are layers of their own, and one importing upward is seen", () => {
        expect(folders).toEqual(expect.arrayContaining(["karmada/control-plane", "karmada/members", "karmada/failover"]));
        expect(folders).not.toContain("karmada");
        // Members build on the control plane, never the other way round; failover is below both.
        const inControlPlane = path.join(COMPONENTS, "karmada", "control-plane", "probe.ts");
        const inFailover = path.join(COMPONENTS, "karmada", "failover", "probe.ts");
        const inMembers = path.join(COMPONENTS, "karmada", "members", "probe.ts");
        expect(layerViolations(inControlPlane, 'import { joinMember } from "../members/join";')).toEqual([
            "components/karmada/control-plane/probe.ts imports ../members/join",
        ]);
        expect(layerViolations(inFailover, 'import { KarmadaControlPlane } from "../control-plane/control-plane";')).toHaveLength(1);
        expect(layerViolations(inMembers, 'import { fleet } from "../../fleet";')).toHaveLength(1);
        // A file straight in karmada/ belongs to no layer.
        expect(layerViolations(inMembers, 'import { x } from "../stray";')).toHaveLength(1);
        expect(
            layerViolations(
                inMembers,
                'import { KARMADA_SYSTEM_LABELS } from "../control-plane/control-plane";\nimport { detectionFlags } from "../failover/detection";',
            ),
        ).toEqual([]);
    });
});

/** A function's name, or for a callback the call it is passed to: `describe("LoopbackFleet")`. */
function functionLabel(n: ts.Node, src: ts.SourceFile): string {
    const named = (n as ts.FunctionLikeDeclaration).name;
    if (named) return named.getText(src);
    const call = n.parent;
    if (call && ts.isCallExpression(call)) {
        const title = call.arguments.find((a) => ts.isStringLiteral(a) || ts.isNoSubstitutionTemplateLiteral(a));
        return `${call.expression.getText(src)}(${title ? title.getText(src) : ""})`;
    }
    return "(anonymous)";
}

/** Every function with a body over MAX_FUNCTION_LINES lines in `files`. */
function longFunctions(files: string[]): Array<{ file: string; line: number; label: string; lines: number }> {
    const long: Array<{ file: string; line: number; label: string; lines: number }> = [];
    for (const file of files) {
        const src = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
        const visit = (n: ts.Node): void => {
            if (ts.isFunctionLike(n) && "body" in n && n.body) {
                const from = src.getLineAndCharacterOfPosition(n.getStart(src)).line;
                const to = src.getLineAndCharacterOfPosition(n.end).line;
                if (to - from + 1 > MAX_FUNCTION_LINES)
                    long.push({ file: path.relative(ROOT, file), line: from + 1, label: functionLabel(n, src), lines: to - from + 1 });
            }
            ts.forEachChild(n, visit);
        };
        visit(src);
    }
    return long;
}

/** A file's lines as `wc -l` counts them: its newline characters (a last line without one is not counted). */
const linesOf = (text: string) => text.split("").filter((c) => c === "\n").length;
const fileLines = (f: string) => linesOf(fs.readFileSync(f, "utf8"));

/** What the file check says of a file over the limit: its count, and how to bring it under. */
const tooLongFile = (file: string, lines: number) =>
    `${file}: ${lines} lines (wc -l), over ${MAX_FILE_LINES}. Split it by what its parts are about: move a group of ` +
    `functions that belong together (pure helpers, one concern, one component) into a file of its own beside it, named ` +
    `for what it holds, import them back, and name the new file in the folder's README.`;

/** What the function check says of a function over the limit. */
const tooLongFunction = (f: { file: string; line: number; label: string; lines: number }) =>
    `${f.file}:${f.line} ${f.label}: ${f.lines} lines, over ${MAX_FUNCTION_LINES}. Split it into steps: move each step into ` +
    `a function of its own, named for what it does, and keep this one as the list of steps.`;

describe("files and functions a newcomer can read", () => {
    const readable = [...tsFiles(COMPONENTS), ...tsFiles(path.join(ROOT, "commands")), ...tsFiles(path.join(ROOT, "test", "cluster", "harness"))];

    test(`no file under components/, commands/ or the cluster harness over ${MAX_FILE_LINES} lines`, () => {
        const long = readable.map((f) => [path.relative(ROOT, f), fileLines(f)] as const).filter(([, n]) => n > MAX_FILE_LINES);
        expect(long.map(([f, n]) => tooLongFile(f, n))).toEqual([]);
    });

    test(`no function there over ${MAX_FUNCTION_LINES} lines`, () => {
        expect(longFunctions(readable).map(tooLongFunction)).toEqual([]);
    });

    test("lines are counted as wc -l counts them, and an offender is told how to split", () => {
        expect([linesOf("a\nb\n"), linesOf("a\nb"), linesOf(""), linesOf("\n\n")]).toEqual([2, 1, 0, 2]);
        expect(tooLongFile("components/x.ts", 401)).toMatch(/^components\/x\.ts: 401 lines \(wc -l\), over 400\. Split it .*README\.$/);
        expect(tooLongFunction({ file: "components/x.ts", line: 3, label: "build", lines: 81 })).toMatch(
            /^components\/x\.ts:3 build: 81 lines, over 80\. Split it/,
        );
    });
});

/** The cluster suites (test/cluster/**, beside the harness above), under the same limits. */
describe("the cluster suites a newcomer can read", () => {
    const harness = path.join(ROOT, "test", "cluster", "harness");
    const suites = tsFiles(path.join(ROOT, "test", "cluster")).filter((f) => !f.startsWith(harness + path.sep));

    test(`no file of test/cluster over ${MAX_FILE_LINES} lines`, () => {
        expect(suites.length).toBeGreaterThan(10);
        expect(
            suites
                .map((f) => [path.relative(ROOT, f), fileLines(f)] as const)
                .filter(([, n]) => n > MAX_FILE_LINES)
                .map(([f, n]) => tooLongFile(f, n)),
        ).toEqual([]);
    });

    test(`no function there over ${MAX_FUNCTION_LINES} lines`, () => {
        expect(longFunctions(suites).map(tooLongFunction)).toEqual([]);
    });
});

describe("temp dirs a test run leaves nothing of", () => {
    /** Files that make their own: process-cleanup.test.ts checks what child runs leave in them, which the run's mark would be part of. */
    const OWN_TEMP_DIRS = ["test/cluster/process-cleanup.test.ts", "test/support/process-reaper.ts"];
    /** The files of `files` that call mkdtemp themselves instead of runTempDir. */
    const directMkdtemp = (files: string[], read = (f: string) => fs.readFileSync(f, "utf8")) =>
        files.filter((f) => !OWN_TEMP_DIRS.includes(path.relative(ROOT, f)) && /\bmkdtemp(Sync)?\(/.test(read(f))).map((f) => path.relative(ROOT, f));

    test("tests make temp dirs with runTempDir, which the reaper removes when jest is interrupted or a filter skips the afterAll", () => {
        // This file names the call in its own check's sample.
        const files = tsFiles(path.join(ROOT, "test")).filter((f) => f !== __filename);
        expect(files.length).toBeGreaterThan(50);
        expect(directMkdtemp(files)).toEqual([]);
    });

    test("the check sees a direct mkdtempSync", () => {
        const file = path.join(ROOT, "test", "unit", "x.test.ts");
        expect(directMkdtemp([file], () => 'const dir = fs.mkdtempSync(path.join(os.tmpdir(), "x-"));')).toEqual(["test/unit/x.test.ts"]);
    });
});
