/**
 * Calls `tick` every `periodMs` against the monotonic clock rather than chaining timers, so ticks do
 * not drift. After a stall it catches up at most `maxCatchUp` ticks and then skips ahead.
 */
export class MixerClock {
  readonly #tick: () => void;
  readonly #periodMs: number;
  readonly #maxCatchUp: number;
  #timer: NodeJS.Timeout | undefined;
  #nextAtMs = 0;

  constructor(tick: () => void, periodMs: number, maxCatchUp = 5) {
    this.#tick = tick;
    this.#periodMs = periodMs;
    this.#maxCatchUp = maxCatchUp;
  }

  /** Whether the clock is running. */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  /** Starts ticking; does nothing when already running. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#nextAtMs = performance.now() + this.#periodMs;
    this.#schedule();
  }

  /** Stops ticking. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    const delay = Math.max(0, this.#nextAtMs - performance.now());
    this.#timer = setTimeout(() => this.#run(), delay);
    this.#timer.unref();
  }

  #run(): void {
    let ticks = 0;
    while (performance.now() >= this.#nextAtMs && ticks < this.#maxCatchUp) {
      this.#nextAtMs += this.#periodMs;
      ticks += 1;
      try {
        this.#tick();
      } catch (error) {
        process.emitWarning(`audio mixer tick failed: ${String(error)}`, 'SfuMixerWarning');
      }
    }
    const now = performance.now();
    if (this.#nextAtMs <= now) this.#nextAtMs = now + this.#periodMs;
    if (this.#timer !== undefined) this.#schedule();
  }
}
