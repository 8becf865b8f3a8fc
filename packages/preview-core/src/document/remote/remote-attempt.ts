import { PreviewError } from '../../errors.js';
import type { ConversionRequest } from '../document-converter.js';
import { DOCUMENT_TYPE_INFO } from '../document-type.js';

/** Result of one HTTP attempt: a PDF, a final error, or an error worth retrying. */
export type Attempt =
  | { readonly outcome: 'pdf'; readonly pdf: Uint8Array }
  | { readonly outcome: 'refused' | 'final'; readonly error: PreviewError }
  | { readonly outcome: 'retry'; readonly error: PreviewError };

interface AttemptOptions {
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

function retryAfter(response: Response | undefined): number {
  const header = Number(response?.headers.get('retry-after'));
  return Number.isFinite(header) && header > 0 ? Math.ceil(header) : 1;
}

async function readBounded(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return undefined;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function describeBody(response: Response): Promise<string> {
  const text = (await response.text().catch(() => '')).trim().slice(0, 200);
  return text ? `: ${text}` : '';
}

async function interpret(response: Response, options: AttemptOptions): Promise<Attempt> {
  const status = response.status;
  if (status === 200) {
    const pdf = await readBounded(response, options.maxOutputBytes);
    if (!pdf) {
      const error = new PreviewError(
        'CONVERSION_FAILED',
        `the remote converter sent more than ${options.maxOutputBytes} bytes`,
      );
      return { outcome: 'final', error };
    }
    if (Buffer.from(pdf.subarray(0, 5)).toString('latin1') !== '%PDF-') {
      return {
        outcome: 'final',
        error: new PreviewError('CONVERSION_FAILED', 'the remote converter answered 200 without a PDF'),
      };
    }
    return { outcome: 'pdf', pdf };
  }
  const body = await describeBody(response);
  const details = { retryAfterSeconds: retryAfter(response), remoteStatus: status };
  if (status === 429) {
    return {
      outcome: 'retry',
      error: new PreviewError('BUSY', `the remote converter is busy (429)${body}`, { details }),
    };
  }
  if (status >= 500) {
    const error = new PreviewError(
      'CONVERTER_UNAVAILABLE',
      `the remote converter failed with ${status}${body}`,
      { details },
    );
    return { outcome: 'retry', error };
  }
  if (status === 413) {
    const error = new PreviewError(
      'INPUT_TOO_LARGE',
      `the remote converter refused the document as too large (413)${body}`,
    );
    return { outcome: 'refused', error };
  }
  const error = new PreviewError(
    'CONVERSION_FAILED',
    `the remote converter refused the document with ${status}${body}`,
    {
      details: { remoteStatus: status },
    },
  );
  return { outcome: 'refused', error };
}

/** Posts the document once as multipart field `data` and classifies the answer; throws only the caller's abort reason. */
export async function attemptConversion(
  endpoint: URL,
  request: ConversionRequest,
  locale: string,
  options: AttemptOptions,
  closeSignal: AbortSignal,
): Promise<Attempt> {
  const url = new URL(endpoint);
  url.searchParams.set('lang', locale);
  const form = new FormData();
  const type = DOCUMENT_TYPE_INFO[request.type];
  form.append('data', new Blob([request.data], { type: type.mediaType }), `document.${request.type}`);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signals = [closeSignal, timeout, ...(request.signal ? [request.signal] : [])];
  try {
    const response = await fetch(url, { method: 'POST', body: form, signal: AbortSignal.any(signals) });
    return await interpret(response, options);
  } catch (error) {
    if (timeout.aborted) {
      const message = `the remote converter did not answer within ${options.timeoutMs} ms`;
      const details = { retryAfterSeconds: 1, timeoutMs: options.timeoutMs };
      return {
        outcome: 'final',
        error: new PreviewError('CONVERSION_TIMEOUT', message, { details, cause: error }),
      };
    }
    if (request.signal?.aborted) throw request.signal.reason;
    // The system error code (ECONNREFUSED, ENOTFOUND) says enough; fetch's own message does not.
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? 'the connection failed';
    const message = `the remote converter at ${endpoint.origin} cannot be reached (${reason})`;
    const details = { retryAfterSeconds: 2 };
    return {
      outcome: 'retry',
      error: new PreviewError('CONVERTER_UNAVAILABLE', message, { details, cause: error }),
    };
  }
}
