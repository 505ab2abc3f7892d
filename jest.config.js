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

module.exports = {
    projects: [
        project("unit", "unit"),
        project("engine", "engine"),
        project("cluster", "cluster"),
    ],
};
