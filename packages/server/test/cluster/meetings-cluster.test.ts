import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AudioTestClient, recentToneShare, waitFor } from '@collab-suite/webrtc-sfu/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import {
  type ChatClient,
  chatClientFor,
  type EventsClient,
  type JsonObject,
  openEvents,
  users,
} from '../chat/chat-test-support.js';
import { loopbackMeetingEnv } from '../meetings/meeting-test-support.js';
import { fetchHealth, testJwtSecret } from '../support/test-server.js';
import { type ClusterNode, clusterPostgresUrl, startClusterNode } from './cluster-nodes.js';
import { type RunningHaproxy, startHaproxy } from './haproxy.js';

const redisUrl = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/11`;
const prefix = `collab-test:${randomUUID()}:`;
const heartbeatMs = 300;
const token = (userId: string) => signLocalToken(testJwtSecret, { userId });

/** A user talking to the API through HAProxy: calls, an `/events` session and an audio client. */
interface NodeUser {
  userId: string;
  /** The API node HAProxy gave the `/events` socket to. */
  socketNode: string;
  call: ChatClient;
  queueId: string;
  next(type: string, where?: (event: JsonObject) => boolean): Promise<JsonObject>;
  /** Marks the events received so far: `next` then waits for a later one. */
  skipReceived(): void;
  audio: AudioTestClient;
  events: EventsClient;
  close(): Promise<void>;
}

async function userOn(baseUrl: string, userId: string): Promise<NodeUser> {
  const events = await openEvents(baseUrl, await token(userId));
  let skipped = 0;
  const user: NodeUser = {
    userId,
    socketNode: String(events.upgradeHeaders['x-served-by']),
    call: chatClientFor(baseUrl, token)(userId),
    queueId: String(events.messages[0]?.queueId),
    next: (type, where = () => true) =>
      events.next(
        (message) => events.messages.indexOf(message) >= skipped && message.type === type && where(message),
        40_000,
      ),
    skipReceived() {
      skipped = events.messages.length;
    },
    audio: new AudioTestClient(),
    events,
    async close() {
      await user.audio.close();
      await events.close();
    },
  };
  return user;
}

async function connectAudio(user: NodeUser, meetingId: string): Promise<void> {
  const offered = await user.call('PUT', `/meetings/${meetingId}/audio/offer`, {
    json: { sdp: await user.audio.createOffer() },
  });
  expect(offered.status).toBe(204);
  const answered = await user.next('MEETING_AUDIO_ANSWERED', (event) => event.meetingId === meetingId);
  await user.audio.acceptAnswer(answered.sdp);
  await waitFor(() => user.audio.peer.connectionState === 'connected', `${user.userId} audio connected`);
}

describe('meetings across two API nodes behind HAProxy and two media nodes', () => {
  const nodes: ClusterNode[] = [];
  const people: NodeUser[] = [];
  const sockets: EventsClient[] = [];
  let redis: Redis;
  let proxy: RunningHaproxy;

  beforeAll(async () => {
    redis = new Redis(redisUrl);
    const shared = {
      ...loopbackMeetingEnv,
      CHAT_REDIS_URL: redisUrl,
      CLUSTER_REDIS_PREFIX: prefix,
      CLUSTER_HEARTBEAT_MS: String(heartbeatMs),
      MEETING_RECONNECT_GRACE_SECONDS: '3',
      AUTH_JWT_SECRET: testJwtSecret,
      LOG_LEVEL: 'info',
    };
    const databaseUrl = await clusterPostgresUrl();
    const database = {
      CHAT_DATABASE_URL: databaseUrl,
      SAML_DATABASE_URL: databaseUrl,
      CHAT_BLOB_DIR: mkdtempSync(path.join(tmpdir(), 'collab-cluster-blobs-')),
    };
    const start = async (name: string, env: Record<string, string>) => {
      const node = await startClusterNode(name, env);
      nodes.push(node);
      return node;
    };
    const started = await Promise.all([
      start('media-1', { ...shared, NODE_ROLES: 'media', NODE_ID: 'media-1' }),
      start('media-2', { ...shared, NODE_ROLES: 'media', NODE_ID: 'media-2' }),
      start('api-a', { ...shared, ...database, NODE_ROLES: 'api', NODE_ID: 'api-a' }),
      start('api-b', { ...shared, ...database, NODE_ROLES: 'api', NODE_ID: 'api-b' }),
    ]);
    proxy = await startHaproxy(started.slice(2).map((node) => ({ name: node.name, url: node.url })));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...people, ...sockets].map((closer) => closer.close()));
    await proxy?.stop();
    await Promise.all(nodes.map((node) => node.kill('SIGTERM')));
    const left = await redis.keys(`${prefix}*`);
    if (left.length > 0) await redis.del(...left);
    redis.disconnect();
  });

  it('shares attachments and SAML properties between the API nodes', async () => {
    const [apiA, apiB] = nodes.filter((node) => node.name.startsWith('api-'));
    if (apiA === undefined || apiB === undefined) throw new Error('expected two API nodes');
    const ids = users('dora', 'erin', 'fred');
    const onA = chatClientFor(apiA.url, token);
    const onB = chatClientFor(apiB.url, token);
    const room = await onA(ids.dora)('POST', '/rooms', {
      json: { type: 'group', name: 'Files', membersIds: [ids.erin, ids.fred] },
    });
    expect(room.status, JSON.stringify(room.body)).toBe(201);
    const uploaded = await onA(ids.dora)('POST', `/rooms/${room.body.id}/attachments`, {
      body: 'bytes written by node a',
      headers: { fileName: 'a.txt', mimeType: 'text/plain', 'content-type': 'application/octet-stream' },
    });
    expect(uploaded.status).toBe(201);
    const download = await onB(ids.erin)('GET', `/attachments/${uploaded.body.id}/download`);
    expect(download.status).toBe(200);
    expect(download.body).toBe('bytes written by node a');

    const admin = await signLocalToken(testJwtSecret, { userId: 'admin-1', admin: true });
    const domain = `cluster-${randomUUID().slice(0, 8)}.example`;
    const put = await fetch(`${apiA.url}/admin/auth/saml/${domain}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ 'idp.entityid': 'https://idp.example.org/entity' }),
    });
    expect(put.status).toBe(200);
    const read = await fetch(`${apiB.url}/admin/auth/saml/${domain}?raw=true`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ 'idp.entityid': 'https://idp.example.org/entity' });
  });

  it('resumes a dropped /events session on the other API node: the participation stays, meeting events and calls follow it', async () => {
    const ids = users('dana', 'erin', 'finn');
    const dana = await userOn(proxy.url, ids.dana);
    const erin = await userOn(proxy.url, ids.erin);
    // Finn's session on Erin's API node: his leaving after the grace tells that hers is over there too.
    const erinNode = nodes.find((node) => node.name === erin.socketNode) as ClusterNode;
    const finn = await userOn(erinNode.url, ids.finn);
    people.push(dana, erin, finn);
    const room = await dana.call('POST', '/rooms', {
      json: { type: 'group', name: 'Moving', membersIds: [ids.erin, ids.finn] },
    });
    const meetingId: string = (await dana.call('POST', '/meetings', { json: { roomId: room.body.id } })).body
      .id;
    expect((await dana.call('POST', `/meetings/${meetingId}/start`)).status).toBe(200);
    for (const user of [dana, erin, finn]) {
      const joined = await user.call('POST', `/meetings/${meetingId}/join`, {
        json: { audioStreamEnabled: true, videoStreamEnabled: false },
        headers: { 'queue-id': user.queueId },
      });
      expect(joined.status).toBe(200);
    }

    // Erin's and Finn's connections are lost (no close frame); Erin comes back on the other API node.
    erin.events.socket.terminate();
    finn.events.socket.terminate();
    const otherNode = nodes.find((node) => node.name.startsWith('api-') && node.name !== erinNode.name);
    const resumed = await openEvents(
      (otherNode as ClusterNode).url,
      await token(ids.erin),
      `?queueId=${erin.queueId}`,
    );
    sockets.push(resumed);
    expect(resumed.messages[0]).toEqual({ type: 'websocketConnected', queueId: erin.queueId, resumed: true });
    // What the old node kept for her meanwhile stays there: she is told to refetch.
    expect(await resumed.next((message) => message.type === 'resync')).toMatchObject({
      reason: 'events_missed_while_away',
    });

    // Finn did not come back: he leaves once his grace is over; Erin, who dropped with him, stays.
    expect(await dana.next('MEETING_PARTICIPANT_LEFT', (event) => event.userId === ids.finn)).toMatchObject({
      meetingId,
    });
    const meeting = await dana.call('GET', `/meetings/${meetingId}`);
    const present = meeting.body.participants.map((participant: { userId: string }) => participant.userId);
    expect(present.sort()).toEqual([ids.dana, ids.erin].sort());
    expect(
      dana.events.messages.filter(
        (message) => message.type === 'MEETING_PARTICIPANT_LEFT' && message.userId === ids.erin,
      ),
    ).toEqual([]);

    // Her participation answers on the resumed session: her audio offer's answer reaches the new socket.
    const offered = await erin.call('PUT', `/meetings/${meetingId}/audio/offer`, {
      json: { sdp: await erin.audio.createOffer() },
    });
    expect(offered.status).toBe(204);
    expect(
      await resumed.next(
        (message) => message.type === 'MEETING_AUDIO_ANSWERED' && message.meetingId === meetingId,
        40_000,
      ),
    ).toBeDefined();
    // Meeting events for her reach the resumed socket: Dana leaving, say.
    expect((await dana.call('POST', `/meetings/${meetingId}/leave`)).status).toBe(204);
    expect(
      await resumed.next(
        (message) => message.type === 'MEETING_PARTICIPANT_LEFT' && message.userId === ids.dana,
        40_000,
      ),
    ).toMatchObject({ meetingId });
  }, 120_000);

  it('serves one meeting from both API nodes, survives a dead API node and moves off a dead media node', async () => {
    const ids = users('alice', 'bob', 'carol');
    // Round robin: sessions opened one after the other land on different API nodes.
    const alice = await userOn(proxy.url, ids.alice);
    let bob = await userOn(proxy.url, ids.bob);
    people.push(alice, bob);
    while (bob.socketNode === alice.socketNode) {
      bob = await userOn(proxy.url, ids.bob);
      people.push(bob);
    }
    expect([alice.socketNode, bob.socketNode].sort()).toEqual(['api-a', 'api-b']);
    const room = await alice.call('POST', '/rooms', {
      json: { type: 'group', name: 'Cluster', membersIds: [ids.bob, ids.carol] },
    });
    const meetingId: string = (await alice.call('POST', '/meetings', { json: { roomId: room.body.id } })).body
      .id;
    expect((await alice.call('POST', `/meetings/${meetingId}/start`)).status).toBe(200);
    const join = (user: NodeUser) =>
      user.call('POST', `/meetings/${meetingId}/join`, {
        json: { audioStreamEnabled: true, videoStreamEnabled: false },
        headers: { 'queue-id': user.queueId },
      });
    expect((await join(alice)).status).toBe(200);
    expect((await join(bob)).status).toBe(200);
    const hosting = await redis.get(`${prefix}meeting-media:${meetingId}`);
    expect(['media-1', 'media-2']).toContain(hosting);
    // The hosting media node lists the meeting in its health, and serves nothing else over HTTP.
    const hostNode = nodes.find((node) => node.name === hosting) as ClusterNode;
    const hostHealth = (await (await fetchHealth(hostNode.url)).json()) as {
      dependencies: JsonObject[];
    };
    expect(hostHealth.dependencies.find((entry) => entry.name === 'media-node')?.details).toMatchObject({
      nodeId: hosting,
      participants: 2,
      meetings: [{ meetingId, participants: 2 }],
    });
    for (const path of ['/rooms', '/openapi.json', '/docs/']) {
      expect((await fetch(`${hostNode.url}${path}`)).status).toBe(404);
    }

    // Calls alternate between the API nodes; both reach the one media node.
    await connectAudio(alice, meetingId);
    await connectAudio(bob, meetingId);
    expect(
      (await alice.call('PUT', `/meetings/${meetingId}/audio`, { json: { enabled: true } })).status,
    ).toBe(204);
    alice.audio.startTone(440);
    await waitFor(() => bob.audio.received.length > 60, "Alice's tone in Bob's mix");
    expect(recentToneShare(bob.audio.received, 440, 48_000)).toBeGreaterThan(0.8);
    expect(
      await bob.next('MEETING_PARTICIPANT_TALKING', (event) => event.userId === ids.alice),
    ).toMatchObject({
      isTalking: true,
    });
    // The dominant speaker travels the same way, media node to API nodes.
    expect(await bob.next('MEETING_DOMINANT_SPEAKER', (event) => event.userId === ids.alice)).toMatchObject({
      meetingId,
    });

    // Someone joining through either API node learns at once that Alice is talking: every API node
    // knows, whichever one told the participants.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const carol = await userOn(proxy.url, ids.carol);
      people.push(carol);
      expect((await join(carol)).status).toBe(200);
      expect(
        await carol.next(
          'MEETING_PARTICIPANT_TALKING',
          (event) => event.userId === ids.alice && event.meetingId === meetingId,
        ),
      ).toMatchObject({ isTalking: true });
      expect(
        await carol.next(
          'MEETING_DOMINANT_SPEAKER',
          (event) => event.userId === ids.alice && event.meetingId === meetingId,
        ),
      ).toBeDefined();
      expect((await carol.call('POST', `/meetings/${meetingId}/leave`)).status).toBe(204);
    }

    // The API node of Alice's session dies: Bob is told Alice left, and his media keeps flowing.
    await (nodes.find((node) => node.name === alice.socketNode) as ClusterNode).kill('SIGKILL');
    expect(await bob.next('MEETING_PARTICIPANT_LEFT', (event) => event.userId === ids.alice)).toMatchObject({
      meetingId,
    });
    const participants = (await bob.call('GET', `/meetings/${meetingId}`)).body.participants;
    expect(participants.map((participant: { userId: string }) => participant.userId)).toEqual([ids.bob]);
    expect(bob.audio.peer.connectionState).toBe('connected');

    // The hosting media node dies: the meeting is stopped with a reason, and a new start uses the other.
    const host = nodes.find((node) => node.name === hosting) as ClusterNode;
    await host.kill('SIGKILL');
    expect(await bob.next('MEETING_STOPPED', (event) => event.meetingId === meetingId)).toMatchObject({
      reason: 'media_server_failed',
    });
    const survivor = nodes.find((node) => node.name === bob.socketNode) as ClusterNode;
    const health = (await (await fetchHealth(survivor.url)).json()) as { dependencies: JsonObject[] };
    const media = health.dependencies.find((entry) => entry.name === 'meetings-media');
    expect(media?.details).toMatchObject({ placement: 'media-nodes', mediaNodes: 1 });
    expect((await bob.call('POST', `/meetings/${meetingId}/start`)).status).toBe(200);
    expect((await join(bob)).status).toBe(200);
    const moved = await redis.get(`${prefix}meeting-media:${meetingId}`);
    expect(moved).not.toBe(hosting);
    await bob.audio.close();
    bob.audio = new AudioTestClient();
    bob.skipReceived();
    await connectAudio(bob, meetingId);
  }, 180_000);
});
