import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryEventBus } from '@collab-suite/chat-domain';
import { eventually } from '@collab-suite/chat-domain/testing';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createAuthenticator } from '../auth/authenticator.js';
import { signLocalToken } from '../auth/sign-token.js';
import { createEventsSocket, type EventsSessionDirectory, type EventsSocket } from './events-socket.js';

const secret = 'events-socket-grace-test-secret-of-enough-length';

describe('an /events session whose grace ends while the session directory cannot answer', () => {
  let server: Server | undefined;
  let endpoint: EventsSocket | undefined;
  afterEach(async () => {
    await endpoint?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('is kept, and asked about again until the directory answers, instead of ending its meetings', async () => {
    let directoryAway = true;
    let ownsAsked = 0;
    const directory: EventsSessionDirectory = {
      claim: async () => false,
      owns: async () => {
        ownsAsked += 1;
        if (directoryAway) throw new Error('the directory is away');
        return true;
      },
      moved: () => {},
    };
    const closed: string[] = [];
    endpoint = createEventsSocket({
      authenticator: createAuthenticator({ jwtSecret: secret }),
      events: createMemoryEventBus(),
      logger: pino({ level: 'silent' }),
      reconnectGraceMs: 50,
      directory,
      onSessionClosed: (_userId, queueId) => closed.push(queueId),
    });
    server = createServer();
    endpoint.attach(server);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const userId = randomUUID();
    const socket = new WebSocket(`ws://127.0.0.1:${port}/events`, {
      headers: { authorization: `Bearer ${await signLocalToken(secret, { userId })}` },
    });
    const greeting = await new Promise<{ queueId: string }>((resolve, reject) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data)) as { queueId: string }));
      socket.once('error', reject);
    });
    expect(endpoint.hasQueue(userId, greeting.queueId)).toBe(true);

    // The connection is lost (no close frame): the grace starts; it ends while the directory is away.
    socket.terminate();
    await eventually(async () => expect(ownsAsked).toBeGreaterThanOrEqual(3), 20_000);
    expect(closed).toEqual([]);
    expect(endpoint.hasQueue(userId, greeting.queueId)).toBe(true);

    // The directory answers again (the session is still this node's): it ends as on one node.
    directoryAway = false;
    await eventually(async () => expect(closed.length).toBeGreaterThan(0), 20_000);
    expect(closed).toEqual([greeting.queueId]);
    expect(endpoint.hasQueue(userId, greeting.queueId)).toBe(false);
  });
});
