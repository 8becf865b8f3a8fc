import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { HealthCheck } from './health-check.js';

/**
 * Sampling interval of the delay histogram. 10 ms rather than 20 ms: a timer waking 100 times a
 * second costs nothing measurable, and it catches any stall of 20 ms (the most a request's work may
 * hold the loop) as at least 10 ms late, where a 20 ms interval can record almost nothing of it.
 */
const RESOLUTION_MILLISECONDS = 10;

/** The `event-loop` health entry; `close()` stops its sampling. */
export interface EventLoopHealthCheck extends HealthCheck {
  close(): void;
}

/**
 * The histogram records each whole interval between samples, the resolution included: the delay is
 * what lies beyond it, in milliseconds with one decimal.
 */
function delayMilliseconds(nanoseconds: number): number {
  return Math.round(Math.max(0, nanoseconds / 1e6 - RESOLUTION_MILLISECONDS) * 10) / 10;
}

/**
 * Samples the event loop's delay from now on (`perf_hooks.monitorEventLoopDelay`, every 10 ms) and
 * reports it as the optional `event-loop` dependency of `/health/`: `details.delayMilliseconds`
 * holds the p50, p99 and max since the start, how late the loop ran a timer that was due.
 */
export function createEventLoopHealthCheck(): EventLoopHealthCheck {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MILLISECONDS });
  histogram.enable();
  return {
    name: 'event-loop',
    required: false,
    async check() {
      const delay = {
        p50: delayMilliseconds(histogram.percentile(50)),
        p99: delayMilliseconds(histogram.percentile(99)),
        max: delayMilliseconds(histogram.max),
      };
      return { live: true, ready: true, details: { delayMilliseconds: delay } };
    },
    close() {
      histogram.disable();
    },
  };
}
