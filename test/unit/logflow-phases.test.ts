// The profile's phases, read from the engine's --logflow log (test/bench/logflow-phases.ts).
import { parseLog, runPhases } from "../bench/logflow-phases";

const line = (s: number, msg: string) => JSON.stringify({ time: new Date(Date.UTC(2026, 11, 5, 0, 0, 0, s * 1000)).toISOString(), level: "INFO", msg });
const URN = "urn:pulumi:s::kamino::kamino:index:Fleet$kubernetes:core/v1:Namespace::ns";

const LOG = [
    line(0, "Pulumi"),
    "warning: a plain line the CLI prints in between",
    line(0.3, "langhost[nodejs].Run(pwd=/p,...) executing"),
    line(0.9, "ResourceMonitor.RegisterResource received: t=pulumi:pulumi:Stack, name=kamino-s, custom=false, #props=0"),
    line(1.5, "ResourceMonitor.RegisterResource received: t=kamino:index:Fleet, name=kamino, custom=false, #props=0"),
    line(1.6, "newPlugin(): Launching plugin 'kubernetes (resource)' from '/x' with args: 127.0.0.1:1"),
    line(1.8, "newPlugin(): Launching plugin 'kubernetes (resource)' from '/x' with args: 127.0.0.1:1"),
    line(2.0, `Provider[0xa].Check(${URN}) executing (#oldInputs=3,#newInputs=3)`),
    line(2.1, `Provider[0xa].Check(${URN}) success: inputs=#3 failures=#0`),
    line(2.1, `Provider[0xa].Diff(${URN},ns): executing (#oldInputs=3)`),
    line(2.4, `Provider[0xa].Diff(${URN},ns) success: changes=1`),
    line(2.8, "langhost[nodejs].Run(pwd=/p,...,dryrun=true) success"),
    line(2.9, "*** Update(preview=true) complete ***"),
    '{"time": "broken',
].join("\n");

test("splits a run into engine start, Node and SDK, program load, providers and the rest", () => {
    expect(runPhases(parseLog(LOG))).toEqual({
        engineStart: 0.3,
        nodeAndSdk: 0.6,
        programLoad: 0.6,
        providers: 2,
        providerLaunchSpan: 0.2,
        checkDiffCalls: 2,
        checkDiffSeconds: 0.4,
        afterLastLaunch: 1,
        total: 2.9,
    });
});

test("a log without the engine's lines says how to make one", () => {
    expect(() => runPhases(parseLog("plain text"))).toThrow(/--logflow -v=9/);
});
