import { eventually, type PrivateRedis, startPrivateRedis } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatTestServer,
  type EventsClient,
  type JsonObject,
  receivedFrames,
  startChatServer,
  users,
} from '../chat/chat-test-support.js';
import { loopbackMeetingEnv } from '../meetings/meeting-test-support.js';
import { framesNotDescribed, servedAsyncApi } from '../support/asyncapi-frames.js';
import { testDatabaseUrl } from '../support/test-database.js';

/**
 * Two server instances share a private Redis (killed with SIGKILL and started again) and a
 * PostgreSQL database of this file's own. `tiny` keeps at most one event while Redis is away, to
 * test the backlog bound; `roomy` keeps the default 10 000 and lets a user create 3 rooms a minute.
 */
describe('a Redis outage under two server instances', () => {
  let redis: PrivateRedis;
  let tiny: ChatTestServer;
  let roomy: ChatTestServer;
  const sockets: EventsClient[] = [];
  const listen = async (server: ChatTestServer, userId: string) => {
    const socket = await server.events(userId);
    sockets.push(socket);
    return socket;
  };
  const readiness = async (server: ChatTestServer) => (await fetch(`${server.url}/health/ready/`)).status;
  const createdRoom = (roomId: string) => (frame: JsonObject) =>
    frame.type === 'ROOM_CREATED' && frame.roomId === roomId;
  const resync = (reason: string) => (frame: JsonObject) =>
    frame.type === 'resync' && frame.reason === reason;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const databaseUrl = await testDatabaseUrl('collab_test_faults_redis');
    const env = { ...loopbackMeetingEnv, CHAT_REDIS_URL: redis.url, CHAT_DATABASE_URL: databaseUrl };
    tiny = await startChatServer('postgres', { env: { ...env, CHAT_EVENT_BACKLOG_MAX: '1' } });
    roomy = await startChatServer('postgres', { env: { ...env, CHAT_ROOM_CREATIONS_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await Promise.all([tiny?.stop(), roomy?.stop()]);
    await redis?.stop();
  });

  /** Kills Redis and waits until both instances say they are not ready. */
  const killRedis = async () => {
    await redis.stop();
    await eventually(async () => {
      expect(await readiness(tiny)).toBe(503);
      expect(await readiness(roomy)).toBe(503);
    }, 10_000);
  };

  /** Starts Redis again and waits until both instances say they are ready. */
  const startRedis = async () => {
    await redis.start();
    await eventually(async () => {
      expect(await readiness(tiny)).toBe(200);
      expect(await readiness(roomy)).toBe(200);
    }, 10_000);
  };

  it('answers room creations while Redis is down, and delivers every ROOM_CREATED to the other instance once it returns', async () => {
    const { owner, first, second, late } = users('owner', 'first', 'second', 'late');
    const firstSocket = await listen(tiny, first);
    const secondSocket = await listen(tiny, second);
    await killRedis();
    const lateSocket = await listen(tiny, late);
    const rooms: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      const created = await roomy.as(owner)('POST', '/rooms', {
        json: { type: 'group', name, membersIds: [first, second, late] },
      });
      expect(created.status).toBe(201);
      rooms.push(created.body.id as string);
    }
    // The room creation limit counts in this process meanwhile (fails open per process, still counts).
    const fourth = await roomy.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Four', membersIds: [first, second] },
    });
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toMatch(/^\d+$/);
    // Redis was down all along: the writes did not wait for it.
    expect(await readiness(roomy)).toBe(503);
    expect((await roomy.as(owner)('GET', '/rooms')).status).toBe(200);
    await startRedis();
    for (const socket of [firstSocket, secondSocket, lateSocket]) {
      for (const roomId of rooms) await socket.next(createdRoom(roomId), 15_000);
      // tiny's subscriptions were down: its sessions are told events may have passed them by.
      await socket.next(resync('subscription_interrupted'), 15_000);
      expect(
        socket.messages.filter((frame) => frame.type === 'ROOM_CREATED').map((frame) => frame.roomId),
      ).toEqual(rooms);
    }
    const after = await roomy.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'After', membersIds: [late, first] },
    });
    expect(after.status).toBe(201);
    await lateSocket.next(createdRoom(after.body.id as string), 15_000);
  });

  it('tells the users whose events were dropped past the backlog bound to resync', async () => {
    const { owner, dropped, kept, other } = users('owner', 'dropped', 'kept', 'other');
    const droppedSocket = await listen(roomy, dropped);
    const keptSocket = await listen(roomy, kept);
    await killRedis();
    const lost = await tiny.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Lost', membersIds: [dropped, other] },
    });
    const last = await tiny.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Last', membersIds: [other, kept] },
    });
    expect([lost.status, last.status]).toEqual([201, 201]);
    expect(await readiness(tiny)).toBe(503);
    await startRedis();
    // Only the very last event was kept: `dropped`'s ROOM_CREATED was not, so it gets a resync.
    await droppedSocket.next(resync('events_dropped'), 15_000);
    await droppedSocket.next(resync('subscription_interrupted'), 15_000);
    expect(droppedSocket.messages.some(createdRoom(lost.body.id as string))).toBe(false);
    // `kept` gets its ROOM_CREATED or, if it was dropped too, a resync: never nothing.
    await keptSocket.next(
      (frame) => createdRoom(last.body.id as string)(frame) || resync('events_dropped')(frame),
      15_000,
    );
  });

  it('creates, starts and joins a meeting while Redis is down (API and media in one process), its events arriving after', async () => {
    const { owner, guest, other } = users('owner', 'guest', 'other');
    const ownerSocket = await listen(roomy, owner);
    const guestSocket = await listen(tiny, guest);
    const room = await roomy.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Meet', membersIds: [guest, other] },
    });
    expect(room.status).toBe(201);
    await killRedis();
    const meeting = await roomy.as(owner)('POST', '/meetings', {
      json: { roomId: room.body.id, name: 'Outage' },
    });
    expect(meeting.status).toBe(200);
    const meetingId = meeting.body.id as string;
    expect((await roomy.as(owner)('POST', `/meetings/${meetingId}/start`)).status).toBe(200);
    const joined = await roomy.as(owner)('POST', `/meetings/${meetingId}/join`, {
      json: { audioStreamEnabled: false, videoStreamEnabled: false },
      headers: { 'queue-id': String(ownerSocket.messages[0]?.queueId) },
    });
    expect(joined.status).toBe(200);
    expect(joined.body.status).toBe('ACCEPTED');
    expect(await readiness(roomy)).toBe(503);
    await startRedis();
    for (const type of ['MEETING_CREATED', 'MEETING_STARTED', 'MEETING_PARTICIPANT_JOINED'])
      await guestSocket.next((frame) => frame.type === type && frame.meetingId === meetingId, 15_000);
  });

  it('keeps both instances serving, and sent only frames /asyncapi.json describes', async () => {
    const { owner, member, other } = users('owner', 'member', 'other');
    const socket = await listen(tiny, member);
    const created = await roomy.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Still', membersIds: [member, other] },
    });
    expect(created.status).toBe(201);
    await socket.next(createdRoom(created.body.id as string), 15_000);
    expect(receivedFrames.some((frame) => frame.type === 'resync')).toBe(true);
    expect(framesNotDescribed(await servedAsyncApi(tiny.url), receivedFrames)).toEqual([]);
  });
});
