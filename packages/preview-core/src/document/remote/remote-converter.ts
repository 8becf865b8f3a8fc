import { z } from 'zod';
import { PreviewError } from '../../errors.js';
import { parseOptions } from '../../options/parse-options.js';
import type { ConversionRequest, ConverterStatus, DocumentConverter } from '../document-converter.js';
import { normaliseLocale } from '../locale.js';
import { type Attempt, attemptConversion } from './remote-attempt.js';

/** Options of {@link createRemoteConverter}, parsed once. */
export const remoteConverterOptionsSchema = z.strictObject({
  /** Base URL of a Collabora Online (coolwsd) or compatible server, e.g. `http://127.0.0.1:9980`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /**
   * Longest one HTTP attempt may take, upload and download included (the original service used 15 s).
   * @default 15000
   */
  timeoutMs: z.number().int().min(1).default(15_000),
  /**
   * Extra attempts after a connection error, a 5xx or a 429; a timeout or a refused document is not
   * retried, because it would only fail again.
   * @default 2
   */
  retries: z.number().int().min(0).default(2),
  /**
   * Delay before the first retry, doubled for each next one (0.5 s then 1 s by default).
   * @default 500
   */
  retryDelayMs: z.number().int().min(0).default(500),
  /**
   * Largest PDF accepted from the converter; a larger answer is cut off with CONVERSION_FAILED.
   * @default 104857600
   */
  maxOutputBytes: z
    .number()
    .int()
    .min(1)
    .default(100 * 1024 * 1024),
  /**
   * Locale sent as `lang` when a request names none.
   * @default 'en-US'
   */
  defaultLocale: z.string().min(2).default('en-US'),
  /**
   * Consecutive failed attempts (connection errors, 5xx) after which the converter reports itself
   * unavailable, until one attempt succeeds again.
   * @default 3
   */
  unavailableAfterFailures: z.number().int().min(1).default(3),
});

/** Remote converter options as a caller writes them. */
export type RemoteConverterOptionsInput = z.input<typeof remoteConverterOptionsSchema>;
/** Remote converter options with every default applied. */
export type RemoteConverterOptions = z.output<typeof remoteConverterOptionsSchema>;

const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** True when the base URL answers HTTP at all (any status), else why not. */
async function probeBaseUrl(baseUrl: string, timeoutMs: number): Promise<true | string> {
  try {
    const response = await fetch(baseUrl, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    return true;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return `the remote converter at ${baseUrl} cannot be reached (${cause ?? 'the connection failed'})`;
  }
}

/**
 * A {@link DocumentConverter} that posts each document to a Collabora Online compatible
 * `POST <baseUrl>/cool/convert-to/pdf?lang=<locale>` (multipart field `data`), with a timeout per
 * attempt and retries with back-off on connection errors, 5xx and 429. `probe()` asks the base URL
 * whether it answers at all, for health checks between conversions.
 * @throws {PreviewError} `INVALID_OPTION` when an option is malformed.
 */
export function createRemoteConverter(input: RemoteConverterOptionsInput): DocumentConverter {
  const options = parseOptions(remoteConverterOptionsSchema, input);
  const endpoint = new URL(
    'cool/convert-to/pdf',
    options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
  );
  const inFlight = new Set<AbortController>();
  let consecutiveFailures = 0;
  let lastError: string | undefined;
  let conversions = 0;
  let failures = 0;
  let closed = false;

  const record = (attempt: Attempt) => {
    if (attempt.outcome === 'pdf' || attempt.outcome === 'refused') consecutiveFailures = 0;
    else if (attempt.outcome === 'retry') {
      consecutiveFailures += 1;
      lastError = attempt.error.message;
    }
  };

  const convertOnce = async (request: ConversionRequest, locale: string): Promise<Uint8Array> => {
    let lastFailure: PreviewError | undefined;
    for (let index = 0; index <= options.retries; index += 1) {
      if (index > 0) await wait(options.retryDelayMs * 2 ** (index - 1));
      if (closed) break;
      const controller = new AbortController();
      inFlight.add(controller);
      let attempt: Attempt;
      try {
        attempt = await attemptConversion(endpoint, request, locale, options, controller.signal);
      } finally {
        inFlight.delete(controller);
      }
      record(attempt);
      if (attempt.outcome === 'pdf') return attempt.pdf;
      if (attempt.outcome !== 'retry') throw attempt.error;
      lastFailure = attempt.error;
    }
    throw lastFailure ?? new PreviewError('CONVERTER_UNAVAILABLE', 'the remote converter is closed');
  };

  const status = (): ConverterStatus => {
    const available = !closed && consecutiveFailures < options.unavailableAfterFailures;
    return {
      name: 'remote',
      available,
      reason: available ? undefined : closed ? 'closed' : lastError,
      instances: 1,
      busy: inFlight.size,
      queued: 0,
      restarts: 0,
      conversions,
      failures,
      pool: [],
    };
  };

  return {
    async convert(request) {
      request.signal?.throwIfAborted();
      const locale = normaliseLocale(request.locale, options.defaultLocale);
      try {
        const pdf = await convertOnce(request, locale);
        conversions += 1;
        return pdf;
      } catch (error) {
        failures += 1;
        throw error;
      }
    },
    status,
    async probe() {
      if (closed) return status();
      const reachable = await probeBaseUrl(options.baseUrl, Math.min(options.timeoutMs, 2_000));
      if (reachable === true) consecutiveFailures = 0;
      else {
        consecutiveFailures = Math.max(consecutiveFailures, options.unavailableAfterFailures);
        lastError = reachable;
      }
      return status();
    },
    async close() {
      closed = true;
      for (const controller of inFlight) controller.abort();
    },
  };
}
