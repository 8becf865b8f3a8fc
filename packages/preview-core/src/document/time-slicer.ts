/**
 * Longest stretch a loop over a container's structures runs before it lets the event loop serve
 * other work: half the 20 ms a server can stall without its requests noticing, so a loaded
 * machine that runs a slice twice as slowly still stays within it.
 */
const SLICE_MILLISECONDS = 10;

/** Cuts a long synchronous loop into slices: `if (slicer.due()) await slicer.pause();` inside it. */
export interface TimeSlicer {
  /** True once the current slice has run its time. */
  due(): boolean;
  /** Resolves on a later turn of the event loop, after pending I/O and timers, and starts a new slice. */
  pause(): Promise<void>;
}

/** Starts a slicer whose first slice begins now. */
export function createTimeSlicer(sliceMilliseconds = SLICE_MILLISECONDS): TimeSlicer {
  let sliceStart = performance.now();
  return {
    due: () => performance.now() - sliceStart >= sliceMilliseconds,
    pause: () =>
      new Promise((resolve) =>
        setImmediate(() => {
          sliceStart = performance.now();
          resolve();
        }),
      ),
  };
}
