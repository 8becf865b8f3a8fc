import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AudioTestClient,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '@collab-suite/webrtc-sfu/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { chatClientFor, type EventsClient, openEvents, users } from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';

const guard = fileURLToPath(new URL('../support/network-guard.mjs', import.meta.url));

interface GuardEntry {
  kind: 'loaded' | 'dns' | 'udp';
  mainThread?: boolean;
  hostname?: string;
  address?: string;
}

/** The candidates of a client's SDP on 127.0.0.1 only, so the server is never given another address. */
function loopbackCandidatesOnly(sdp: string): string {
  return sdp
    .split('\r\n')
    .filter((line) => !line.startsWith('a=candidate:') || line.split(' ')[4] === '127.0.0.1')
    .join('\r\n');
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The server as `pnpm start` runs it (media on its worker thread), with the network guard preloaded. */
async function startGuardedServer(env: Record<string, string> = {}) {
  const log = path.join(mkdtempSync(path.join(tmpdir(), 'collab-guard-')), 'network.jsonl');
  writeFileSync(log, '');
  const node: ClusterNode = await startClusterNode(
    'guarded',
    {
      AUTH_JWT_SECRET: testJwtSecret,
      NETWORK_GUARD_LOG: log,
      // Loopback is where the test's clients are; nothing else about ICE is configured.
      MEETING_ICE_HOST_ADDRESSES: '127.0.0.1',
      ...env,
    },
    { nodeArguments: ['--import', guard] },
  );
  cleanups.push(() => node.kill('SIGTERM'));
  const token = (userId: string) => signLocalToken(testJwtSecret, { userId });
  const entries = (): GuardEntry[] =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as GuardEntry);
  return {
    node,
    as: chatClientFor(node.url, token),
    events: async (userId: string) => openEvents(node.url, await token(userId)),
    entries,
  };
}

async function meetingOf(server: Awaited<ReturnType<typeof startGuardedServer>>) {
  const ids = users('alice', 'bob', 'carol');
  const alice = server.as(ids.alice);
  const bob = server.as(ids.bob);
  const aliceEvents = await server.events(ids.alice);
  const bobEvents = await server.events(ids.bob);
  cleanups.push(async () => {
    await aliceEvents.close();
    await bobEvents.close();
  });
  const room = await alice('POST', '/rooms', {
    json: { type: 'group', name: 'Quiet', membersIds: [ids.bob, ids.carol] },
  });
  const meeting = await alice('POST', '/meetings', { json: { roomId: room.body.id, name: 'Quiet' } });
  const meetingId: string = meeting.body.id;
  const started = await alice('POST', `/meetings/${meetingId}/start`);
  expect(started.status, JSON.stringify([room.body, meeting.body, started.body])).toBe(200);
  for (const [call, events] of [
    [alice, aliceEvents],
    [bob, bobEvents],
  ] as const) {
    const joined = await call('POST', `/meetings/${meetingId}/join`, {
      json: { audioStreamEnabled: true, videoStreamEnabled: true },
      headers: { 'queue-id': String(events.messages[0]?.queueId) },
    });
    expect(joined.status).toBe(200);
  }
  return { ids, alice, bob, aliceEvents, bobEvents, meetingId };
}

const event = (events: EventsClient, type: string, timeoutMs = 30_000) =>
  events.next((message) => message.type === type, timeoutMs);

describe('the media process on its default configuration', () => {
  it('resolves no outside name and sends no datagram beyond loopback through a published and watched meeting', async () => {
    const server = await startGuardedServer();
    const { ids, alice, bob, aliceEvents, bobEvents, meetingId } = await meetingOf(server);

    const aliceAudio = new AudioTestClient();
    const bobAudio = new AudioTestClient();
    const publisher = new VideoTestPublisher({ payloadType: 120 });
    const subscriber = new VideoTestSubscriber();
    cleanups.push(async () => {
      await Promise.all([aliceAudio, bobAudio, publisher, subscriber].map((client) => client.close()));
    });
    for (const [call, events, client] of [
      [alice, aliceEvents, aliceAudio],
      [bob, bobEvents, bobAudio],
    ] as const) {
      const offered = await call('PUT', `/meetings/${meetingId}/audio/offer`, {
        json: { sdp: loopbackCandidatesOnly(await client.createOffer()) },
      });
      expect(offered.status).toBe(204);
      await client.acceptAnswer((await event(events, 'MEETING_AUDIO_ANSWERED')).sdp);
    }
    expect((await alice('PUT', `/meetings/${meetingId}/audio`, { json: { enabled: true } })).status).toBe(
      204,
    );

    await alice('PUT', `/meetings/${meetingId}/media`, {
      json: { type: 'video', enabled: true, sdp: loopbackCandidatesOnly(await publisher.createOffer()) },
    });
    await publisher.acceptAnswer((await event(aliceEvents, 'MEETING_SDP_ANSWERED')).sdp);
    publisher.start({ bitrate: 200_000, keyframeInterval: 30 });
    await bob('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [{ userId: ids.alice, type: 'video' }], unsubscribe: [] },
    });
    const offer = await event(bobEvents, 'MEETING_SDP_OFFERED');
    await bob('PUT', `/meetings/${meetingId}/media/answer`, {
      json: { sdp: loopbackCandidatesOnly(await subscriber.answer(offer.sdp)) },
    });
    aliceAudio.startTone(440);
    await waitFor(() => subscriber.packets.length > 30, 'video forwarded to bob', 30_000);
    await waitFor(() => bobAudio.packetsReceived > 30, 'mixed audio at bob', 30_000);

    const entries = server.entries();
    // The guard ran in the main thread and in the media worker, so what it did not see did not happen.
    const loadedIn = new Set(
      entries.filter((entry) => entry.kind === 'loaded').map((entry) => entry.mainThread),
    );
    expect(loadedIn).toEqual(new Set([true, false]));
    expect(entries.filter((entry) => entry.kind !== 'loaded')).toEqual([]);
  });

  it('asks the STUN server named in MEETING_SFU_STUN_SERVERS, and only then', async () => {
    const server = await startGuardedServer({ MEETING_SFU_STUN_SERVERS: 'stun:stun.example.org:3478' });
    const { alice, aliceEvents, meetingId } = await meetingOf(server);
    const aliceAudio = new AudioTestClient();
    cleanups.push(() => aliceAudio.close());
    await alice('PUT', `/meetings/${meetingId}/audio/offer`, {
      json: { sdp: loopbackCandidatesOnly(await aliceAudio.createOffer()) },
    });
    // The guard refuses the lookup, so gathering goes on without a server-reflexive candidate.
    expect((await event(aliceEvents, 'MEETING_AUDIO_ANSWERED')).sdp).toMatch(/typ host/);
    const outside = server.entries().filter((entry) => entry.kind !== 'loaded');
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.every((entry) => entry.kind === 'dns' && entry.hostname === 'stun.example.org')).toBe(
      true,
    );
    expect(server.node.process.exitCode).toBe(null);
  });
});
