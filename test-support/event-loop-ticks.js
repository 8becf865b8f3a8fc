// Shared by the packages' tests: plain JavaScript with a declaration file beside it, so that each
// package's type check reads its types without taking the file into its own sources.

/**
 * Runs `work` while a 1 ms interval timer notes when it fires. Work that holds the event loop the
 * whole time lets it fire 0 times and leaves one gap as long as the work; work cut into slices
 * lets it fire between them. Assert on ticks and on the gap relative to `durationMs`, never on
 * the duration itself.
 *
 * @template Result
 * @param {() => Promise<Result>} work
 * @returns {Promise<import('./event-loop-ticks.js').EventLoopTicks<Result>>}
 */
export async function eventLoopTicks(work) {
  let ticks = 0;
  let longestGapMs = 0;
  let last = performance.now();
  /** @type {(() => void) | undefined} */
  let onTick;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    ticks += 1;
    onTick?.();
  }, 1);
  await new Promise((resolve) => setImmediate(resolve));
  ticks = 0;
  longestGapMs = 0;
  last = performance.now();
  const start = performance.now();
  try {
    const result = await work();
    const durationMs = performance.now() - start;
    const ticksDuringWork = ticks;
    // The next firing closes the gap the work's last synchronous stretch opened.
    await new Promise((resolve) => {
      onTick = () => resolve(undefined);
    });
    return { result, ticks: ticksDuringWork, longestGapMs, durationMs };
  } finally {
    clearInterval(timer);
  }
}
