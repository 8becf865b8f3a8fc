import busboy from 'busboy';
import type { Request } from 'express';
import { HttpError, RequestValidationError } from './http-error.js';

/** A file received in a multipart body, held in memory. */
export interface UploadedFile {
  data: Buffer;
  fileName: string;
  mimeType: string;
}

/** Limits for {@link readUploadedFile}. */
export interface UploadOptions {
  /** Name of the multipart field that carries the file. */
  fieldName: string;
  /** Largest file accepted, in bytes; past it the request fails with 413 before more is read. */
  maxBytes: number;
}

const missingFile = (fieldName: string, message: string) =>
  new RequestValidationError([{ loc: ['body', fieldName], msg: message, type: 'missing' }]);

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `the uploaded file is larger than the limit of ${maxBytes} bytes`, {
    Connection: 'close',
  });

/**
 * Reads the one file field of a `multipart/form-data` request into memory, refusing it as soon as it
 * passes `maxBytes`. Other fields are ignored.
 * @throws RequestValidationError (422) when the body is not multipart or has no such field;
 *   HttpError 413 when the file or the declared body is too large; HttpError 400 when the body is cut.
 */
export function readUploadedFile(request: Request, options: UploadOptions): Promise<UploadedFile> {
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.reject(
      missingFile(
        options.fieldName,
        `expected a multipart/form-data body with a "${options.fieldName}" field`,
      ),
    );
  }
  const declaredLength = Number(request.headers['content-length'] ?? Number.NaN);
  // Multipart framing adds a little; anything beyond the file limit plus 64 KiB cannot hold a valid file.
  if (declaredLength > options.maxBytes + 64 * 1024) return Promise.reject(tooLarge(options.maxBytes));
  return new Promise((resolve, reject) => {
    let settled = false;
    let found: UploadedFile | undefined;
    const finish = (error: Error | undefined, file?: UploadedFile) => {
      if (settled) return;
      settled = true;
      if (error) {
        request.unpipe(parser);
        request.resume();
        reject(error);
      } else if (file) resolve(file);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        limits: { fileSize: options.maxBytes, files: 4, fields: 32 },
      });
    } catch {
      finish(missingFile(options.fieldName, 'the multipart body has no boundary'));
      return;
    }
    parser.on('file', (name, stream, info) => {
      if (name !== options.fieldName || found) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => finish(tooLarge(options.maxBytes)));
      stream.on('end', () => {
        if (settled) return;
        found = { data: Buffer.concat(chunks), fileName: info.filename ?? '', mimeType: info.mimeType };
      });
    });
    parser.on('error', () => finish(new HttpError(400, 'the multipart body is malformed or was cut short')));
    parser.on('close', () => {
      if (found) finish(undefined, found);
      else
        finish(missingFile(options.fieldName, `the multipart body has no "${options.fieldName}" file field`));
    });
    request.on('aborted', () => finish(new HttpError(400, 'the upload was aborted by the client')));
    request.pipe(parser);
  });
}
