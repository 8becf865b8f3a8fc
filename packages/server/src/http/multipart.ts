import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { Request } from 'express';
import { HttpError, RequestValidationError } from './http-error.js';
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
   * Buffers to read the file into when the body length is declared; the caller then calls
   * `release()` once nothing uses the data. Fresh multi-megabyte buffers that live through a render
   * cost full garbage collections (see `bench/preview-images.mjs`).
   * @default fresh buffers
   */
  pool?: UploadBufferPool | undefined;
}

/** Most file parts a multipart body may carry (the upload and a few others, which are dropped). */
export const MAX_MULTIPART_FILES = 4;
/** Most non-file fields a multipart body may carry (all dropped). */
export const MAX_MULTIPART_FIELDS = 32;

/** Multipart framing adds a little; a body beyond the file limit plus this cannot hold a valid file. */
const FRAMING_ALLOWANCE = 64 * 1024;

const missingFile = (fieldName: string, message: string) =>
  new RequestValidationError([{ loc: ['body', fieldName], msg: message, type: 'missing' }]);

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `the uploaded file is larger than the limit of ${maxBytes} bytes`, {
    Connection: 'close',
  });

const malformed = () => new HttpError(400, 'the multipart body is malformed or was cut short');
const tooManyParts = (what: 'file parts' | 'fields', limit: number) =>
  new HttpError(400, `expected at most ${limit} ${what} in the multipart body but received more`);
const aborted = () => new HttpError(400, 'the upload was aborted by the client');

/**
 * Gathers the file's chunks. With a declared body length, each chunk is copied on arrival into one
 * buffer of that length (the file is never longer than the body), taken from `pool` when there is
 * one, so no chunk is held and no second copy is made; without one (chunked body), the chunks are
 * concatenated at the end.
 */
function fileCollector(declaredLength: number | undefined, pool: UploadBufferPool | undefined) {
  const target =
    declaredLength === undefined
      ? undefined
      : (pool?.take(declaredLength) ?? Buffer.allocUnsafe(declaredLength));
  const chunks: Buffer[] = [];
  let length = 0;
  let discarded = false;
  return {
    /** Gives the buffer back to the pool, for a refused upload; later chunks are dropped. */
    discard(): void {
      discarded = true;
      if (target) pool?.release(target);
    },
    add(chunk: Buffer): void {
      if (discarded) return;
      if (target) chunk.copy(target, length);
      else chunks.push(chunk);
      length += chunk.length;
    },
    bytes(): Buffer {
      if (!target) return Buffer.concat(chunks, length);
      // The rest was never written by this upload: clear it so no stale bytes sit next to the file.
      target.fill(0, length);
      return target.subarray(0, length);
    },
  };
}

function declaredLengthOf(request: Request): number | undefined {
  const header = request.headers['content-length'];
  const length = header === undefined ? Number.NaN : Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * Reads the one file field of a `multipart/form-data` request into memory with @fastify/busboy (its
 * boundary search is the native `Buffer#indexOf`, a large share of an upload's cost), refusing it
 * as soon as the file passes `maxBytes` (or the body passes it plus 64 KiB of framing). Other fields
 * and files are read and dropped; the first file part named `fieldName` is the upload. With a
 * `pool`, call `release()` on the result once its data is no longer used.
 * @throws RequestValidationError (422) when the body is not multipart, has no boundary or has no
 *   such file field; HttpError 400 when it has more than {@link MAX_MULTIPART_FILES} file parts or
 *   {@link MAX_MULTIPART_FIELDS} fields; HttpError 413 (with `Connection: close`) when the file or the body is too large;
 *   HttpError 400 when the body is malformed, cut short or aborted by the client.
 */
export function readUploadedFile(request: Request, options: UploadOptions): Promise<UploadedFile> {
  const { fieldName, maxBytes, pool } = options;
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    const expected = `expected a multipart/form-data body with a "${fieldName}" field`;
    return Promise.reject(missingFile(fieldName, expected));
  }
  const bodyLimit = maxBytes + FRAMING_ALLOWANCE;
  const declaredLength = declaredLengthOf(request);
  if (declaredLength !== undefined && declaredLength > bodyLimit) return Promise.reject(tooLarge(maxBytes));
  let parser: BusboyInstance;
  try {
    // The content type was checked above, so the header is a string here.
    const headers = { ...request.headers, 'content-type': contentType };
    parser = new Busboy({
      headers,
      limits: { fileSize: maxBytes, files: MAX_MULTIPART_FILES, fields: MAX_MULTIPART_FIELDS },
    });
  } catch {
    return Promise.reject(missingFile(fieldName, 'the multipart body has no boundary'));
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    let found: UploadedFile | undefined;
    let collector: ReturnType<typeof fileCollector> | undefined;
    let received = 0;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      request.unpipe(parser);
      request.resume();
      if (found) found.release();
      else collector?.discard();
      reject(error);
    };
    parser.on('file', (name, stream, fileName, _encoding, mimeType) => {
      // A part cut short destroys its stream with an error; without a listener it would crash the process.
      stream.on('error', () => fail(malformed()));
      if (name !== fieldName || collector) {
        stream.resume();
        return;
      }
      const file = fileCollector(declaredLength, pool);
      collector = file;
      stream.on('data', (chunk: Buffer) => file.add(chunk));
      stream.on('limit', () => fail(tooLarge(maxBytes)));
      stream.on('end', () => {
        if (settled) return;
        const data = file.bytes();
        const release = () => pool?.release(data);
        found = { data, fileName: fileName ?? '', mimeType, release };
      });
    });
    // Past a limit busboy drops the parts silently: refuse the body instead, naming the limit.
    parser.on('filesLimit', () => fail(tooManyParts('file parts', MAX_MULTIPART_FILES)));
    parser.on('fieldsLimit', () => fail(tooManyParts('fields', MAX_MULTIPART_FIELDS)));
    parser.on('error', () => fail(malformed()));
    parser.on('finish', () => {
      if (settled) return;
      if (!found) return fail(missingFile(fieldName, `the multipart body has no "${fieldName}" file field`));
      settled = true;
      resolve(found);
    });
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyLimit) fail(tooLarge(maxBytes));
    });
    request.on('error', () => fail(aborted()));
    request.on('close', () => {
      if (!request.complete) fail(aborted());
    });
    request.pipe(parser);
  });
}
