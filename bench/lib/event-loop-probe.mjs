// How long a piece of work holds this process's event loop: a 1 ms interval timer notes the gap
// between its ticks while the work runs. A gap of 25 ms means no callback, timer or request of the
// process could run for 25 ms. Finer than monitorEventLoopDelay, whose histogram only keeps delays.

/** Resolves on the next turn of the event loop after the pending I/O callbacks. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `work()` under the probe and resolves with `{ longestStallMs, durationMs, stallsOver20Ms,
 * result }`: the longest gap between two ticks (including the one the work's end closes), the work's
 * wall-clock duration, and how many gaps passed 20 ms.
 */
export async function measureStalls(work) {
  const gaps = [];
  let last = performance.now();
  let onTick;
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    onTick?.();
  }, 1);
  await nextTurn();
  gaps.length = 0;
  last = performance.now();
  const start = performance.now();
  const result = await work();
  const durationMs = performance.now() - start;
  // The tick after the work closes the gap its last synchronous stretch opened.
  await new Promise((resolve) => {
    onTick = resolve;
  });
  clearInterval(timer);
  return {
    longestStallMs: Math.max(0, ...gaps),
    durationMs,
    stallsOver20Ms: gaps.filter((gap) => gap > 20).length,
    result,
  };
}

/** The probe's longest gap while the process does nothing for `milliseconds`: this machine's floor. */
export function idleFloor(milliseconds) {
  return measureStalls(() => new Promise((resolve) => setTimeout(resolve, milliseconds)));
}
