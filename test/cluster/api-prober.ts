// A client that calls an API every 200 ms throughout a drill and records each answer: what a member's
// agent or an operator sees of the Karmada API while a node dies or Karmada is upgraded. Each call is
// a new connection with a 2 s limit, as a client reconnecting after a failure would make, so one dead
// backend behind the load balancer shows as the calls that reach it, not as one hung connection.
import { KubeClient, KubeCredentials } from "./harness";

/** One call: when it started (ms since the start) and how it ended. */
export interface Probe {
    at: number;
    ok: boolean;
    error?: string;
}

/** What the calls saw. */
export interface ProbeReport {
    calls: number;
    failed: number;
    /** The longest time without a successful answer, in seconds (0.2 when every call answered). */
    longestGap_s: number;
    /** The first failures, for the report. */
    errors: string[];
    /** Each run of failed calls: from its first call to the next success, in seconds since the start, with its first error. */
    outages: string[];
}

/** Each run of failed calls, as `<from>-<to> s: <first error> (<n> calls)`, <to> being the next success (or the end). */
export function outages(probes: Probe[], endedAt: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < probes.length; i++) {
        if (probes[i].ok) continue;
        let j = i;
        while (j < probes.length && !probes[j].ok) j++;
        const to = j < probes.length ? probes[j].at : endedAt;
        out.push(`${(probes[i].at / 1000).toFixed(1)}-${(to / 1000).toFixed(1)} s: ${probes[i].error} (${j - i} calls)`);
        i = j;
    }
    return out;
}

/** The longest time between two successful calls (the start and the end count as successes). */
export function longestGap(probes: Probe[], endedAt: number): number {
    let last = 0;
    let longest = 0;
    for (const p of probes
        .filter((x) => x.ok)
        .map((x) => x.at)
        .concat(endedAt)) {
        longest = Math.max(longest, p - last);
        last = p;
    }
    return Math.round(longest / 100) / 10;
}

/** A refused call as `HTTP <status>: <the Status's message>` (a 429's says why: a cache still starting, or throttling). */
export function httpError(status: number, body: string): string {
    let message: unknown;
    try {
        message = (JSON.parse(body) as { message?: unknown }).message;
    } catch {
        // not a Status: the code alone
    }
    return typeof message === "string" && message ? `HTTP ${status}: ${message.slice(0, 100)}` : `HTTP ${status}`;
}

export class ApiProber {
    private readonly probes: Probe[] = [];
    private running = false;
    private loop?: Promise<void>;
    private t0 = 0;

    constructor(
        private readonly credentials: KubeCredentials,
        /** What is called: a list that goes through Karmada's aggregated API, by default. */
        private readonly path = "/apis/cluster.karmada.io/v1alpha1/clusters",
        private readonly intervalMs = 200,
    ) {}

    start(): this {
        this.running = true;
        this.t0 = Date.now();
        this.loop = (async () => {
            while (this.running) {
                const at = Date.now() - this.t0;
                const client = new KubeClient(this.credentials, 2000);
                const probe: Probe = await client.request("GET", this.path).then(
                    (r) => (r.status === 200 ? { at, ok: true } : { at, ok: false, error: httpError(r.status, r.body) }),
                    (e: Error) => ({ at, ok: false, error: e.message }),
                );
                client.close();
                this.probes.push(probe);
                await new Promise((r) => setTimeout(r, Math.max(0, this.intervalMs - (Date.now() - this.t0 - at))));
            }
        })();
        return this;
    }

    async stop(): Promise<ProbeReport> {
        this.running = false;
        await this.loop;
        const failed = this.probes.filter((p) => !p.ok);
        return {
            calls: this.probes.length,
            failed: failed.length,
            longestGap_s: longestGap(this.probes, Date.now() - this.t0),
            errors: [...new Set(failed.map((p) => p.error ?? ""))].slice(0, 5),
            outages: outages(this.probes, Date.now() - this.t0),
        };
    }
}

/** An APIService's `Available` condition, as read. */
export interface AvailableCondition {
    status: string;
    reason?: string;
    lastTransitionTime?: string;
}

/**
 * Each spell of an APIService not Available, from readings of its condition: kube-aggregator answers
 * every call through that API with 503 meanwhile. A spell is `<status> <reason> <first>-<last> s`, in
 * seconds since `t0`; it starts at the condition's transition (to the second) if that is earlier than
 * the reading that saw it, and ends at the last reading that still saw it.
 */
export class UnavailableSpells {
    private readonly spells: string[] = [];
    private current?: { key: string; first: number; last: number };

    constructor(private readonly t0: number) {}

    /** One reading at `now`; undefined (the read failed) says nothing and ends nothing. */
    see(condition: AvailableCondition | undefined, now = Date.now()): void {
        if (!condition) return;
        if (condition.status === "True") return this.close();
        const since = Math.min(Date.parse(condition.lastTransitionTime ?? "") || now, now);
        const key = `${condition.status} ${condition.reason ?? ""}`.trim();
        if (this.current?.key === key && since <= this.current.first + 1000) {
            this.current.last = now;
            return;
        }
        this.close();
        this.current = { key, first: since, last: now };
    }

    /** The spells seen, the one still open included. */
    end(): string[] {
        this.close();
        return [...this.spells];
    }

    private close(): void {
        const s = this.current;
        if (s) this.spells.push(`${s.key} ${((s.first - this.t0) / 1000).toFixed(1)}-${((s.last - this.t0) / 1000).toFixed(1)} s`);
        this.current = undefined;
    }
}
