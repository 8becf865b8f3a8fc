import { PreviewError } from '../errors.js';
import {
  describeStoredFileRef,
  normaliseStoredFileRef,
  type StoredFileRef,
  type StoredFileSource,
} from './stored-file-source.js';

/** Options of {@link createStoredFileExistence}. */
export interface StoredFileExistenceOptions {
  /**
   * How long one answer of the storage is reused, in milliseconds (0: ask every time). Short: a
   * deleted file's kept renders are served at most this long after the deletion.
   * @default 2000
   */
  readonly ttlMs?: number;
  /**
   * The clock, in milliseconds; for tests.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** Whether stored versions still exist, each storage answer reused for a few seconds. */
export interface StoredFileExistence {
  /**
   * True when the version is in the storage (the adapter's `exists`, or a whole `read` for adapters
   * without one). Concurrent questions about one version share one storage request.
   * @throws {PreviewError} `STORAGE_UNAVAILABLE` when the storage cannot answer.
   */
  exists(ref: StoredFileRef, signal?: AbortSignal): Promise<boolean>;
}

async function askSource(source: StoredFileSource, ref: StoredFileRef): Promise<boolean> {
  if (source.exists) return source.exists(ref);
  try {
    await source.read(ref);
    return true;
  } catch (error) {
    if (error instanceof PreviewError && error.code === 'NOT_FOUND') return false;
    throw error;
  }
}

/**
 * Remembers for `ttlMs` whether stored versions exist, so serving a kept render costs at most one
 * cheap storage request per version every few seconds. Failed questions are not remembered.
 */
export function createStoredFileExistence(
  source: StoredFileSource,
  options: StoredFileExistenceOptions = {},
): StoredFileExistence {
  const ttlMs = options.ttlMs ?? 2000;
  const now = options.now ?? Date.now;
  const answers = new Map<string, { until: number; answer: Promise<boolean> }>();
  const forgetExpired = (time: number) => {
    for (const [key, entry] of answers) if (entry.until <= time) answers.delete(key);
  };
  return {
    async exists(ref, signal) {
      signal?.throwIfAborted();
      const normalised = normaliseStoredFileRef(ref);
      const key = describeStoredFileRef(normalised);
      const time = now();
      const kept = answers.get(key);
      if (kept && kept.until > time) return kept.answer;
      if (answers.size >= 10_000) forgetExpired(time);
      if (answers.size >= 10_000) answers.clear();
      // Shared by concurrent callers, so it is not tied to one caller's signal.
      const answer = askSource(source, normalised);
      answers.set(key, { until: time + ttlMs, answer });
      try {
        return await answer;
      } catch (error) {
        if (answers.get(key)?.answer === answer) answers.delete(key);
        throw error;
      }
    },
  };
}
