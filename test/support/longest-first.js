// jest's testSequencer (jest.config.js): the cluster files run longest first, by the times in
// test/support/file-durations.json, so that the two workers end together on any machine. jest's
// own order needs the times of an earlier run in its cache; a new machine has none and would run
// the files by size, the two-member fleet's (a 30-line file, the longest run) last. Files without
// a time (new ones, and every unit and engine file) keep jest's order, before the timed ones.
const path = require("path");
const Sequencer = require("@jest/test-sequencer").default;
const DURATIONS = require("./file-durations.json").seconds;

const ROOT = path.join(__dirname, "..", "..");

/** Seconds a test file took in CI, by its path from the repository's root; undefined if not listed. */
const expectedSeconds = (file) => DURATIONS[path.relative(ROOT, file).split(path.sep).join("/")];

/** Untimed files first in jest's order (failed first, then by jest's cached times or size), then the listed ones, longest first. */
function longestFirst(jestOrder) {
    const untimed = jestOrder.filter((t) => expectedSeconds(t.path) === undefined);
    const timed = jestOrder.filter((t) => expectedSeconds(t.path) !== undefined);
    return [...untimed, ...timed.sort((a, b) => expectedSeconds(b.path) - expectedSeconds(a.path))];
}

class LongestFirstSequencer extends Sequencer {
    sort(tests) {
        return longestFirst(super.sort(tests));
    }
}

module.exports = LongestFirstSequencer;
module.exports.longestFirst = longestFirst;
module.exports.expectedSeconds = expectedSeconds;
