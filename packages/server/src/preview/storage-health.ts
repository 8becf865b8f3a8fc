import { stat } from 'node:fs/promises';
import type { HealthCheck } from '../health/health-check.js';

/** Options of {@link createStorageHealthCheck}: the storage folder, or the HTTP storage's base URL. */
export interface StorageHealthOptions {
  directory: string;
  url: string | undefined;
  timeoutMs: number;
}

async function probeHttpStorage(baseUrl: string, timeoutMs: number) {
  const url = new URL('health/live', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return { live: ok, ready: ok, details: { kind: 'http', url: url.href, status: response.status } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { live: false, ready: false, details: { kind: 'http', url: url.href, error: message } };
  }
}

async function probeDirectory(directory: string) {
  try {
    const ready = (await stat(directory)).isDirectory();
    return { live: ready, ready, details: { kind: 'disk', directory } };
  } catch {
    return { live: false, ready: false, details: { kind: 'disk', directory, error: 'folder not found' } };
  }
}

/**
 * Reports the stored-file storage: `GET <url>/health/live` for an HTTP storage service, the folder's
 * existence for disk. Optional, like the original: uploads keep working without it.
 */
export function createStorageHealthCheck(options: StorageHealthOptions): HealthCheck {
  return {
    name: 'storage',
    required: false,
    check: () =>
      options.url
        ? probeHttpStorage(options.url, Math.min(options.timeoutMs, 2_000))
        : probeDirectory(options.directory),
  };
}
