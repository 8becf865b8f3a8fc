// HTTP load with autocannon for the chat benchmarks: one warm-up second, then `durationSeconds` of
// load with `connections` connections, and the target server's CPU per request from /proc.
import autocannon from 'autocannon';
import { cpuMillisecondsOf } from './processes.mjs';

/**
 * Loads the server `target` ({ pid }) with the autocannon `options`; resolves with its rps, p99 and
 * microseconds of CPU per request, or throws when a request failed.
 */
export async function loadServer(target, options, { connections = 10, durationSeconds = 3 } = {}) {
  await autocannon({ ...options, connections, duration: 1 });
  const cpuBefore = cpuMillisecondsOf(target.pid);
  const result = await autocannon({ ...options, connections, duration: durationSeconds });
  const cpuMicroseconds = ((cpuMillisecondsOf(target.pid) - cpuBefore) * 1000) / result.requests.total;
  const failures = result.errors + result.timeouts + result.non2xx;
  if (failures > 0) throw new Error(`${options.method ?? 'GET'} ${options.url}: ${failures} failed requests`);
  return { rps: result.requests.average, p99: result.latency.p99, cpuMicroseconds };
}

/** The middle value (the upper one of an even count). */
export function median(values) {
  return [...values].sort((a, b) => a - b)[values.length >> 1];
}
