import type { Express, Response } from 'express';

/**
 * Makes `response.json()` answer `Content-Type: application/json`, without Express's
 * `; charset=utf-8`: JSON is UTF-8 by definition, and the original web client reads a body only
 * when the type is exactly `application/json`. The body is sent as bytes, so Express adds no
 * charset; everything else (ETag, HEAD, status) stays as `send` does it.
 */
export function answerPlainJson(app: Express): void {
  app.response.json = function json(this: Response, body: unknown) {
    // setHeader, not set: Express's set would look the type up and append the charset again.
    if (this.get('Content-Type') === undefined) this.setHeader('Content-Type', 'application/json');
    return this.send(Buffer.from(JSON.stringify(body) ?? ''));
  };
}
