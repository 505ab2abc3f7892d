// A loop that calls `tick` every `intervalMs`, one call at a time (a slow tick delays the next, never
// overlaps it), for the harness's players of IKO and of Karmada's agent.
export class Ticker {
    private timer: NodeJS.Timeout | undefined;
    private busy: Promise<void> = Promise.resolve();

    constructor(
        private readonly tick: () => Promise<void>,
        private readonly intervalMs = 500,
    ) {}

    /** Starts the loop; a second start does nothing. */
    start(): void {
        if (!this.timer) this.timer = setInterval(() => (this.busy = this.busy.then(() => this.tick())), this.intervalMs);
    }

    /** Stops the loop and waits for a tick under way. */
    async stop(): Promise<void> {
        if (this.timer) clearInterval(this.timer);
        this.timer = undefined;
        await this.busy;
    }

    /** Settles once the tick under way (if any) is done. */
    idle(): Promise<void> {
        return this.busy;
    }
}
