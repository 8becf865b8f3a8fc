import {
  normaliseStoredFileRef,
  type PreviewInput,
  type RenderedImage,
  type StoredFileRef,
} from '@collab-suite/preview-core';
import type { Request, Response } from 'express';
import { readUploadedFile } from '../http/multipart.js';
import { matchesIfNoneMatch, renderEtag, STORED_PREVIEW_CACHE_CONTROL } from './http-caching.js';

/** What a PDF or document route answers: a PDF, or a thumbnail image. */
export type RouteResult = { pdf: Uint8Array } | { image: RenderedImage };

/** An AbortSignal that fires when the client goes away before the answer is sent. */
export function clientGone(response: Response): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

function send(response: Response, result: RouteResult, headers: Record<string, string>): void {
  response.status(200).set(headers);
  if ('pdf' in result) response.type('application/pdf').send(Buffer.from(result.pdf));
  else response.type(`image/${result.image.format}`).send(result.image.data);
}

/** A stored-file request: what it renders and every option that decides the bytes (for the ETag). */
export interface StoredRequest {
  route: string;
  id: string;
  version: number;
  serviceType: 'files' | 'chats';
  options: Record<string, string | number | boolean | undefined>;
}

/** Answers a stored-file GET with ETag and Cache-Control, or 304 when `If-None-Match` matches. */
export async function answerStored(
  request: Request,
  response: Response,
  stored: StoredRequest,
  run: (input: PreviewInput, signal: AbortSignal) => Promise<RouteResult>,
): Promise<void> {
  const ref: StoredFileRef = normaliseStoredFileRef({
    id: stored.id,
    version: stored.version,
    serviceType: stored.serviceType,
  });
  const etag = renderEtag({
    ...stored.options,
    route: stored.route,
    id: ref.id,
    version: ref.version,
    serviceType: ref.serviceType,
  });
  const headers = { ETag: etag, 'Cache-Control': STORED_PREVIEW_CACHE_CONTROL };
  if (matchesIfNoneMatch(request, etag)) {
    response.status(304).set(headers).end();
    return;
  }
  send(response, await run({ storedFile: ref }, clientGone(response)), headers);
}

/** Answers an upload (multipart field `file`) with `Cache-Control: no-store`. */
export async function answerUpload(
  request: Request,
  response: Response,
  maxUploadBytes: number,
  run: (input: PreviewInput, signal: AbortSignal) => Promise<RouteResult>,
): Promise<void> {
  const file = await readUploadedFile(request, { fieldName: 'file', maxBytes: maxUploadBytes });
  send(response, await run(file.data, clientGone(response)), { 'Cache-Control': 'no-store' });
}
