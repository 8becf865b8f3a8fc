import type { Request } from 'express';
import { HttpError } from '../http/http-error.js';

/** Most rooms one page of `GET /rooms?limit=` may ask for. */
export const MAX_ROOM_PAGE = 1000;

/**
 * The page `GET /rooms` asks for with `limit` and/or `cursor`; undefined without either (the spec's
 * unpaged listing).
 * @throws HttpError 400 for a limit that is not a whole number from 1 to 1000, or repeated parameters
 */
export function roomPageOf(query: Request['query']): { limit: number; cursor?: string } | undefined {
  const { limit, cursor } = query;
  if (limit === undefined && cursor === undefined) return undefined;
  if (Array.isArray(limit) || Array.isArray(cursor) || typeof cursor === 'object') {
    throw new HttpError(400, 'expected at most one limit and one cursor parameter');
  }
  const size = limit === undefined ? 100 : Number(limit);
  if (!Number.isInteger(size) || size < 1 || size > MAX_ROOM_PAGE) {
    throw new HttpError(
      400,
      `expected limit to be a whole number from 1 to ${MAX_ROOM_PAGE} but received ${JSON.stringify(limit)}`,
    );
  }
  return cursor === undefined ? { limit: size } : { limit: size, cursor: String(cursor) };
}

/** The `Link` header naming the next page (RFC 8288), with the request's other parameters kept. */
export function nextPageLink(request: Request, limit: number, cursor: string): string {
  const next = new URL(request.originalUrl, 'http://placeholder');
  next.searchParams.set('limit', String(limit));
  next.searchParams.set('cursor', cursor);
  return `<${next.pathname}${next.search}>; rel="next"`;
}
