import { describe, expect, it } from 'vitest';
import { PreviewError } from '../errors.js';
import { signPreviewPath, verifyPreviewPath } from './preview-url-signature.js';

const key = 'k'.repeat(32);
const path = '/preview/image/0f8e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b/3/256x256/?service_type=files';

describe('signed preview paths', () => {
  it('appends a base64url HMAC-SHA256 as the last parameter and accepts the path it made', () => {
    const signed = signPreviewPath(path, key);
    expect(signed).toMatch(/^\/preview\/image\/.+\?service_type=files&signature=[A-Za-z0-9_-]{43}$/);
    expect(verifyPreviewPath(signed, key)).toEqual({ valid: true });
    expect(verifyPreviewPath(signPreviewPath('/preview/pdf/a/1/', key), key)).toEqual({ valid: true });
  });

  it('refuses a path without signature, with a changed path, query, or signature, or another key', () => {
    const signed = signPreviewPath(path, key);
    expect(verifyPreviewPath(path, key)).toEqual({ valid: false, reason: 'missing' });
    expect(verifyPreviewPath(signed.replace('/3/', '/4/'), key)).toMatchObject({ reason: 'invalid' });
    expect(verifyPreviewPath(signed.replace('files', 'chats'), key)).toMatchObject({ reason: 'invalid' });
    expect(verifyPreviewPath(`${signed.slice(0, -2)}AA`, key)).toMatchObject({ reason: 'invalid' });
    expect(verifyPreviewPath(`${signed}&quality=low`, key)).toMatchObject({ reason: 'missing' });
    expect(verifyPreviewPath(signed, 'x'.repeat(32))).toMatchObject({ reason: 'invalid' });
  });

  it('binds the expiry to the signature and refuses the path once it is past', () => {
    const expiresAt = new Date('2030-01-01T00:00:00Z');
    const signed = signPreviewPath(path, key, { expiresAt });
    expect(signed).toContain('&expires=1893456000&signature=');
    expect(verifyPreviewPath(signed, key, new Date('2029-12-31T23:59:59Z'))).toEqual({ valid: true });
    expect(verifyPreviewPath(signed, key, expiresAt)).toEqual({ valid: false, reason: 'expired' });
    const extended = signed.replace('expires=1893456000', 'expires=1993456000');
    expect(verifyPreviewPath(extended, key, new Date('2031-01-01'))).toMatchObject({ reason: 'invalid' });
  });

  it('refuses keys shorter than 32 bytes and paths that are already signed', () => {
    expect(() => signPreviewPath(path, 'short')).toThrow(PreviewError);
    expect(() => verifyPreviewPath(path, new Uint8Array(31))).toThrow('at least 32 bytes');
    expect(() => signPreviewPath(signPreviewPath(path, key), key)).toThrow('expected an unsigned path');
    expect(() => signPreviewPath('preview/x', key)).toThrow('expected an unsigned path');
  });
});
