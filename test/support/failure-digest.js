// What failed in CI, short enough to read at the end of its log: `.ci/run` has each jest run write
// its results (--json --outputFile) and, when a run failed, prints this digest last. A CI log is
// often read by its head and tail only, and jest prints a failure where it happened, in the middle.
//   node test/support/failure-digest.js <results.json>...
const fs = require("fs");
const path = require("path");

const ROOT = path.join(__dirname, "..", "..");
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * The digest of jest's JSON results: each failed test (file, describe path and title) with the first
 * `lines` lines of its first failure message, and each file that failed outside a test (a beforeAll,
 * a compile error). Empty when nothing failed.
 */
function failureDigest(results, lines = 12) {
    const out = [];
    for (const file of results.testResults ?? []) {
        const where = path.relative(ROOT, file.name).split(path.sep).join("/");
        const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
        for (const a of failed) {
            const message = (a.failureMessages ?? [])[0] ?? "(no message)";
            out.push(`✕ ${where} › ${[...(a.ancestorTitles ?? []), a.title].join(" › ")}`);
            out.push(...excerpt(message, lines));
        }
        // A file can fail with no failed test: its hooks or its module threw.
        if (file.status === "failed" && failed.length === 0) {
            out.push(`✕ ${where} (outside any test)`);
            out.push(...excerpt(file.message || "(no message)", lines));
        }
    }
    return out;
}

/** The first `lines` non-empty lines of a message, without colours, each indented by four spaces. */
function excerpt(message, lines) {
    const all = message
        .replace(ANSI, "")
        .split("\n")
        .filter((l) => l.trim() !== "");
    const shown = all.slice(0, lines).map((l) => `    ${l.trim()}`);
    if (all.length > lines) shown.push(`    … ${all.length - lines} more line(s)`);
    return shown;
}

if (require.main === module) {
    let failures = 0;
    for (const file of process.argv.slice(2)) {
        if (!fs.existsSync(file)) {
            console.log(`✕ ${file}: no results (the jest run wrote none: it did not start, or was killed)`);
            failures++;
            continue;
        }
        const digest = failureDigest(JSON.parse(fs.readFileSync(file, "utf8")));
        if (digest.length > 0) console.log(digest.join("\n"));
        failures += digest.filter((l) => l.startsWith("✕")).length;
    }
    console.log(failures === 0 ? "no test failed" : `${failures} failure(s) above`);
}

module.exports = { failureDigest };
