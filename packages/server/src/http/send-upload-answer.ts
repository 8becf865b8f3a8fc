import type { Response } from 'express';

/**
 * Answers 200 with `body` and `Cache-Control: no-store`, for what is made from an upload: sets the
 * type and the length and ends the response directly. Express's `send` would also hash the whole
 * body for a weak ETag, a validator no client can use on a POST answered with `no-store`.
 */
export function sendUploadAnswer(response: Response, body: Uint8Array, contentType: string): void {
  response.statusCode = 200;
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Content-Type', contentType);
  response.setHeader('Content-Length', body.byteLength);
  response.end(body);
}
