import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Router, type Sfu } from '../src/index.js';
import { AudioTestClient, loopbackSfuOptions, recentToneShare, waitFor } from '../src/testing/index.js';

let sfu: Sfu;
const clients: AudioTestClient[] = [];

afterEach(async () => {
  sfu?.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function join(router: Router, participantId: string): Promise<AudioTestClient> {
  const client = new AudioTestClient(undefined, { statesLevel: true });
  clients.push(client);
  const session = router.createSession(participantId);
  await client.acceptAnswer(await session.answerAudioOffer(await client.createOffer()));
  await waitFor(() => client.peer.connectionState === 'connected', `${participantId} connected`);
  session.setAudioEnabled(true);
  return client;
}

describe('audio bridge with more senders than mixedSpeakers', () => {
  it('mixes the two loudest, does not decode the quiet third from its stated level, and mixes it once a loud one stops', async () => {
    sfu = createSfu({ ...loopbackSfuOptions, audio: { mixedSpeakers: 2 } });
    const router = sfu.createRouter();
    const loudLow = await join(router, 'loud-low');
    const loudHigh = await join(router, 'loud-high');
    const quiet = await join(router, 'quiet');
    const listener = await join(router, 'listener');
    loudLow.startTone(440, 8_000);
    loudHigh.startTone(1_000, 8_000);
    await waitFor(() => recentToneShare(listener.received, 1_000, 48_000) > 0.3, 'both loud tones mixed');
    // 6 dB quieter: left out, and known from its stated level only.
    quiet.startTone(700, 4_000);
    const skippedAt = router.audioStats.framesSkipped;
    await waitFor(() => router.audioStats.framesSkipped > skippedAt + 50, 'quiet frames left undecoded');
    const heardNow = listener.received.length;
    await waitFor(() => listener.received.length > heardNow + 40, 'the listener hears on');
    expect(recentToneShare(listener.received, 700, 48_000)).toBeLessThan(0.02);
    expect(recentToneShare(listener.received, 440, 48_000)).toBeGreaterThan(0.3);
    expect(recentToneShare(listener.received, 1_000, 48_000)).toBeGreaterThan(0.3);

    loudHigh.stopTone();
    await waitFor(() => recentToneShare(listener.received, 700, 48_000) > 0.1, 'the quiet tone mixed');
    expect(recentToneShare(listener.received, 440, 48_000)).toBeGreaterThan(0.3);
    const skippedAfter = router.audioStats.framesSkipped;
    const decodedAfter = router.audioStats.framesDecoded;
    await waitFor(() => router.audioStats.framesDecoded > decodedAfter + 100, 'decoding goes on');
    // Two senders, two places: nobody is left out any more.
    expect(router.audioStats.framesSkipped).toBe(skippedAfter);
  });
});
