import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { createChatFeature } from '../../src/chat/chat-feature.js';
import { createSamlFeature } from '../../src/saml/saml-feature.js';
import { users } from '../chat/chat-test-support.js';
import { idpMetadata, testCertificate } from '../saml/saml-test-support.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';
import { cookieOf, send } from './security-test-support.js';

/**
 * The review's forged requests (finding 1): a page on another origin makes the victim's browser
 * send its ZM_AUTH_TOKEN cookie with a form post (text/plain, no preflight).
 */
const publicUrl = 'https://collab.example.com';
const attacker = 'https://attacker.example';

describe('writes authenticated by the cookie, with PUBLIC_URL', () => {
  let server: TestServer;
  let adminToken: string;
  const { alice, bob, dave } = users('alice', 'bob', 'dave');
  const saml = (path: string) => `${server.url}/admin/auth${path}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const storedIdp = async (domain: string) => {
    const answer = await send(saml(`/saml/${domain}?raw=true`), 'GET', bearer(adminToken));
    return JSON.parse(answer.text)['idp.entityid'] as string | undefined;
  };

  beforeAll(async () => {
    server = await startTestServer({
      env: { PUBLIC_URL: publicUrl, ALLOWED_ORIGINS: 'https://admin.example.net' },
      features: async (context) => [await createChatFeature(context), await createSamlFeature(context)],
    });
    adminToken = await signLocalToken(testJwtSecret, { userId: alice, admin: true });
  });
  afterAll(() => server.stop());

  it('POST /admin/auth/saml/{domain} from another origin with the cookie and text/plain answers 403 and keeps the IdP', async () => {
    const metadata = idpMetadata((await testCertificate()).certificatePem, 'https://evil.example/idp');
    const forged = await send(
      saml('/saml/victim.example'),
      'POST',
      {
        cookie: cookieOf(adminToken),
        origin: attacker,
        'content-type': 'text/plain',
        'sec-fetch-site': 'cross-site',
      },
      metadata,
    );
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.text)).toMatchObject({ ok: false, error: expect.stringContaining(attacker) });
    expect(await storedIdp('victim.example')).toBeUndefined();
  });

  it('refuses a write whose browser says same-site (a sibling port) or cross-site without an Origin', async () => {
    for (const site of ['same-site', 'cross-site']) {
      const forged = await send(saml('/saml-generate/victim.example'), 'POST', {
        cookie: cookieOf(adminToken),
        'sec-fetch-site': site,
      });
      expect(forged.status).toBe(403);
    }
    expect((await send(saml('/saml/victim.example?raw=true'), 'GET', bearer(adminToken))).text).toBe('{}');
  });

  it('POST /admin/auth/saml-generate/{domain} with no body from another origin answers 403 and makes no key', async () => {
    const forged = await send(saml('/saml-generate/victim.example'), 'POST', {
      cookie: cookieOf(adminToken),
      origin: 'null',
    });
    expect(forged.status).toBe(403);
    const stored = await send(saml('/saml/victim.example?raw=true'), 'GET', bearer(adminToken));
    expect(JSON.parse(stored.text)['sp.x509cert']).toBeUndefined();
  });

  it('imports XML sent with the cookie from PUBLIC_URL, from an ALLOWED_ORIGINS entry and from the same origin', async () => {
    const metadata = idpMetadata((await testCertificate()).certificatePem);
    const from: Record<string, string>[] = [
      { origin: publicUrl },
      { origin: 'https://admin.example.net' },
      { 'sec-fetch-site': 'same-origin', origin: 'http://reached-by-another-name:8080' },
    ];
    for (const [index, headers] of from.entries()) {
      const answer = await send(
        saml(`/saml/ok${index}.example`),
        'POST',
        { cookie: cookieOf(adminToken), 'content-type': 'application/xml', ...headers },
        metadata,
      );
      expect(answer.status).toBe(200);
      expect(await storedIdp(`ok${index}.example`)).toBe('https://idp.example.org/metadata');
    }
  });

  it('answers 415 to an import sent as text/plain, from the right origin too, and stores nothing', async () => {
    const metadata = idpMetadata((await testCertificate()).certificatePem);
    const answer = await send(
      saml('/saml/plain.example'),
      'POST',
      { cookie: cookieOf(adminToken), origin: publicUrl, 'content-type': 'text/plain' },
      metadata,
    );
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text).error).toContain(
      'expected Content-Type application/json or application/xml',
    );
    expect(await storedIdp('plain.example')).toBeUndefined();
    // saml-generate takes no body: a form's is refused, a JSON {} a client may send is ignored.
    const generate = (type: string, body: string) =>
      send(
        saml('/saml-generate/plain.example'),
        'POST',
        { ...bearer(adminToken), 'content-type': type },
        body,
      );
    expect((await generate('text/plain', 'x=y')).status).toBe(415);
    expect((await generate('application/json', '{}')).status).toBe(200);
  });

  it('leaves bearer-token requests alone, whatever their Origin', async () => {
    const answer = await send(saml('/saml-generate/bearer.example'), 'POST', {
      ...bearer(adminToken),
      cookie: cookieOf('not-even-a-token'),
      origin: attacker,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)['sp.x509cert']).toContain('BEGIN CERTIFICATE');
  });

  it('refuses cross-origin /meetings/{id}/start and /stop with the cookie, and the meeting stays as it was', async () => {
    const json = {
      ...bearer(await signLocalToken(testJwtSecret, { userId: alice })),
      'content-type': 'application/json',
    };
    const room = JSON.parse(
      (
        await send(
          `${server.url}/rooms`,
          'POST',
          json,
          JSON.stringify({ name: 'T', description: '', type: 'group', membersIds: [bob, dave] }),
        )
      ).text,
    );
    const meeting = JSON.parse(
      (
        await send(
          `${server.url}/meetings`,
          'POST',
          json,
          JSON.stringify({ roomId: room.id, name: 'T', meetingType: 'permanent' }),
        )
      ).text,
    );
    const cookie = cookieOf(await signLocalToken(testJwtSecret, { userId: alice }));
    const active = async () =>
      JSON.parse((await send(`${server.url}/meetings/${meeting.id}`, 'GET', json)).text).active;
    // A GET with the cookie first: the chat routes remember verified tokens, which must not skip the check.
    expect((await send(`${server.url}/meetings/${meeting.id}`, 'GET', { cookie })).status).toBe(200);
    const start = await send(`${server.url}/meetings/${meeting.id}/start`, 'POST', {
      cookie,
      origin: attacker,
      'content-type': 'text/plain',
    });
    expect(start.status).toBe(403);
    expect(JSON.parse(start.text)).toMatchObject({ code: 'forbidden' });
    expect(await active()).toBe(false);
    expect(
      (await send(`${server.url}/meetings/${meeting.id}/start`, 'POST', { cookie, origin: publicUrl }))
        .status,
    ).toBe(200);
    const stop = await send(`${server.url}/meetings/${meeting.id}/stop`, 'POST', {
      cookie,
      origin: attacker,
    });
    expect(stop.status).toBe(403);
    expect(await active()).toBe(true);
    expect((await send(`${server.url}/meetings/${meeting.id}/stop`, 'POST', json)).status).toBe(200);
  });

  it('refuses every cross-origin meeting media, join and leave call with the cookie (403) before looking at its body', async () => {
    const cookie = cookieOf(await signLocalToken(testJwtSecret, { userId: alice }));
    const meetingId = randomUUID();
    const calls: [string, string][] = [
      ['POST', 'join'],
      ['POST', 'leave'],
      ['PUT', 'media'],
      ['PUT', 'media/answer'],
      ['PUT', 'media/subscribe'],
      ['PUT', 'audio'],
      ['PUT', 'audio/offer'],
    ];
    for (const [method, path] of calls) {
      const forged = await send(
        `${server.url}/meetings/${meetingId}/${path}`,
        method,
        { cookie, origin: attacker, 'content-type': 'text/plain' },
        '{"subscribe":[],"unsubscribe":[],"iceRestart":true}',
      );
      expect([path, forged.status, JSON.parse(forged.text).code]).toEqual([path, 403, 'forbidden']);
    }
    // The same call from this server's own page gets past the check (to the unknown meeting).
    const own = await send(
      `${server.url}/meetings/${meetingId}/media/subscribe`,
      'PUT',
      {
        cookie,
        origin: publicUrl,
        'content-type': 'application/json',
      },
      '{"subscribe":[],"unsubscribe":[],"iceRestart":true}',
    );
    expect(own.status).not.toBe(403);
  });
});

describe('writes authenticated by the cookie, without PUBLIC_URL', () => {
  let server: TestServer;
  const { carol } = users('carol');
  const create = (headers: Record<string, string>) =>
    send(
      `${server.url}/rooms`,
      'POST',
      { 'content-type': 'application/json', ...headers },
      JSON.stringify({ name: 'R', description: '', type: 'group', membersIds: [randomUUID(), randomUUID()] }),
    );

  beforeAll(async () => {
    server = await startTestServer({
      env: { TRUST_PROXY: 'loopback' },
      features: async (context) => [await createChatFeature(context)],
    });
  });
  afterAll(() => server.stop());

  it('takes the origin the request was sent to (scheme and Host) as the server’s own', async () => {
    const cookie = cookieOf(await signLocalToken(testJwtSecret, { userId: carol }));
    expect((await create({ cookie, origin: server.url })).status).toBe(201);
    const sibling = new URL(server.url);
    sibling.port = String(Number(sibling.port) + 1);
    expect((await create({ cookie, origin: sibling.origin })).status).toBe(403);
    expect((await create({ cookie, origin: server.url.replace('http:', 'https:') })).status).toBe(403);
    // Behind a trusted proxy (TRUST_PROXY), the scheme and host it names.
    const proxied = {
      cookie,
      origin: 'https://chat.example.org',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'chat.example.org',
    };
    expect((await create(proxied)).status).toBe(201);
    // A client that is not a browser sends neither Origin nor Sec-Fetch-Site.
    expect((await create({ cookie })).status).toBe(201);
  });
});

describe('the cookie and an empty Authorization header', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ features: async (context) => [await createChatFeature(context)] });
  });
  afterAll(() => server.stop());

  it('counts as cookie-authenticated, so a cross-origin write is still refused', async () => {
    const cookie = cookieOf(await signLocalToken(testJwtSecret, { userId: randomUUID() }));
    const answer = await send(
      `${server.url}/rooms`,
      'POST',
      { cookie, authorization: '', origin: 'https://attacker.example', 'content-type': 'application/json' },
      JSON.stringify({ name: 'R', description: '', type: 'group', membersIds: [randomUUID(), randomUUID()] }),
    );
    expect(answer.status).toBe(403);
  });
});
