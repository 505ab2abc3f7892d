// What a wait shows while it waits: one line when what it waits on changes, with the time waited so
// far, and nothing when a poll sees the same as the one before, so that Pulumi's display shows the
// run moving without a line every two seconds.

/** An age as kubectl prints it: `40s`, `3m5s`, `1h2m`. */
export function formatAge(seconds: number): string {
    const s = Math.max(0, Math.floor(seconds));
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ""}`;
    return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? `${Math.floor((s % 3600) / 60)}m` : ""}`;
}

/** Where a wait's lines go (in the program: `pulumi.log.info` on the waiting component). */
export type ProgressSink = (line: string) => void;

/** The progress of one wait, reported to a sink. */
export class WaitProgress {
    private readonly started: number;
    private last: string | undefined;

    /**
     * @param sink where the lines go; none: nothing is reported
     * @param now the clock (milliseconds), injectable for tests
     */
    constructor(
        private readonly sink: ProgressSink | undefined,
        private readonly now: () => number = Date.now,
    ) {
        this.started = now();
    }

    /** Seconds since the wait began. */
    get waitedSeconds(): number {
        return (this.now() - this.started) / 1000;
    }

    /** Reports `state` as `<state> (waited <age>)`, unless it is the state reported last. */
    update(state: string): void {
        if (state === this.last) return;
        this.last = state;
        this.sink?.(`${state} (waited ${formatAge(this.waitedSeconds)})`);
    }
}
