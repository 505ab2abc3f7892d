// Every relative link in the README, docs/ and the folder READMEs leads somewhere: the file exists,
// and a `#fragment` names a heading of that file as GitHub makes its anchor. Moving a section from
// one page to another breaks links silently otherwise.
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "..", "..");

function markdownFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : markdownFiles(p);
        return e.name.endsWith(".md") ? [p] : [];
    });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function headingAnchors(markdown: string): Set<string> {
    const seen = new Map<string, number>();
    const anchors = new Set<string>();
    let fenced = false;
    for (const line of markdown.split("\n")) {
        if (/^\s*```/.test(line)) fenced = !fenced;
        const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
        if (!m) continue;
        const base = m[1]
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s_-]/gu, "")
            .replace(/\s/g, "-");
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    return anchors;
}

/** The relative links of a Markdown text (outside code), as `[target, fragment]`. */
export function relativeLinks(markdown: string): Array<{ target: string; fragment?: string }> {
    const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1])
        .filter((href) => !/^[a-z]+:/i.test(href))
        .map((href) => {
            const [target, fragment] = href.split("#");
            return { target, fragment };
        });
}

test("GitHub's anchors: punctuation and code marks dropped, repeats numbered", () => {
    expect([...headingAnchors("# Seeing the fleet: `npm run status`\n## `kamino:manifests`\n## Exit code\n## Exit code\n```\n# not a heading\n```")]).toEqual([
        "seeing-the-fleet-npm-run-status",
        "kaminomanifests",
        "exit-code",
        "exit-code-1",
    ]);
});

test("links in code are not links; fragments are split off", () => {
    expect(relativeLinks("see [a](docs/a.md#x-y) and `[b](nope.md)`\n```\n[c](nope.md)\n```\n[d](https://x.io) [e](#here)")).toEqual([
        { target: "docs/a.md", fragment: "x-y" },
        { target: "", fragment: "here" },
    ]);
});

test("every relative link in the README, docs/ and the folder READMEs leads to a file and a heading there", () => {
    const files = markdownFiles(ROOT);
    expect(files.length).toBeGreaterThan(20);
    const broken: string[] = [];
    for (const file of files) {
        for (const { target, fragment } of relativeLinks(fs.readFileSync(file, "utf8"))) {
            const to = target === "" ? file : path.resolve(path.dirname(file), target);
            const where = `${path.relative(ROOT, file)} -> ${target}${fragment ? `#${fragment}` : ""}`;
            if (!fs.existsSync(to)) broken.push(`${where}: no such file`);
            else if (fragment && to.endsWith(".md") && !headingAnchors(fs.readFileSync(to, "utf8")).has(fragment)) broken.push(`${where}: no such heading`);
        }
    }
    expect(broken).toEqual([]);
});
