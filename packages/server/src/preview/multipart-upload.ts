import type { Request } from 'express';
import { HttpError, RequestValidationError } from '../http/http-error.js';
import type { UploadedFile, UploadOptions } from '../http/multipart.js';
import type { UploadBufferPool } from './upload-buffer-pool.js';

const FRAMING_ALLOWANCE = 64 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');

const missingFile = (fieldName: string, message: string) =>
  new RequestValidationError([{ loc: ['body', fieldName], msg: message, type: 'missing' }]);

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `the uploaded file is larger than the limit of ${maxBytes} bytes`, {
    Connection: 'close',
  });

const malformed = () => new HttpError(400, 'the multipart body is malformed or was cut short');

function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** Reads the whole body into one buffer (from `pool` when its length is declared), refusing it past `limit` bytes. */
function readBody(
  request: Request,
  limit: number,
  maxBytes: number,
  pool: UploadBufferPool,
): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  return new Promise((resolve, reject) => {
    const target = Number.isSafeInteger(declared) ? pool.take(declared) : undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const fail = (error: () => Error) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      request.resume();
      if (target) pool.release(target);
      reject(error());
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > limit) return fail(() => tooLarge(maxBytes));
      if (target) {
        if (received + chunk.length > target.length) return fail(malformed);
        chunk.copy(target, received);
      } else chunks.push(chunk);
      received += chunk.length;
    };
    request.on('data', onData);
    request.once('end', () => {
      if (target && received !== target.length) return fail(malformed);
      if (settled) return;
      settled = true;
      resolve(target ?? Buffer.concat(chunks, received));
    });
    request.once('close', () => fail(() => new HttpError(400, 'the upload was aborted by the client')));
    request.once('error', () => fail(malformed));
  });
}

interface Part {
  name: string | undefined;
  fileName: string | undefined;
  mimeType: string;
  data: Buffer;
}

function parsePartHeaders(text: string): Omit<Part, 'data'> {
  const disposition = /^content-disposition:(.*)$/im.exec(text)?.[1] ?? '';
  const parameter = (key: string) =>
    new RegExp(`;\\s*${key}="([^"]*)"`, 'i').exec(disposition)?.[1] ??
    new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(disposition)?.[1];
  const mimeType = /^content-type:\s*([^\r\n;]+)/im.exec(text)?.[1]?.trim() ?? 'application/octet-stream';
  return { name: parameter('name'), fileName: parameter('filename'), mimeType };
}

/** Splits a multipart body into parts; `undefined` when the framing is broken. */
function* parts(body: Buffer, boundary: string): Generator<Part | undefined> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let cursor = body.indexOf(delimiter.subarray(2));
  if (cursor < 0) return yield undefined;
  cursor += delimiter.length - 2;
  while (body.subarray(cursor, cursor + 2).toString('latin1') !== '--') {
    const headersEnd = body.indexOf(HEADER_END, cursor);
    if (headersEnd < 0) return yield undefined;
    const end = body.indexOf(delimiter, headersEnd + 4);
    if (end < 0) return yield undefined;
    const headers = parsePartHeaders(body.toString('latin1', cursor, headersEnd));
    yield { ...headers, data: body.subarray(headersEnd + 4, end) };
    cursor = end + delimiter.length;
  }
}

/** A file read by {@link readMultipartFile}; call `release()` once nothing uses `data` any more. */
export interface PooledUpload extends UploadedFile {
  release(): void;
}

/**
 * Reads the file field of a `multipart/form-data` upload with one copy of the body into a pooled
 * buffer and a native boundary search: renders are CPU bound, so receiving must cost little (see
 * `bench/preview-images.mjs`). Same contract and messages as `readUploadedFile` of `../http/multipart.js`.
 * @throws RequestValidationError (422) when the body is not multipart or has no such field;
 *   HttpError 413 past `maxBytes`; HttpError 400 when the body is malformed or cut.
 */
export async function readMultipartFile(
  request: Request,
  options: UploadOptions & { pool: UploadBufferPool },
): Promise<PooledUpload> {
  const contentType = request.headers['content-type'] ?? '';
  const expected = `expected a multipart/form-data body with a "${options.fieldName}" field`;
  if (!contentType.toLowerCase().startsWith('multipart/form-data'))
    throw missingFile(options.fieldName, expected);
  const boundary = boundaryOf(contentType);
  if (!boundary) throw missingFile(options.fieldName, 'the multipart body has no boundary');
  const limit = options.maxBytes + FRAMING_ALLOWANCE;
  if (Number(request.headers['content-length'] ?? 0) > limit) throw tooLarge(options.maxBytes);
  const body = await readBody(request, limit, options.maxBytes, options.pool);
  const release = () => options.pool.release(body);
  try {
    const file = findFilePart(body, boundary, options);
    return { ...file, release };
  } catch (error) {
    release();
    throw error;
  }
}

function findFilePart(body: Buffer, boundary: string, options: UploadOptions): UploadedFile {
  for (const part of parts(body, boundary)) {
    if (!part) throw malformed();
    if (part.name !== options.fieldName || part.fileName === undefined) continue;
    if (part.data.length > options.maxBytes) throw tooLarge(options.maxBytes);
    return { data: part.data, fileName: part.fileName, mimeType: part.mimeType };
  }
  throw missingFile(options.fieldName, `the multipart body has no "${options.fieldName}" file field`);
}
