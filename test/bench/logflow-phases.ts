// Where a `pulumi preview` or `up` spends its time, from the engine's own log: run it with
// `--logflow -v=9 --logtostderr 2> run.log` (test/bench/hold-fleet.ts holds a fleet to run it on),
// then `node -r ts-node/register/transpile-only test/bench/logflow-phases.ts run.log`.
// The phases are the ones of the profile table in docs/testing.md (Where a preview spends its time).
import * as fs from "fs";

/** The phases of one run, seconds from the CLI's first log line. */
export interface RunPhases {
    /** The CLI starts, reads the stack and asks the language host to run the program. */
    engineStart: number;
    /** Node starts, loads the SDK and registers the stack: from `Run` to the Stack's registration. */
    nodeAndSdk: number;
    /**
     * The program's modules load, its config is checked and its resource tree is built: until the
     * first component (the Fleet) registers, which the SDK sends only once the synchronous
     * construction of every resource under it has returned.
     */
    programLoad: number;
    /** Kubernetes provider processes the engine starts (one per cluster, one for Karmada). */
    providers: number;
    /** From the first provider's launch to the last's (the engine starts them one at a time). */
    providerLaunchSpan: number;
    /** Check and Diff calls to the providers, and the seconds they took in all. */
    checkDiffCalls: number;
    checkDiffSeconds: number;
    /** From the last provider's launch until the program ends. */
    afterLastLaunch: number;
    /** The whole run, as the log shows it. */
    total: number;
}

interface Line {
    t: number;
    msg: string;
}

/** Parses the JSON lines of `--logflow -v=9 --logtostderr`; other lines are ignored. */
export function parseLog(text: string): Line[] {
    const out: Line[] = [];
    for (const raw of text.split("\n")) {
        if (!raw.startsWith("{")) continue;
        try {
            const d = JSON.parse(raw) as { time?: string; msg?: string };
            if (d.time && typeof d.msg === "string") out.push({ t: Date.parse(d.time), msg: d.msg });
        } catch {
            // a line cut by the terminal, or not JSON
        }
    }
    return out;
}

/** The phases of one run's log lines. */
export function runPhases(lines: Line[]): RunPhases {
    if (lines.length === 0) throw new Error("no log lines: run pulumi with --logflow -v=9 --logtostderr");
    const t0 = lines[0].t;
    const at = (re: RegExp, last = false): number => {
        const hits = lines.filter((l) => re.test(l.msg));
        if (hits.length === 0) throw new Error(`not in the log: ${re}`);
        return ((last ? hits[hits.length - 1] : hits[0]).t - t0) / 1000;
    };
    const run = at(/^langhost\[nodejs\]\.Run\(/);
    const runEnd = at(/^langhost\[nodejs\]\.Run\(/, true);
    const stack = at(/^ResourceMonitor\.RegisterResource received: t=pulumi:pulumi:Stack,/);
    const firstComponent = at(/^ResourceMonitor\.RegisterResource received: t=(?!pulumi:)[^,]+, name=[^,]+, custom=false/);
    const launches = lines.filter((l) => /^newPlugin\(\): Launching plugin 'kubernetes/.test(l.msg)).map((l) => (l.t - t0) / 1000);
    // Provider[0x..].Check(urn...) executing ... then the same prefix with success/failed.
    const started = new Map<string, number>();
    let calls = 0;
    let seconds = 0;
    for (const l of lines) {
        const m = /^Provider\[(\w+)\]\.(Check|Diff)\((urn:[^,) ]+)/.exec(l.msg);
        if (!m) continue;
        const key = `${m[1]} ${m[2]} ${m[3]}`;
        if (/\) ?executing|: executing/.test(l.msg)) started.set(key, l.t);
        else if (started.has(key) && /success|failed/.test(l.msg)) {
            calls++;
            seconds += (l.t - started.get(key)!) / 1000;
            started.delete(key);
        }
    }
    const round = (x: number) => Math.round(x * 100) / 100;
    return {
        engineStart: round(run),
        nodeAndSdk: round(stack - run),
        programLoad: round(firstComponent - stack),
        providers: launches.length,
        providerLaunchSpan: round(launches.length ? launches[launches.length - 1] - launches[0] : 0),
        checkDiffCalls: calls,
        checkDiffSeconds: round(seconds),
        afterLastLaunch: round(runEnd - (launches.length ? launches[launches.length - 1] : firstComponent)),
        total: round((lines[lines.length - 1].t - t0) / 1000),
    };
}

if (require.main === module) {
    for (const file of process.argv.slice(2)) {
        console.log(file, JSON.stringify(runPhases(parseLog(fs.readFileSync(file, "utf8")))));
    }
}
