import {
  type Area,
  normaliseStoredFileRef,
  type PreviewInput,
  type RenderedImage,
  type StoredFileRef,
  storedFileNotFound,
} from '@collab-suite/preview-core';
import type { Request, Response } from 'express';
import { readUploadedFile } from '../http/multipart.js';
import { sendUploadAnswer } from '../http/send-upload-answer.js';
import type { UploadBufferPool } from '../http/upload-buffer-pool.js';
import { matchesIfNoneMatch, renderEtag, STORED_PREVIEW_CACHE_CONTROL } from './http-caching.js';
import { renderThroughCache, type StoredRenderCache } from './render-cache.js';
import { bytesDecidingOptions } from './render-key.js';

/** How uploads are read: the size limit and the pool their bodies are read into. */
export interface UploadSettings {
  /** Largest uploaded file, in bytes (413 past it). */
  maxUploadBytes: number;
  uploadBuffers: UploadBufferPool;
}

/** What a stored-file or upload route answers: a PDF, or an image. */
export type RouteResult = { pdf: Uint8Array } | { image: RenderedImage };

/** An AbortSignal that fires when the client goes away before the answer is sent. */
export function clientGone(response: Response): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

/** Sends a stored file's result. Its PDF is never pooled upload bytes, so it is sent as it is. */
function send(response: Response, result: RouteResult, headers: Record<string, string>): void {
  response.status(200).set(headers);
  if ('pdf' in result) {
    const { buffer, byteOffset, byteLength } = result.pdf;
    // A Buffer view of the same bytes: Express sends a Uint8Array that is not a Buffer as JSON.
    response.type('application/pdf').send(Buffer.from(buffer, byteOffset, byteLength));
  } else response.type(`image/${result.image.format}`).send(result.image.data);
}

/** A stored-file request: the file, and everything else that decides the bytes (for the ETag). */
export interface StoredRequest {
  id: string;
  version: number;
  serviceType: 'files' | 'chats';
  /** The route that renders (`route`, or `kind` for the image routes) and every option it renders with. */
  options: Record<string, string | number | boolean | undefined>;
}

/**
 * The stored-file request of a render sized to `path.area`, whose ETag is made of `name` (the route's:
 * `{ route }`, or `{ kind }` for the image routes), the options that change the bytes (see
 * {@link bytesDecidingOptions}) and the area's width and height; and
 * the options, with the area, to render with.
 */
export function storedAreaRequest<Options extends Record<string, string | boolean | undefined>>(
  name: Record<string, string>,
  path: { id: string; version: number; area: Area },
  serviceType: 'files' | 'chats',
  options: Options,
): { stored: StoredRequest; options: Options & { area: Area } } {
  const { area } = path;
  const etagOptions = {
    ...name,
    ...bytesDecidingOptions(name, options),
    width: area.width,
    height: area.height,
    // Only the width-only extension adds a key, so ETags of `WxH` areas stay what they were.
    ...(area.widthOnly === true ? { widthOnly: true } : {}),
  };
  return {
    stored: { id: path.id, version: path.version, serviceType, options: etagOptions },
    options: { ...options, area },
  };
}

/**
 * The stored file and the caching headers of a stored-file request; undefined once a 304 has been
 * sent because `If-None-Match` names the ETag.
 */
function cachedOrHeaders(request: Request, response: Response, stored: StoredRequest) {
  const ref: StoredFileRef = normaliseStoredFileRef({
    id: stored.id,
    version: stored.version,
    serviceType: stored.serviceType,
  });
  const etag = renderEtag({
    ...stored.options,
    id: ref.id,
    version: ref.version,
    serviceType: ref.serviceType,
  });
  const headers = { ETag: etag, 'Cache-Control': STORED_PREVIEW_CACHE_CONTROL };
  if (matchesIfNoneMatch(request, etag)) {
    response.status(304).set(headers).end();
    return undefined;
  }
  return { input: { storedFile: ref }, headers };
}

/**
 * Answers a stored-file GET with ETag and Cache-Control, or 304 when `If-None-Match` matches; from the
 * render kept under the ETag in `renderCache.cache` once the storage said (within the last
 * PREVIEW_STORED_EXISTENCE_TTL_MS) that the version still exists, else rendering (which reads the
 * storage) and keeping it. A deleted file is 404, however much of it is kept.
 */
export async function answerStored(
  request: Request,
  response: Response,
  stored: StoredRequest,
  run: (input: PreviewInput, signal: AbortSignal) => Promise<RouteResult>,
  renderCache: StoredRenderCache,
): Promise<void> {
  const prepared = cachedOrHeaders(request, response, stored);
  if (!prepared) return;
  const { input, headers } = prepared;
  const ref = input.storedFile;
  const confirm = async () => {
    if (!(await renderCache.existence.exists(ref, clientGone(response)))) throw storedFileNotFound(ref);
  };
  if (renderCache.confirmBeforeRender) await confirm();
  const result = await renderThroughCache(
    renderCache.cache,
    headers.ETag,
    () => run(input, clientGone(response)),
    renderCache.confirmBeforeRender ? undefined : confirm,
  );
  send(response, result, headers);
}

/**
 * Answers a stored-file HEAD without rendering or converting: the same ETag and Cache-Control as the
 * GET (or 304), and the Content-Type `check` names once it has read and checked what it can cheaply.
 * No Content-Length: the size of a render is not known before it runs.
 */
export async function answerStoredHead(
  request: Request,
  response: Response,
  stored: StoredRequest,
  check: (input: PreviewInput, signal: AbortSignal) => Promise<string>,
): Promise<void> {
  const prepared = cachedOrHeaders(request, response, stored);
  if (!prepared) return;
  const contentType = await check(prepared.input, clientGone(response));
  response.status(200).set(prepared.headers).type(contentType).end();
}

/** Reads the upload's `fieldName` file into a pooled buffer and runs `use` with it, then frees it. */
export async function withUpload<T>(
  request: Request,
  uploads: UploadSettings,
  fieldName: string,
  use: (data: Uint8Array) => Promise<T>,
): Promise<T> {
  const file = await readUploadedFile(request, {
    fieldName,
    maxBytes: uploads.maxUploadBytes,
    pool: uploads.uploadBuffers,
  });
  try {
    return await use(file.data);
  } finally {
    file.release();
  }
}

/** Answers an upload (multipart field `file`) with `Cache-Control: no-store`. */
export async function answerUpload(
  request: Request,
  response: Response,
  uploads: UploadSettings,
  run: (input: PreviewInput, signal: AbortSignal) => Promise<RouteResult>,
): Promise<void> {
  await withUpload(request, uploads, 'file', async (data) => {
    const result = await run(data, clientGone(response));
    if ('pdf' in result) {
      // A PDF may be the upload's own pooled bytes, reused once this returns: those are copied.
      const { pdf } = result;
      const pooled = uploads.uploadBuffers.holds(pdf);
      const body = pooled ? Buffer.from(pdf) : Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
      sendUploadAnswer(response, body, 'application/pdf');
    } else sendUploadAnswer(response, result.image.data, `image/${result.image.format}`);
  });
}
