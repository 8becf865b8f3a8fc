import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { PreviewError, type PreviewErrorCode } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';

/** Options of {@link createConversionFailureMemory}. */
export const conversionFailureOptionsSchema = z.strictObject({
  /**
   * Crashes or timeouts of the converter on the same content after which the content is blamed. One
   * can be bad luck (a restart, a busy host); the same document failing the same way twice is the
   * document.
   * @default 2
   */
  attempts: z.number().int().min(1).default(2),
  /**
   * How long a blamed document is answered without converting it again. Long enough that a client
   * retrying in a loop cannot crash an instance per try; short enough that an upgraded converter gets
   * another chance the same day.
   * @default 3600
   */
  rememberSeconds: z.number().int().min(1).default(3600),
  /**
   * Documents remembered at most (each costs about 200 bytes), least recently failed forgotten first.
   * @default 10000
   */
  maxEntries: z.number().int().min(1).default(10_000),
});

/** Failure-memory options as a caller writes them. */
export type ConversionFailureOptions = z.input<typeof conversionFailureOptionsSchema>;

/** Figures of the failure memory, for health reports. */
export interface ConversionFailureStats {
  /** Documents with at least one crash or timeout remembered. */
  readonly remembered: number;
  /** Documents answered without converting because they failed `attempts` times. */
  readonly blamed: number;
  /** Requests refused from memory since start. */
  readonly refused: number;
}

/**
 * Remembers, by content hash, documents that crashed the converter or ran past its time limit, so a
 * document that does so every time is refused as the input's fault instead of being retried forever.
 */
export interface ConversionFailureMemory {
  /**
   * Throws the remembered verdict when `key` failed `attempts` times within `rememberSeconds`.
   * @throws {PreviewError} `CONVERSION_FAILED`.
   */
  check(key: string): void;
  /**
   * Notes how a conversion of `key` failed and returns the error to answer: `error` itself, or the
   * verdict (`CONVERSION_FAILED`) when this was the `attempts`th crash or timeout.
   */
  record(key: string, error: unknown): unknown;
  stats(): ConversionFailureStats;
}

const COUNTED: ReadonlySet<PreviewErrorCode> = new Set(['CONVERTER_CRASHED', 'CONVERSION_TIMEOUT']);

interface Remembered {
  count: number;
  verdict: PreviewError | undefined;
  /** `Date.now()` after which the failures are forgotten. */
  until: number;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function verdictFor(error: PreviewError, attempts: number, rememberSeconds: number): PreviewError {
  const how = error.code === 'CONVERSION_TIMEOUT' ? 'ran past the time limit of' : 'crashed';
  return new PreviewError(
    'CONVERSION_FAILED',
    `this document ${how} the converter ${plural(attempts, 'time')} and cannot be previewed; it is not converted again for ${plural(Math.ceil(rememberSeconds / 60), 'minute')}`,
    { details: { reason: error.code, attempts, rememberSeconds }, cause: error },
  );
}

/**
 * Creates a {@link ConversionFailureMemory}.
 * @throws {PreviewError} `INVALID_OPTION` when an option is malformed.
 */
export function createConversionFailureMemory(input: ConversionFailureOptions = {}): ConversionFailureMemory {
  const options = parseOptions(conversionFailureOptionsSchema, input);
  const entries = new LRUCache<string, Remembered>({ max: options.maxEntries });
  const current = (key: string) => {
    const remembered = entries.get(key);
    if (remembered && remembered.until <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return remembered;
  };
  let refused = 0;

  return {
    check(key) {
      const verdict = current(key)?.verdict;
      if (!verdict) return;
      refused += 1;
      throw verdict;
    },
    record(key, error) {
      if (!(error instanceof PreviewError) || !COUNTED.has(error.code)) return error;
      const remembered = current(key) ?? { count: 0, verdict: undefined, until: 0 };
      remembered.count += 1;
      remembered.until = Date.now() + options.rememberSeconds * 1000;
      if (remembered.count >= options.attempts) {
        remembered.verdict = verdictFor(error, options.attempts, options.rememberSeconds);
      }
      entries.set(key, remembered);
      return remembered.verdict ?? error;
    },
    stats() {
      let blamed = 0;
      for (const remembered of entries.values()) if (remembered.verdict) blamed += 1;
      return { remembered: entries.size, blamed, refused };
    },
  };
}
