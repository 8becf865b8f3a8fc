import { createHash } from 'node:crypto';
import type { Request } from 'express';

/** Bumped whenever rendering changes, so caches drop images made by an older pipeline. */
const RENDER_REVISION = 'image-1';

/**
 * How long clients may reuse a stored-file preview. A version of a stored file never changes, so a
 * day without revalidation is safe; `private` because the stored file may be a user's own.
 */
export const STORED_PREVIEW_CACHE_CONTROL = 'private, max-age=86400, immutable';

/** A strong ETag from every input of a render: route, stored file (id, version, service) and options. */
export function renderEtag(parts: Record<string, string | number | boolean | undefined>): string {
  const canonical = JSON.stringify(
    Object.keys(parts)
      .sort()
      .map((key) => [key, parts[key] ?? null]),
  );
  const digest = createHash('sha256').update(RENDER_REVISION).update(canonical).digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

/** True when the request's `If-None-Match` names `etag` (weak or strong) or is `*`. */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}
