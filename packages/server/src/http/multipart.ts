import type { Request } from 'express';
import { HttpError, RequestValidationError } from './http-error.js';
import {
  boundaryOf,
  type FoundFilePart,
  MultipartFileTooLargeError,
  MultipartScanner,
} from './multipart-scanner.js';
import type { UploadBufferPool } from './upload-buffer-pool.js';

/** A file received in a multipart body, held in memory. */
export interface UploadedFile {
  data: Buffer;
  fileName: string;
  mimeType: string;
  /** Gives `data` back to the pool it was read into (a no-op without one); never use `data` afterwards. */
  release(): void;
}

/** Limits for {@link readUploadedFile}. */
export interface UploadOptions {
  /** Name of the multipart field that carries the file. */
  fieldName: string;
  /** Largest file accepted, in bytes; past it the request fails with 413 before more is read. */
  maxBytes: number;
  /**
   * Buffers to read the body into when its length is declared; the caller then calls
   * `release()` once nothing uses the data. Fresh multi-megabyte buffers that live through a render
   * cost full garbage collections (see `bench/preview-images.mjs`).
   * @default fresh buffers
   */
  pool?: UploadBufferPool | undefined;
}

/** Multipart framing adds a little; a body beyond the file limit plus this cannot hold a valid file. */
const FRAMING_ALLOWANCE = 64 * 1024;
/** First size of the buffer of a body sent without Content-Length; it doubles as needed. */
const CHUNKED_START_BYTES = 64 * 1024;

const missingFile = (fieldName: string, message: string) =>
  new RequestValidationError([{ loc: ['body', fieldName], msg: message, type: 'missing' }]);

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `the uploaded file is larger than the limit of ${maxBytes} bytes`, {
    Connection: 'close',
  });

const malformed = () => new HttpError(400, 'the multipart body is malformed or was cut short');
const aborted = () => new HttpError(400, 'the upload was aborted by the client');

function declaredLengthOf(request: Request): number | undefined {
  const header = request.headers['content-length'];
  const length = header === undefined ? Number.NaN : Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * The whole body, copied chunk by chunk into one buffer: of the declared length, from `pool` when
 * there is one, so no chunk is held and no second copy is made; without a declared length (chunked
 * body), a fresh buffer that doubles as needed up to `limit`.
 */
function bodyCollector(
  declaredLength: number | undefined,
  limit: number,
  pool: UploadBufferPool | undefined,
) {
  let buffer =
    declaredLength === undefined
      ? Buffer.allocUnsafe(Math.min(CHUNKED_START_BYTES, limit))
      : (pool?.take(declaredLength) ?? Buffer.allocUnsafe(declaredLength));
  let length = 0;
  return {
    /** Appends a chunk; returns the bytes received so far. */
    add(chunk: Buffer): Buffer {
      if (length + chunk.length > buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(buffer.length * 2, length + chunk.length)));
        buffer.copy(grown, 0, 0, length);
        pool?.release(buffer);
        buffer = grown;
      }
      chunk.copy(buffer, length);
      length += chunk.length;
      return buffer.subarray(0, length);
    },
    /** The file's bytes; the rest of the buffer that this body never wrote is cleared first. */
    file(start: number, end: number): Buffer {
      buffer.fill(0, length);
      return buffer.subarray(start, end);
    },
    release(): void {
      pool?.release(buffer);
    },
  };
}

/**
 * Reads the one file field of a `multipart/form-data` request into memory, refusing it as soon as
 * the file passes `maxBytes` (or the body passes it plus 64 KiB of framing). Other fields and files
 * are read and dropped; the first file part named `fieldName` is the upload (see
 * {@link MultipartScanner}). With a `pool`, call `release()` on the result once its data is no
 * longer used.
 * @throws RequestValidationError (422) when the body is not multipart, has no boundary or has no
 *   such file field; HttpError 413 (with `Connection: close`) when the file or the body is too large;
 *   HttpError 400 when the body is malformed, cut short or aborted by the client.
 */
export function readUploadedFile(request: Request, options: UploadOptions): Promise<UploadedFile> {
  const { fieldName, maxBytes, pool } = options;
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    const expected = `expected a multipart/form-data body with a "${fieldName}" field`;
    return Promise.reject(missingFile(fieldName, expected));
  }
  const boundary = boundaryOf(contentType);
  if (boundary === undefined)
    return Promise.reject(missingFile(fieldName, 'the multipart body has no boundary'));
  const bodyLimit = maxBytes + FRAMING_ALLOWANCE;
  const declaredLength = declaredLengthOf(request);
  if (declaredLength !== undefined && declaredLength > bodyLimit) return Promise.reject(tooLarge(maxBytes));
  const scanner = new MultipartScanner(boundary, fieldName, maxBytes);
  const body = bodyCollector(declaredLength, bodyLimit, pool);
  return new Promise((resolve, reject) => {
    let settled = false;
    let received = 0;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      body.release();
      // Keep reading (and dropping) what the client still sends; the refusal closes the connection.
      request.resume();
      reject(error);
    };
    request.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > bodyLimit) return fail(tooLarge(maxBytes));
      try {
        scanner.scan(body.add(chunk));
      } catch (error) {
        fail(error instanceof MultipartFileTooLargeError ? tooLarge(maxBytes) : malformed());
      }
    });
    request.on('end', () => {
      if (settled) return;
      let found: FoundFilePart | undefined;
      try {
        found = scanner.finish();
      } catch {
        return fail(malformed());
      }
      if (!found) return fail(missingFile(fieldName, `the multipart body has no "${fieldName}" file field`));
      settled = true;
      const data = body.file(found.start, found.end);
      resolve({ data, fileName: found.fileName, mimeType: found.mimeType, release: () => body.release() });
    });
    request.on('error', () => fail(aborted()));
    request.on('close', () => {
      if (!request.complete) fail(aborted());
    });
  });
}
