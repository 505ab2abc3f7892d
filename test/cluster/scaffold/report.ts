// The timing and reporting every long cluster suite shares: a progress line on stderr as each step
// starts and ends (so a slow CI log shows where it is), and one table of what was measured at the end.

/** Times and facts a suite measured, printed as one table when it ends. */
export class SuiteReport {
    private readonly rows: Record<string, string> = {};

    /** @param suite the suite's name, at the head of each line and of the table */
    constructor(private readonly suite: string) {}

    /** A progress line: `[suite hh:mm:ss] line`. */
    note(line: string): void {
        process.stderr.write(`[${this.suite} ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    }

    /** Records a row: seconds (one decimal), named seconds (`a 1.2, b 3.4`) or a text as it is. */
    record(what: string, value: number | Record<string, number> | string): void {
        this.rows[what] =
            typeof value === "number"
                ? `${value.toFixed(1)} s`
                : typeof value === "string"
                  ? value
                  : Object.entries(value)
                        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
                        .join(", ");
        this.note(`${what}: ${this.rows[what]}`);
    }

    /** Runs `fn`, noting its start and recording its time, also when it fails. */
    async timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
        const t = Date.now();
        this.note(`${what} ...`);
        try {
            return await fn();
        } finally {
            this.record(what, (Date.now() - t) / 1000);
        }
    }

    /** Seconds since `start` (a `Date.now()`), recorded under `what`; returns them. */
    since(what: string, start: number): number {
        const s = (Date.now() - start) / 1000;
        this.record(what, s);
        return s;
    }

    /** The table, if anything was recorded: `suite on the loopback fleet:` and one indented row per measurement. */
    print(): void {
        if (Object.keys(this.rows).length === 0) return;
        console.log(
            `${this.suite} on the loopback fleet:\n${Object.entries(this.rows)
                .map(([k, v]) => `  ${k}: ${v}`)
                .join("\n")}`,
        );
    }
}
