import { eventually } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { chatClientFor, type JsonObject, users } from '../chat/chat-test-support.js';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';
import { type FaultCluster, prefix, startFaultCluster } from './cluster-fault-support.js';

/** Bounds for a busy two-core machine: states are waited for, these only stop a hung test. */
const generous = 30_000;

const token = (userId: string) => signLocalToken(testJwtSecret, { userId });

/** An `/events` upgrade: accepted (101, with what arrived) or refused (its status and body). */
interface EventsAnswer {
  status: number;
  body: string;
  socket: WebSocket;
  messages: JsonObject[];
  /** Waits for a message matching `predicate` (already received or coming). */
  next(predicate: (message: JsonObject) => boolean): Promise<JsonObject>;
}

/**
 * Asks the node at `url` for `/events` as `userId`, resuming `queueId` when given, and resolves
 * once the greeting arrived or the upgrade was refused (no `openEvents`: it waits only 5 s and
 * cannot report a refusal's status).
 */
async function connect(url: string, userId: string, queueId?: string): Promise<EventsAnswer> {
  const query = queueId === undefined ? '' : `?queueId=${queueId}`;
  const socket = new WebSocket(`${url.replace('http', 'ws')}/events${query}`, {
    headers: { authorization: `Bearer ${await token(userId)}` },
  });
  const messages: JsonObject[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as JsonObject));
  const next = async (predicate: (message: JsonObject) => boolean) => {
    await eventually(async () => expect(messages.some(predicate)).toBe(true), generous);
    return messages.find(predicate) as JsonObject;
  };
  const refused = await new Promise<{ status: number; body: string } | undefined>((resolve, reject) => {
    socket.once('open', () => resolve(undefined));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += String(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
  if (refused !== undefined) return { ...refused, socket, messages, next };
  // A socket closed before its greeting (e.g. 1011 "events unavailable") fails at once, with its code.
  const closedFirst = new Promise<never>((_resolve, reject) =>
    socket.once('close', (code, reason) =>
      reject(new Error(`the socket closed with ${code} ${String(reason)} before its greeting`)),
    ),
  );
  closedFirst.catch(() => {});
  await Promise.race([next((message) => message.type === 'websocketConnected'), closedFirst]);
  return { status: 101, body: '', socket, messages, next };
}

/**
 * Two API nodes on a private Redis (killed and started again, empty) and a PostgreSQL database of
 * this file's own: an `/events` client resuming its session on the other node (the node's session
 * directory in Redis says which node keeps it), while Redis answers and while it does not.
 */
describe('an /events session resumed on another API node while Redis is away', () => {
  let cluster: FaultCluster;
  let nodeA: ClusterNode;
  let nodeB: ClusterNode;
  const opened: WebSocket[] = [];
  const open = async (url: string, userId: string, queueId?: string) => {
    const answer = await connect(url, userId, queueId);
    opened.push(answer.socket);
    return answer;
  };
  const readiness = async (node: ClusterNode) => (await fetch(`${node.url}/health/ready/`)).status;
  const liveness = async (node: ClusterNode) => (await fetch(`${node.url}/health/live/`)).status;
  const queuesOf = (nodeId: string) => cluster.client.smembers(`${prefix}api-node:${nodeId}:queues`);
  const roomCreated = (roomId: string) => (frame: JsonObject) =>
    frame.type === 'ROOM_CREATED' && frame.roomId === roomId;
  /** Creates a group room through node B and returns its id. */
  const createRoom = async (owner: string, members: string[]) => {
    const created = await chatClientFor(nodeB.url, token)(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Claim', membersIds: members },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return String(created.body.id);
  };

  beforeAll(async () => {
    // The sessions dropped here stay resumable for the whole test, however slow the machine.
    cluster = await startFaultCluster('events_claim', { apiEnv: { MEETING_RECONNECT_GRACE_SECONDS: '300' } });
    [nodeA, nodeB] = await Promise.all([cluster.start('api-a', 'api'), cluster.start('api-b', 'api')]);
  }, 120_000);

  afterAll(async () => {
    for (const socket of opened) socket.terminate();
    await cluster?.stop();
  });

  it('adopts the session while Redis answers; without Redis gives a fresh session (resumed: false) that receives events once Redis is back, and resumes on the other node then', async () => {
    const { alice, bob, owner, other } = users('alice', 'bob', 'owner', 'other');

    // 1. Alice's session on A.
    const aliceOnA = await open(nodeA.url, alice);
    expect(aliceOnA.status).toBe(101);
    const aliceQueue = String(aliceOnA.messages[0]?.queueId);
    expect(aliceOnA.messages[0]).toEqual({ type: 'websocketConnected', queueId: aliceQueue });
    await eventually(
      async () => expect(await queuesOf('api-a')).toContain(`${alice} ${aliceQueue}`),
      generous,
    );

    // 2. Her connection drops; she reconnects through B, which takes the session over from A.
    aliceOnA.socket.terminate();
    const aliceOnB = await open(nodeB.url, alice, aliceQueue);
    expect(aliceOnB.status).toBe(101);
    expect(aliceOnB.messages[0]).toEqual({ type: 'websocketConnected', queueId: aliceQueue, resumed: true });
    // The events kept for it on A stay there: the client is told to refetch.
    await aliceOnB.next((frame) => frame.type === 'resync' && frame.reason === 'events_missed_while_away');
    expect(await queuesOf('api-b')).toContain(`${alice} ${aliceQueue}`);
    expect(await queuesOf('api-a')).not.toContain(`${alice} ${aliceQueue}`);
    await eventually(
      async () => expect(nodeB.output()).toContain('took over an /events session reconnected here'),
      generous,
    );

    // 3. Bob's session on B; Redis goes away; his connection drops and he reconnects through A.
    const bobOnB = await open(nodeB.url, bob);
    const bobQueue = String(bobOnB.messages[0]?.queueId);
    await eventually(async () => expect(await queuesOf('api-b')).toContain(`${bob} ${bobQueue}`), generous);
    await cluster.redis.stop();
    await eventually(async () => {
      expect(await readiness(nodeA)).toBe(503);
      expect(await readiness(nodeB)).toBe(503);
    }, generous);
    bobOnB.socket.terminate();
    const bobOnA = await open(nodeA.url, bob, bobQueue);
    // A cannot ask the directory: the socket is accepted with a session of its own, and says it
    // did not resume (the client refetches what it shows and uses the new queue id from now on).
    expect(bobOnA.status, bobOnA.body).toBe(101);
    const freshQueue = String(bobOnA.messages[0]?.queueId);
    expect(bobOnA.messages[0]).toEqual({ type: 'websocketConnected', queueId: freshQueue, resumed: false });
    expect(freshQueue).not.toBe(bobQueue);
    // Logged, as a warning (its output reaches the test through a pipe: waited for).
    await eventually(
      async () =>
        expect(nodeA.output()).toMatch(
          /"level":40,[^\n]*"msg":"could not look up or claim an \/events session"/,
        ),
      generous,
    );
    // Both nodes keep serving: alive (not ready without Redis), nothing failed with a 500.
    expect(await liveness(nodeA)).toBe(200);
    expect(await liveness(nodeB)).toBe(200);
    expect([nodeA.process.exitCode, nodeB.process.exitCode]).toEqual([null, null]);
    expect(nodeA.output()).not.toContain('WebSocket upgrade failed');
    expect(nodeA.output()).not.toContain('could not subscribe a WebSocket session to events');

    // 4. Redis returns (empty): A records the session it opened meanwhile, which gets events.
    await cluster.redis.start();
    await eventually(async () => {
      expect(await readiness(nodeA)).toBe(200);
      expect(await readiness(nodeB)).toBe(200);
    }, generous);
    await eventually(async () => expect(await queuesOf('api-a')).toContain(`${bob} ${freshQueue}`), generous);
    const afterOutage = await createRoom(owner, [bob, other]);
    await bobOnA.next(roomCreated(afterOutage));

    // Its connection drops; reconnecting through B with the queue id it was given resumes it there.
    bobOnA.socket.terminate();
    const bobBackOnB = await open(nodeB.url, bob, freshQueue);
    expect(bobBackOnB.status, bobBackOnB.body).toBe(101);
    expect(bobBackOnB.messages[0]).toEqual({
      type: 'websocketConnected',
      queueId: freshQueue,
      resumed: true,
    });
    expect(await queuesOf('api-b')).toContain(`${bob} ${freshQueue}`);
    expect(await queuesOf('api-a')).not.toContain(`${bob} ${freshQueue}`);
    const resumedRoom = await createRoom(owner, [bob, other]);
    await bobBackOnB.next(roomCreated(resumedRoom));
    // Alice's session, adopted by B before the outage, gets events too.
    const aliceRoom = await createRoom(owner, [alice, other]);
    await aliceOnB.next(roomCreated(aliceRoom));
  }, 240_000);
});
