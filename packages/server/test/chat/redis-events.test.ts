import { eventually, startPrivateRedis } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { fetchHealth, healthDependency } from '../support/test-server.js';
import { type ChatTestServer, type EventsClient, startChatServer, users } from './chat-test-support.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The `chat-events` entry of `/health/`. */
const chatEventsHealth = (server: ChatTestServer) => healthDependency(server.url, 'chat-events');

describe('chat events across two server instances on one Redis', () => {
  let first: ChatTestServer;
  let second: ChatTestServer;
  const sockets: EventsClient[] = [];
  beforeAll(async () => {
    const env = { CHAT_REDIS_URL: redisUrl };
    first = await startChatServer('postgres', { env });
    second = await startChatServer('postgres', { env });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('an event raised on one instance reaches a socket connected to the other', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const onSecond = await second.events(b);
    const onFirst = await first.events(c);
    sockets.push(onSecond, onFirst);
    const room = await first.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 'Across', membersIds: [b, c] },
    });
    expect(room.status).toBe(201);
    expect(await onSecond.next((message) => message.type === 'ROOM_CREATED')).toEqual({
      type: 'ROOM_CREATED',
      roomId: room.body.id,
      sentDate: expect.any(String),
    });
    await first.as(b)('PUT', `/rooms/${room.body.id}/mute`);
    expect(await onSecond.next((message) => message.type === 'ROOM_MUTED')).toMatchObject({
      roomId: room.body.id,
    });
    await second.as(a)('PUT', `/rooms/${room.body.id}`, { json: { name: 'Renamed' } });
    expect(await onFirst.next((message) => message.type === 'ROOM_UPDATED')).toMatchObject({
      name: 'Renamed',
    });
  });

  it('reports the Redis bus in /health/ as ready and required', async () => {
    expect(await chatEventsHealth(first)).toEqual({
      name: 'chat-events',
      required: true,
      live: true,
      ready: true,
      details: { bus: 'redis', sockets: expect.any(Number) },
    });
  });
});

describe('chat events while Redis is down', () => {
  it('a socket closing or opening during the outage neither crashes the server nor hangs: the new one is accepted', async () => {
    const redis = await startPrivateRedis();
    const server = await startChatServer('sqlite', { env: { CHAT_REDIS_URL: redis.url } });
    try {
      const { a } = users('a');
      const before = await server.events(a);
      await redis.stop();
      await before.close();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Subscribed once Redis returns (see test/faults/redis-outage.test.ts); accepted meanwhile.
      const during = await server.events(a);
      expect(during.socket.readyState).toBe(WebSocket.OPEN);
      expect((await server.as(a)('GET', '/rooms')).status).toBe(200);
      await during.close();
    } finally {
      await server.stop();
      await redis.stop();
    }
  });
});

describe('chat-events health while Redis is down', () => {
  it('shows chat-events not ready with the reason, answers /health/ready/ 503, and recovers with Redis', async () => {
    const redis = await startPrivateRedis();
    const server = await startChatServer('sqlite', { env: { CHAT_REDIS_URL: redis.url } });
    try {
      expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
      await redis.stop();
      await eventually(async () => {
        expect(await chatEventsHealth(server)).toMatchObject({
          required: true,
          ready: false,
          details: { bus: 'redis', error: expect.stringMatching(/connection to Redis is/) },
        });
      });
      const ready = await fetch(`${server.url}/health/ready/`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ detail: 'the chat event bus (Redis) does not answer' });
      const overall = (await (await fetchHealth(server.url)).json()) as { ready: boolean };
      expect(overall.ready).toBe(false);
      await redis.restart();
      await eventually(async () => {
        expect(await chatEventsHealth(server)).toMatchObject({ ready: true, details: { bus: 'redis' } });
      });
      expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
    } finally {
      await server.stop();
      await redis.stop();
    }
  });
});
