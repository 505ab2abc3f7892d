// The Node.js that runs the tests must be one package.json's `engines` allows: on an older one (the
// system's Node 20 here) Pulumi's SDK loads, and a test fails far from the cause ("Cannot read
// properties of undefined (reading 'bind')", serializing a dynamic provider). jest.config.js refuses
// it before any test, naming the fix.
const { engines } = require("../../package.json");

/** Why `version` (e.g. "20.20.2") cannot run the tests under `range` (">=22"), or undefined if it can. */
function nodeTooOld(version, range = engines.node) {
    const m = /^>=\s*(\d+)(?:\.(\d+))?/.exec(range);
    if (!m) throw new Error(`package.json engines.node is ${range}: expected ">=<major>[.<minor>]"`);
    const [major, minor] = version.split(".").map(Number);
    const [needMajor, needMinor] = [Number(m[1]), Number(m[2] ?? 0)];
    if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
    return `Node ${version} runs these tests; package.json needs ${range}. Put Node 24 first on PATH: PATH=$(toolchain/node.sh):$PATH`;
}

module.exports = { nodeTooOld };
