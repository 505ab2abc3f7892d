// jest's testSequencer (jest.config.js): the cluster files run longest first, by the times in
// test/support/file-durations.json, so that the workers end together on any machine. jest's
// own order needs the times of an earlier run in its cache; a new machine has none and would run
// the files by size, the two-member fleet's (a 30-line file, the longest run) last. Files without
// a time (new ones, and every unit and engine file) keep jest's order, before the timed ones.
const path = require("path");
const Sequencer = require("@jest/test-sequencer").default;
const { seconds: DURATIONS, realNodes: REAL_NODE_FILES = [] } = require("./file-durations.json");

const ROOT = path.join(__dirname, "..", "..");

/** Seconds a test file took in CI, by its path from the repository's root; undefined if not listed. */
const expectedSeconds = (file) => DURATIONS[path.relative(ROOT, file).split(path.sep).join("/")];

/** Whether a file runs real nodes (file-durations.json's realNodes). */
const runsRealNodes = (file) => REAL_NODE_FILES.includes(path.relative(ROOT, file).split(path.sep).join("/"));

/**
 * Untimed files first in jest's order (failed first, then by jest's cached times or size), then the
 * listed ones, longest first; the files that run real nodes last, longest first, so that they start
 * only once the loopback fleets' files, whose failover timings their load would stretch, have all started.
 */
function longestFirst(jestOrder) {
    const untimed = jestOrder.filter((t) => expectedSeconds(t.path) === undefined);
    const byTime = (a, b) => expectedSeconds(b.path) - expectedSeconds(a.path);
    const timed = jestOrder.filter((t) => expectedSeconds(t.path) !== undefined);
    return [...untimed, ...timed.filter((t) => !runsRealNodes(t.path)).sort(byTime), ...timed.filter((t) => runsRealNodes(t.path)).sort(byTime)];
}

class LongestFirstSequencer extends Sequencer {
    sort(tests) {
        return longestFirst(super.sort(tests));
    }
}

module.exports = LongestFirstSequencer;
module.exports.longestFirst = longestFirst;
module.exports.expectedSeconds = expectedSeconds;
module.exports.runsRealNodes = runsRealNodes;
