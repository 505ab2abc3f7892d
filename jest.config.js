// Three suites: `unit` (mocks and schemas, Node only: `npm test`), `engine` (the real Pulumi CLI
// built from Go modules) and `cluster` (real API servers and Karmada on loopback).
const project = (displayName, dir, extra = {}) => ({
    displayName,
    testEnvironment: "node",
    testMatch: [`<rootDir>/test/${dir}/**/*.test.ts`],
    // Type checking is `tsc --noEmit` in `npm test`; jest only transpiles.
    transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
    ...extra,
});

// An older Node than package.json's engines fails far from the cause: refused here, with the fix.
const tooOld = require("./test/support/node-version").nodeTooOld(process.versions.node);
if (tooOld) throw new Error(tooOld);

module.exports = {
    // Kills whatever a test started and left running (API servers, Pulumi CLIs and their plugins)
    // after the last test, and when jest is interrupted (SIGINT, SIGTERM, SIGHUP).
    globalSetup: "<rootDir>/test/support/process-reaper.ts",
    globalTeardown: "<rootDir>/test/support/process-reaper.ts",
    // The slowest cluster files first, by their committed CI times, also on a machine without jest's cache.
    testSequencer: "<rootDir>/test/support/longest-first.js",
    // Whole stacks under mocks take 1-3 s alone and over 5 s beside CI's Go build (load 6-11 on two
    // cores): 30 s still stops a hung test without failing a slow one. Engine and cluster files set their own.
    testTimeout: 30_000,
    projects: [project("unit", "unit"), project("engine", "engine"), project("cluster", "cluster")],
};
