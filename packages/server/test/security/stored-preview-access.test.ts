import { signPreviewPath } from '@collab-suite/preview-core';
import { imageFacts, quadrantImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { bodyBytes, detailOf, storeFile, upload } from '../preview/preview-test-support.js';
import { configRefusal } from '../support/config-refusal.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

// PREVIEW_STORED_AUTH: who may read previews of stored files. Uploads (POST) stay as they are.

const file = { id: '6b1e0c2d-4f3a-4b5c-9d8e-7f6a5b4c3d2e', version: 1, serviceType: 'files' } as const;
const signingKey = 'preview-signing-key-of-at-least-32-bytes';
const thumbnail = `/preview/image/${file.id}/${file.version}/64x64/thumbnail/?service_type=files`;

async function serverWith(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer({ env });
  await storeFile(server.config.storage.directory, file, await quadrantImage(200, 100, 'png'));
  return server;
}

describe('PREVIEW_STORED_AUTH=none (the default: the original API, for a backend-only service)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serverWith({});
  });
  afterAll(() => server.stop());

  it('answers a stored preview without credentials', async () => {
    expect((await fetch(`${server.url}${thumbnail}`)).status).toBe(200);
  });
});

describe('PREVIEW_STORED_AUTH=token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serverWith({ PREVIEW_STORED_AUTH: 'token' });
  });
  afterAll(() => server.stop());

  it('answers 401 to GET and HEAD without a token, and to a token that does not verify', async () => {
    const anonymous = await fetch(`${server.url}${thumbnail}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${server.url}${thumbnail}`, { method: 'HEAD' })).status).toBe(401);
    const forged = await signLocalToken('another-secret-of-at-least-thirty-two-bytes', { userId: 'mallory' });
    const refused = await fetch(`${server.url}${thumbnail}`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(refused.status).toBe(401);
  });

  it('answers the preview to a bearer token or the ZM_AUTH_TOKEN cookie', async () => {
    const token = await signLocalToken(testJwtSecret, { userId: 'alice' });
    const bearer = await fetch(`${server.url}${thumbnail}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bearer.status).toBe(200);
    expect(await imageFacts(await bodyBytes(bearer))).toMatchObject({ format: 'jpeg' });
    const cookie = await fetch(`${server.url}${thumbnail}`, {
      headers: { cookie: `ZM_AUTH_TOKEN=${token}` },
    });
    expect(cookie.status).toBe(200);
  });

  it('leaves uploads as they are', async () => {
    const answer = await upload(
      `${server.url}/preview/image/32x32/thumbnail/`,
      await quadrantImage(100, 100, 'png'),
    );
    expect(answer.status).toBe(200);
  });
});

describe('PREVIEW_STORED_AUTH=signed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serverWith({ PREVIEW_STORED_AUTH: 'signed', PREVIEW_URL_SIGNING_KEY: signingKey });
  });
  afterAll(() => server.stop());

  it('answers 403 to an unsigned path, even with a valid token', async () => {
    const token = await signLocalToken(testJwtSecret, { userId: 'alice' });
    const unsigned = await fetch(`${server.url}${thumbnail}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(unsigned.status).toBe(403);
    expect(await detailOf(unsigned)).toContain('needs a signed path');
    expect((await fetch(`${server.url}${thumbnail}`, { method: 'HEAD' })).status).toBe(403);
  });

  it('answers a signed path, with or without an expiry still ahead', async () => {
    const signed = await fetch(`${server.url}${signPreviewPath(thumbnail, signingKey)}`);
    expect(signed.status).toBe(200);
    expect(await imageFacts(await bodyBytes(signed))).toMatchObject({ format: 'jpeg' });
    const expiresAt = new Date(Date.now() + 3_600_000);
    const head = await fetch(`${server.url}${signPreviewPath(thumbnail, signingKey, { expiresAt })}`, {
      method: 'HEAD',
    });
    expect(head.status).toBe(200);
  });

  it('answers 403 to an expired path and to a tampered one', async () => {
    const expired = signPreviewPath(thumbnail, signingKey, { expiresAt: new Date(Date.now() - 60_000) });
    const late = await fetch(`${server.url}${expired}`);
    expect(late.status).toBe(403);
    expect(await detailOf(late)).toContain('expired');
    const signed = signPreviewPath(thumbnail, signingKey);
    const otherVersion = signed.replace(`/${file.version}/`, '/2/');
    const otherSize = signed.replace('64x64', '512x512');
    const otherKey = signPreviewPath(thumbnail, 'x'.repeat(32));
    for (const tampered of [otherVersion, otherSize, otherKey, `${signed}&quality=low`]) {
      expect((await fetch(`${server.url}${tampered}`)).status).toBe(403);
    }
  });
});

describe('the signing key', () => {
  it('is required by PREVIEW_STORED_AUTH=signed, at least 32 bytes, and never echoed', () => {
    expect(configRefusal({ PREVIEW_STORED_AUTH: 'signed' })).toContain('needs PREVIEW_URL_SIGNING_KEY');
    const short = configRefusal({ PREVIEW_STORED_AUTH: 'signed', PREVIEW_URL_SIGNING_KEY: 'short-planted' });
    expect(short).toContain('PREVIEW_URL_SIGNING_KEY: expected at least 32 bytes');
    expect(short).not.toContain('short-planted');
  });
});
