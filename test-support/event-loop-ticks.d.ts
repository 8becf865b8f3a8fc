/** What a 1 ms interval timer saw while some work ran. */
export interface EventLoopTicks<Result> {
  result: Result;
  /** Times the timer fired between the work's start and its end. */
  ticks: number;
  /** Longest time between two firings, the gap the work's end closes included. */
  longestGapMs: number;
  /** Wall-clock time of the work. */
  durationMs: number;
}

/**
 * Runs `work` while a 1 ms interval timer notes when it fires; see event-loop-ticks.js.
 */
export function eventLoopTicks<Result>(work: () => Promise<Result>): Promise<EventLoopTicks<Result>>;
