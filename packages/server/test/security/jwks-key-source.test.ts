import type { webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwksKeySource, JwksUnavailableError } from '../../src/auth/jwks-key-source.js';

/** A JWKS endpoint on a loopback port serving `keys`, or 500 while `failing`. */
const endpoint = { keys: [] as JWK[], failing: false, requests: 0 };
let server: Server;
let url: string;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the JWKS key source', () => {
  let first: { privateKey: webcrypto.CryptoKey; jwk: JWK };
  let second: { privateKey: webcrypto.CryptoKey; jwk: JWK };
  const keyPair = async (kid: string) => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
  };
  const token = (kid: string, privateKey: webcrypto.CryptoKey) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid })
      .setSubject('u')
      .setExpirationTime('1h')
      .sign(privateKey);

  beforeAll(async () => {
    first = await keyPair('k1');
    second = await keyPair('k2');
    server = createServer((_request, response) => {
      endpoint.requests += 1;
      if (endpoint.failing) return response.writeHead(500).end();
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: endpoint.keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('keeps using the keys it holds, past their age, while the JWKS fails, and says so on /health/', async () => {
    endpoint.keys = [first.jwk];
    endpoint.failing = false;
    const source = createJwksKeySource({ url, maxAgeMs: 1, failureMemoryMs: 60_000 });
    await jwtVerify(await token('k1', first.privateKey), source.getKey);
    endpoint.failing = true;
    await pause(5);
    const { payload } = await jwtVerify(await token('k1', first.privateKey), source.getKey);
    expect(payload.sub).toBe('u');
    const health = await source.health.check();
    expect(health).toMatchObject({
      ready: true,
      details: { keys: 1, error: expect.stringContaining('500') },
    });
  });

  it('fails with JwksUnavailableError once the copy is past maxStaleMs, without asking again within the failure memory', async () => {
    endpoint.keys = [first.jwk];
    endpoint.failing = false;
    const source = createJwksKeySource({ url, maxAgeMs: 1, maxStaleMs: 1, failureMemoryMs: 60_000 });
    await jwtVerify(await token('k1', first.privateKey), source.getKey);
    endpoint.failing = true;
    await pause(5);
    const before = endpoint.requests;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(jwtVerify(await token('k1', first.privateKey), source.getKey)).rejects.toBeInstanceOf(
        JwksUnavailableError,
      );
    }
    expect(endpoint.requests - before).toBe(1);
    expect((await source.health.check()).ready).toBe(false);
  });

  it('fetches the set again for a token signed by a key published since, once the cooldown is over', async () => {
    endpoint.keys = [first.jwk];
    endpoint.failing = false;
    const source = createJwksKeySource({ url, cooldownMs: 0 });
    await jwtVerify(await token('k1', first.privateKey), source.getKey);
    endpoint.keys = [first.jwk, second.jwk];
    const { payload } = await jwtVerify(await token('k2', second.privateKey), source.getKey);
    expect(payload.sub).toBe('u');
  });

  it('refuses a token signed by an unknown key without fetching again during the cooldown', async () => {
    endpoint.keys = [first.jwk];
    endpoint.failing = false;
    const source = createJwksKeySource({ url, cooldownMs: 60_000 });
    await jwtVerify(await token('k1', first.privateKey), source.getKey);
    const before = endpoint.requests;
    await expect(jwtVerify(await token('k2', second.privateKey), source.getKey)).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
    expect(endpoint.requests).toBe(before);
  });
});
