/**
 * Longest stretch a loop over a container's structures runs before it lets the event loop serve
 * other work: a quarter of the 20 ms a server can stall without its requests noticing, as one step
 * past the slice's end (a large directory sector, a garbage collection) can run several ms more.
 */
const SLICE_MILLISECONDS = 5;

/** Cuts a long synchronous loop into slices: `if (slicer.due()) await slicer.pause();` inside it. */
export interface TimeSlicer {
  /** True once the current slice has run its time. */
  due(): boolean;
  /**
   * Resolves on a later turn of the event loop, once its timers have run and its I/O was polled, and
   * starts a new slice. A timer rather than `setImmediate`: work started from an I/O callback would
   * run its next slice in that same turn's check phase, and timers and I/O would wait two slices.
   */
  pause(): Promise<void>;
}

/** Starts a slicer whose first slice begins now. */
export function createTimeSlicer(sliceMilliseconds = SLICE_MILLISECONDS): TimeSlicer {
  let sliceStart = performance.now();
  return {
    due: () => performance.now() - sliceStart >= sliceMilliseconds,
    pause: () =>
      new Promise((resolve) =>
        setTimeout(() => {
          sliceStart = performance.now();
          resolve();
        }, 0),
      ),
  };
}
