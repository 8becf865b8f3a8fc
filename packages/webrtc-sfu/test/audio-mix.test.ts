import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Router, type Sfu, type TalkingChange } from '../src/index.js';
import {
  AudioTestClient,
  loopbackSfuOptions,
  recentToneShare,
  rms,
  waitFor,
  waitForQuiet,
} from '../src/testing/index.js';

let sfu: Sfu;
const clients: AudioTestClient[] = [];

afterEach(async () => {
  sfu?.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function join(router: Router, participantId: string): Promise<AudioTestClient> {
  const client = new AudioTestClient();
  clients.push(client);
  const session = router.createSession(participantId);
  await client.acceptAnswer(await session.answerAudioOffer(await client.createOffer()));
  await waitFor(() => client.peer.connectionState === 'connected', `${participantId} connected`);
  return client;
}

describe('audio bridge', () => {
  it("mixes A's tone into B's stream and C's, and nobody hears their own voice", async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const talking: TalkingChange[] = [];
    router.on('talking', (change) => talking.push(change));
    const alice = await join(router, 'alice');
    const bob = await join(router, 'bob');
    const carol = await join(router, 'carol');
    for (const id of ['alice', 'bob', 'carol']) router.requireSession(id).setAudioEnabled(true);
    alice.startTone(440);
    bob.startTone(1_000);

    await waitFor(
      () => bob.received.length > 60 && alice.received.length > 60 && carol.received.length > 60,
      'mixed audio',
    );
    const heardByBob = bob.samplesSince(bob.received.length - 40);
    expect(rms(heardByBob)).toBeGreaterThan(2_000);
    expect(recentToneShare(bob.received, 440, 48_000)).toBeGreaterThan(0.8);
    expect(recentToneShare(bob.received, 1_000, 48_000)).toBeLessThan(0.02);
    expect(recentToneShare(alice.received, 1_000, 48_000)).toBeGreaterThan(0.8);
    expect(recentToneShare(alice.received, 440, 48_000)).toBeLessThan(0.02);
    expect(recentToneShare(carol.received, 440, 48_000)).toBeGreaterThan(0.3);
    expect(recentToneShare(carol.received, 1_000, 48_000)).toBeGreaterThan(0.3);
    expect(talking).toContainEqual({ participantId: 'alice', talking: true });
    expect(talking).toContainEqual({ participantId: 'bob', talking: true });
    expect(talking.some((change) => change.participantId === 'carol')).toBe(false);
    const stats = sfu.stats();
    const heard = alice.received.length + bob.received.length + carol.received.length;
    expect(stats).toMatchObject({ routers: 1, sessions: 3, sessionsOpened: 3, videoPacketsForwarded: 0 });
    expect(stats.audioPacketsSent).toBeGreaterThanOrEqual(heard);
    // An Opus frame of the mix is at least a few bytes besides the 12-byte RTP header.
    expect(stats.audioBytesSent).toBeGreaterThan(stats.audioPacketsSent * 14);
  });

  it('leaves a muted participant out of the mix and reports that it stopped talking', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const talking: TalkingChange[] = [];
    router.on('talking', (change) => talking.push(change));
    const alice = await join(router, 'alice');
    const bob = await join(router, 'bob');
    router.requireSession('alice').setAudioEnabled(true);
    alice.startTone(440);
    await waitFor(() => bob.received.length > 20, 'audio before muting');
    await waitFor(() => talking.length > 0, 'talking');

    expect(router.requireSession('alice').setAudioEnabled(false)).toBe(true);
    expect(talking.at(-1)).toEqual({ participantId: 'alice', talking: false });
    // Packets in flight arrive however long a loaded machine takes; then nothing more comes.
    await waitForQuiet(() => bob.received.length, "Alice's audio at Bob after the mute");
  });

  it('sends nothing from a participant who joined but never unmuted (joins start muted)', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const alice = await join(router, 'alice');
    const bob = await join(router, 'bob');
    alice.startTone(440);
    // A bounded wait before asserting that nothing came: there is no event for packets never sent.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(router.requireSession('alice').audioEnabled).toBe(false);
    expect(bob.packetsReceived).toBe(0);
  });
});
