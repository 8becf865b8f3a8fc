import { createHmac, timingSafeEqual } from 'node:crypto';
import { PreviewError } from '../errors.js';

/** Query parameter carrying the signature; always the last one of a signed path. */
export const SIGNATURE_PARAMETER = 'signature';
/** Query parameter carrying the expiry of a signed path, in seconds since the Unix epoch. */
export const EXPIRES_PARAMETER = 'expires';
/** Shortest signing key accepted, in bytes: as long as the HMAC-SHA256 hash. */
export const MIN_SIGNING_KEY_BYTES = 32;

/** Options of {@link signPreviewPath}. */
export interface SignPreviewPathOptions {
  /**
   * When the signed path stops being accepted; it is signed with the path.
   * @default never
   */
  readonly expiresAt?: Date;
}

/** Why {@link verifyPreviewPath} refused a path. */
export type PreviewPathRefusal = 'missing' | 'invalid' | 'expired';

/** The answer of {@link verifyPreviewPath}. */
export type PreviewPathVerdict =
  | { readonly valid: true }
  | { readonly valid: false; readonly reason: PreviewPathRefusal };

function keyBytes(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  if (bytes.byteLength < MIN_SIGNING_KEY_BYTES) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected a signing key of at least ${MIN_SIGNING_KEY_BYTES} bytes but received ${bytes.byteLength} bytes`,
      { details: { option: 'key' } },
    );
  }
  return bytes;
}

function signatureOf(signed: string, key: Uint8Array): Buffer {
  return createHmac('sha256', key).update(signed, 'utf8').digest();
}

/**
 * Signs a stored-file preview path (`/preview/image/<id>/<version>/256x256/?service_type=files`), as
 * imgproxy does: appends `expires=<unix seconds>` when `expiresAt` is given, then
 * `signature=<base64url HMAC-SHA256>` of everything before it, so the path, every query parameter and
 * the expiry are bound to the key. The path is signed as written: send it to the server unchanged.
 * @throws {PreviewError} `INVALID_OPTION` when the key is shorter than 32 bytes, the path does not start
 * with `/` or already carries a signature.
 */
export function signPreviewPath(
  path: string,
  key: string | Uint8Array,
  options: SignPreviewPathOptions = {},
): string {
  const secret = keyBytes(key);
  if (!path.startsWith('/') || new URLSearchParams(path.split('?')[1] ?? '').has(SIGNATURE_PARAMETER)) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected an unsigned path starting with / but received ${JSON.stringify(path.slice(0, 200))}`,
      { details: { option: 'path' } },
    );
  }
  let signed = path;
  if (options.expiresAt) {
    const seconds = Math.floor(options.expiresAt.getTime() / 1000);
    signed += `${signed.includes('?') ? '&' : '?'}${EXPIRES_PARAMETER}=${seconds}`;
  }
  const signature = signatureOf(signed, secret).toString('base64url');
  return `${signed}${signed.includes('?') ? '&' : '?'}${SIGNATURE_PARAMETER}=${signature}`;
}

/**
 * Checks a request target made by {@link signPreviewPath}: its last parameter is the signature of
 * everything before it (compared in constant time), and its `expires`, when present, is not past
 * `now`. Pure: no clock is read but `now`.
 * @throws {PreviewError} `INVALID_OPTION` when the key is shorter than 32 bytes.
 */
export function verifyPreviewPath(
  target: string,
  key: string | Uint8Array,
  now: Date = new Date(),
): PreviewPathVerdict {
  const secret = keyBytes(key);
  const match = /[?&]signature=([A-Za-z0-9_-]*)$/.exec(target);
  if (!match) return { valid: false, reason: 'missing' };
  const signed = target.slice(0, match.index);
  const given = Buffer.from(match[1] ?? '', 'base64url');
  const expected = signatureOf(signed, secret);
  if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) {
    return { valid: false, reason: 'invalid' };
  }
  const query = new URLSearchParams(signed.split('?')[1] ?? '');
  const expires = query.getAll(EXPIRES_PARAMETER);
  if (expires.length > 1) return { valid: false, reason: 'invalid' };
  if (expires.length === 1) {
    const seconds = Number(expires[0]);
    if (!Number.isSafeInteger(seconds)) return { valid: false, reason: 'invalid' };
    if (seconds * 1000 <= now.getTime()) return { valid: false, reason: 'expired' };
  }
  return { valid: true };
}
