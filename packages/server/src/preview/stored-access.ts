import { verifyPreviewPath } from '@collab-suite/preview-core';
import type { RequestHandler } from 'express';
import type { Authenticator } from '../auth/authenticator.js';
import type { StoredPreviewAccess } from '../config.js';
import { HttpError } from '../http/http-error.js';

const REFUSALS = {
  missing: 'this preview needs a signed path: sign it with PREVIEW_URL_SIGNING_KEY (signPreviewPath)',
  invalid: 'the signature of this preview path does not match it',
  expired: 'this signed preview path has expired',
} as const;

/**
 * Middleware guarding reads (GET and HEAD) of stored-file previews as PREVIEW_STORED_AUTH says:
 * `none` lets every request through; `token` needs a valid bearer token or ZM_AUTH_TOKEN cookie (401);
 * `signed` needs the request target exactly as {@link verifyPreviewPath} accepts it, unexpired (403).
 * Uploads (POST) are not stored files and pass untouched.
 */
export function storedPreviewAccess(
  access: StoredPreviewAccess,
  authenticator: Authenticator,
  now: () => Date = () => new Date(),
): RequestHandler {
  return async (request, response, next) => {
    if (access.mode === 'none' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      next();
      return;
    }
    if (access.mode === 'token') {
      response.locals.principal = await authenticator.authenticate(request);
      next();
      return;
    }
    const verdict = verifyPreviewPath(request.originalUrl, access.signingKey, now());
    if (!verdict.valid) throw new HttpError(403, REFUSALS[verdict.reason]);
    next();
  };
}
