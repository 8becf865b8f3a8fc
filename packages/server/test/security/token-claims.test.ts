import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { createChatFeature } from '../../src/chat/chat-feature.js';
import { createSamlFeature } from '../../src/saml/saml-feature.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';
import { send } from './security-test-support.js';

/** What the local identity provider's JWKS endpoint does. */
type JwksMode = 'serve' | 'fail' | 'hang';

/** A JWKS endpoint on a loopback port, whose behaviour a test switches, counting its requests. */
async function startJwksServer(jwks: object) {
  let mode: JwksMode = 'serve';
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests += 1;
    if (mode === 'hang') return;
    if (mode === 'fail') return response.writeHead(500).end('down');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    setMode: (next: JwksMode) => {
      mode = next;
    },
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const audience = 'collab-suite';
const issuer = 'https://idp.example.org';
const samlFeature = async (context: Parameters<typeof createSamlFeature>[0]) => [
  await createSamlFeature(context),
];
/** An admin-only route: proof that a token was taken, as admin. */
const adminCall = (server: TestServer, token: string) =>
  send(`${server.url}/admin/auth/saml/claims.example`, 'GET', { authorization: `Bearer ${token}` });

describe('JWKS tokens: aud, iss and exp (finding 3, 7)', () => {
  let jwksServer: Awaited<ReturnType<typeof startJwksServer>>;
  let server: TestServer;
  let sign: (claims: JWTPayload, options?: { exp?: boolean }) => Promise<string>;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    jwksServer = await startJwksServer({
      keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }],
    });
    sign = (claims, options = {}) => {
      const jwt = new SignJWT({ roles: ['admin'], ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setSubject('admin-1')
        .setIssuedAt();
      return (options.exp === false ? jwt : jwt.setExpirationTime('1h')).sign(privateKey);
    };
    server = await startTestServer({
      env: {
        AUTH_JWKS_URL: jwksServer.url,
        AUTH_JWT_AUDIENCE: audience,
        AUTH_JWT_ISSUER: issuer,
        AUTH_JWKS_TIMEOUT_MS: '300',
      },
      features: samlFeature,
    });
  });
  afterAll(async () => {
    await server.stop();
    await jwksServer.close();
  });

  it('accepts a token for this audience from this issuer, and refuses one for another client or issuer with 401', async () => {
    expect((await adminCall(server, await sign({ aud: audience, iss: issuer }))).status).toBe(200);
    const otherClient = await adminCall(server, await sign({ aud: 'another-client', iss: issuer }));
    expect(otherClient.status).toBe(401);
    expect(otherClient.text).toContain('aud');
    expect((await adminCall(server, await sign({ iss: issuer }))).status).toBe(401);
    expect(
      (await adminCall(server, await sign({ aud: audience, iss: 'https://other-idp.example' }))).status,
    ).toBe(401);
  });

  it('refuses a token without exp with 401', async () => {
    const answer = await adminCall(server, await sign({ aud: audience, iss: issuer }, { exp: false }));
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('exp');
  });

  it.each(['fail', 'hang'] as const)(
    'answers 503 with Retry-After while the JWKS does %s, asks it once, and lists jwks as not ready',
    async (mode) => {
      // A new server: its key set was never fetched, so it needs the JWKS server now.
      const cold = await startTestServer({
        env: { AUTH_JWKS_URL: jwksServer.url, AUTH_JWKS_TIMEOUT_MS: '300', HEALTH_DETAILS_PUBLIC: 'true' },
        features: samlFeature,
      });
      try {
        const token = await sign({ aud: audience, iss: issuer });
        jwksServer.setMode(mode);
        const before = jwksServer.requests();
        for (const answer of [await adminCall(cold, token), await adminCall(cold, token)]) {
          expect(answer.status).toBe(503);
          expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
          expect(answer.text).toContain('AUTH_JWKS_URL');
        }
        // The failure is remembered (5 s): the second request and /health/ did not ask again.
        const health = JSON.parse((await send(`${cold.url}/health/`, 'GET')).text);
        expect(jwksServer.requests() - before).toBe(1);
        const jwks = health.dependencies.find((entry: { name: string }) => entry.name === 'jwks');
        expect(jwks).toMatchObject({ name: 'jwks', ready: false, required: false });
        expect(jwks.details.error).toBeTruthy();
      } finally {
        jwksServer.setMode('serve');
        await cold.stop();
      }
    },
  );

  it('refuses an /events upgrade with 503, not 401, while the JWKS is down', async () => {
    const cold = await startTestServer({
      env: { AUTH_JWKS_URL: jwksServer.url, AUTH_JWKS_TIMEOUT_MS: '300' },
      features: async (context) => [await createChatFeature(context)],
    });
    try {
      jwksServer.setMode('fail');
      const token = await sign({ aud: audience, iss: issuer });
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${cold.url.replace('http', 'ws')}/events`, {
          headers: { authorization: `Bearer ${token}` },
        });
        socket.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          response.resume();
          socket.terminate();
        });
        socket.once('open', () => reject(new Error('the upgrade was accepted')));
        socket.once('error', () => undefined);
      });
      expect(status).toBe(503);
    } finally {
      jwksServer.setMode('serve');
      await cold.stop();
    }
  });

  it('lists jwks as ready on /health/ once its keys are fetched', async () => {
    const health = JSON.parse((await send(`${server.url}/health/`, 'GET')).text);
    expect(health.dependencies.find((entry: { name: string }) => entry.name === 'jwks')).toMatchObject({
      ready: true,
    });
  });
});

describe('HS256 tokens: exp, iat and aud (finding 7)', () => {
  let strict: TestServer;
  let lenient: TestServer;
  const secret = new TextEncoder().encode(testJwtSecret);
  const hs256 = (claims: JWTPayload) =>
    new SignJWT({ roles: ['admin'], ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('admin-1')
      .sign(secret);
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    strict = await startTestServer({
      env: { AUTH_MAX_TOKEN_AGE: '86400', AUTH_JWT_AUDIENCE: audience },
      features: samlFeature,
    });
    lenient = await startTestServer({
      env: { AUTH_ALLOW_TOKENS_WITHOUT_EXPIRY: 'true' },
      features: samlFeature,
    });
  });
  afterAll(async () => {
    await strict.stop();
    await lenient.stop();
  });

  it('refuses an admin token without exp (iat 1970) with 401 unless AUTH_ALLOW_TOKENS_WITHOUT_EXPIRY=true', async () => {
    const forever = await hs256({ iat: 0, aud: audience });
    expect((await adminCall(strict, forever)).status).toBe(401);
    expect((await adminCall(lenient, forever)).status).toBe(200);
  });

  it('refuses a token issued longer ago than AUTH_MAX_TOKEN_AGE, and one for another audience', async () => {
    const old = await hs256({ iat: now() - 2 * 86400, exp: now() + 3600, aud: audience });
    expect((await adminCall(strict, old)).status).toBe(401);
    expect(
      (await adminCall(strict, await hs256({ iat: now(), exp: now() + 3600, aud: 'other' }))).status,
    ).toBe(401);
    expect(
      (await adminCall(strict, await hs256({ iat: now(), exp: now() + 3600, aud: audience }))).status,
    ).toBe(200);
  });

  it('takes what signLocalToken (pnpm token, the test helpers) signs: exp always, aud when configured', async () => {
    const token = await signLocalToken(testJwtSecret, { userId: 'admin-1', admin: true, audience });
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    expect(payload).toMatchObject({ aud: audience, exp: expect.any(Number), iat: expect.any(Number) });
    expect((await adminCall(strict, token)).status).toBe(200);
  });
});
