import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { requireChatActor } from '../../src/chat/actor.js';

const tokenWith = (payload: Record<string, unknown>) =>
  `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.signature`;

/** An authenticator double that accepts every token and counts verifications (no key is involved). */
function countingAuthenticator(userId: string) {
  let calls = 0;
  const authenticator: Authenticator = {
    authenticate: async () => {
      calls += 1;
      return { userId, roles: [], isAdmin: false };
    },
    verify: async () => ({ userId, roles: [], isAdmin: false }),
    crossOriginRefusal: () => undefined,
  };
  return { authenticator, calls: () => calls };
}

async function run(middleware: ReturnType<typeof requireChatActor>, token: string) {
  const request = { headers: { authorization: `Bearer ${token}` } } as Request;
  const response = { locals: {} } as Response;
  await middleware(request, response, () => {});
  return response.locals.actor;
}

describe('requireChatActor', () => {
  it('verifies a token once and trusts it again within the TTL', async () => {
    const userId = randomUUID();
    const counting = countingAuthenticator(userId.toUpperCase());
    const middleware = requireChatActor(counting.authenticator);
    const token = tokenWith({ sub: userId, exp: Math.floor(Date.now() / 1000) + 3600 });
    expect(await run(middleware, token)).toEqual({ userId, credentials: token });
    expect(await run(middleware, token)).toEqual({ userId, credentials: token });
    expect(counting.calls()).toBe(1);
  });

  it('never trusts a remembered token past its exp', async () => {
    const counting = countingAuthenticator(randomUUID());
    const middleware = requireChatActor(counting.authenticator);
    const expired = tokenWith({ exp: Math.floor(Date.now() / 1000) - 1 });
    await run(middleware, expired);
    await run(middleware, expired);
    expect(counting.calls()).toBe(2);
  });

  it('starts over past maxVerifiedTokens and verifies every time with a TTL of 0', async () => {
    const counting = countingAuthenticator(randomUUID());
    const small = requireChatActor(counting.authenticator, { maxVerifiedTokens: 2 });
    const tokens = [1, 2, 3].map((index) => tokenWith({ jti: index }));
    for (const token of tokens) await run(small, token);
    await run(small, tokens[0] as string);
    expect(counting.calls()).toBe(4);
    const uncached = requireChatActor(counting.authenticator, { verifiedTokenTtlMs: 0 });
    await run(uncached, tokens[0] as string);
    await run(uncached, tokens[0] as string);
    expect(counting.calls()).toBe(6);
  });

  it('refuses a subject that is not a UUID', async () => {
    const middleware = requireChatActor(countingAuthenticator('alice').authenticator);
    await expect(run(middleware, tokenWith({}))).rejects.toMatchObject({ status: 401 });
  });
});
