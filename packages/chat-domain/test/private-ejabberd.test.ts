import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateEjabberd } from '../src/testing/private-ejabberd.js';
import { startDocumentedEjabberd } from './documented-ejabberd.js';

/** An HS256 JWT of `claims`. */
function hs256(claims: Record<string, unknown>, secret: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

async function command(server: PrivateEjabberd, name: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${server.apiUrl}/${name}`, { method: 'POST', body: JSON.stringify(body) });
  return response.json();
}

describe('a private ejabberd', () => {
  let first: PrivateEjabberd;
  let second: PrivateEjabberd;
  beforeAll(async () => {
    [first, second] = await Promise.all([
      startDocumentedEjabberd({ jwtSecret: 'a-secret-of-the-first-server-0123456789' }),
      startDocumentedEjabberd({ jwtSecret: 'a-secret-of-the-second-server-012345678', domain: 'other.test' }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('runs beside another one with its own node, ports and folder', () => {
    expect(first.nodeName).not.toBe(second.nodeName);
    expect(first.apiUrl).not.toBe(second.apiUrl);
    expect(first.folder).not.toBe(second.folder);
    expect(second.mucDomain).toBe('muc.other.test');
  });

  it('keeps a persistent room across a restart on the same ports', async () => {
    const room = { name: 'kept-room', service: first.mucDomain };
    expect(await command(first, 'create_room_with_opts', { ...room, host: first.domain, options: [] })).toBe(
      0,
    );
    await first.restart();
    expect(await command(first, 'muc_online_rooms', { service: first.mucDomain })).toEqual([
      `kept-room@${first.mucDomain}`,
    ]);
    expect(await command(second, 'muc_online_rooms', { service: second.mucDomain })).toEqual([]);
  }, 120_000);

  it('removes its folder when stopped, and a second stop does nothing', async () => {
    await second.stop();
    await second.stop();
    expect(existsSync(second.folder)).toBe(false);
    await expect(fetch(`${second.apiUrl}/status`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});

describe('a private ejabberd whose API only one account may use', () => {
  let server: PrivateEjabberd;
  const secret = 'a-secret-of-the-locked-server-0123456789';
  beforeAll(async () => {
    server = await startDocumentedEjabberd({
      jwtSecret: secret,
      apiAccess: { user: 'chat-mirror@collab.test' },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses anonymous callers and accepts the account with a JWT as its password', async () => {
    const refused = await fetch(`${server.apiUrl}/muc_online_rooms`, {
      method: 'POST',
      body: JSON.stringify({ service: server.mucDomain }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const token = hs256(
      { jid: 'chat-mirror@collab.test', exp: Math.floor(Date.now() / 1000) + 3600 },
      secret,
    );
    const accepted = await fetch(`${server.apiUrl}/muc_online_rooms`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`chat-mirror@collab.test:${token}`).toString('base64')}`,
      },
      body: JSON.stringify({ service: server.mucDomain }),
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual([]);
  });
});
