import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ChatTestServer, startChatServer, users } from '../chat/chat-test-support.js';
import { cookieOf } from './security-test-support.js';

/** How an `/events` handshake ended: the first frame, or the status the upgrade was refused with. */
function handshake(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; first?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/events`, { headers });
    socket.once('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode ?? 0 });
      response.resume();
      socket.terminate();
    });
    socket.once('message', (data) => {
      resolve({ status: 101, first: JSON.parse(data.toString()).type });
      socket.close();
    });
    socket.once('error', (error) => {
      if (!String(error.message).includes('Unexpected server response')) reject(error);
    });
  });
}

describe('/events and the Origin of a cookie-authenticated handshake (finding 2)', () => {
  let server: ChatTestServer;
  const { alice } = users('alice');

  beforeAll(async () => {
    server = await startChatServer('sqlite');
  });
  afterAll(() => server.stop());

  it('refuses the cookie from a page on another origin with 403 at the upgrade', async () => {
    const sibling = new URL(server.url);
    sibling.port = String(Number(sibling.port) + 1);
    const cookie = cookieOf(await server.token(alice));
    expect(await handshake(server.url, { cookie, origin: sibling.origin })).toEqual({ status: 403 });
    expect(await handshake(server.url, { cookie, origin: 'https://attacker.example' })).toEqual({
      status: 403,
    });
  });

  it('opens the session for the cookie from the same origin, and for a bearer token from anywhere', async () => {
    const token = await server.token(alice);
    expect(await handshake(server.url, { cookie: cookieOf(token), origin: server.url })).toEqual({
      status: 101,
      first: 'websocketConnected',
    });
    expect(
      await handshake(server.url, { authorization: `Bearer ${token}`, origin: 'https://elsewhere.example' }),
    ).toEqual({ status: 101, first: 'websocketConnected' });
  });
});
