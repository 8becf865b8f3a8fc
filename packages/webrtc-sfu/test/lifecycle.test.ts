import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, isSfuError, type Sfu, SfuError } from '../src/index.js';
import {
  AudioTestClient,
  loopbackSfuOptions,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';

let sfu: Sfu;
const clients: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  sfu?.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function rejection(promise: Promise<unknown>): Promise<SfuError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof SfuError)) throw new Error(`expected an SfuError but got ${String(error)}`);
  return error;
}

describe('router lifecycle', () => {
  it('closing a router closes every session, producer, consumer and connection', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter('meeting');
    const alice = router.createSession('alice');
    const bob = router.createSession('bob');
    const publisher = new VideoTestPublisher();
    const subscriber = new VideoTestSubscriber();
    const listener = new AudioTestClient();
    clients.push(publisher, subscriber, listener);
    await publisher.acceptAnswer(await alice.publish('video', await publisher.createOffer()));
    const offer = await bob.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'video' }],
      unsubscribe: [],
    });
    await bob.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
    await listener.acceptAnswer(await bob.answerAudioOffer(await listener.createOffer()));
    publisher.start({ bitrate: 200_000 });
    await waitFor(
      () => subscriber.packets.length > 10 && listener.peer.connectionState === 'connected',
      'media flowing',
    );
    const producer = router.getProducer('alice', 'video');
    const consumer = bob.consumers[0];
    const closed: string[] = [];
    router.on('sessionclose', (session) => closed.push(session.participantId));

    router.close();
    router.close();

    expect(router.closed && alice.closed && bob.closed).toBe(true);
    expect(producer?.closed).toBe(true);
    expect(consumer?.closed).toBe(true);
    expect(closed.sort()).toEqual(['alice', 'bob']);
    expect(sfu.getRouter('meeting')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const afterClose = subscriber.packets.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(subscriber.packets.length).toBe(afterClose);
    expect(() => router.createSession('carol')).toThrow(expect.objectContaining({ code: 'closed' }));
    expect((await rejection(alice.publish('video', await new VideoTestPublisher().createOffer()))).code).toBe(
      'closed',
    );
  });

  it("a publisher leaving ends its subscribers' consumers and tells them which mid ended", async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const alice = router.createSession('alice');
    const bob = router.createSession('bob');
    const publisher = new VideoTestPublisher();
    const subscriber = new VideoTestSubscriber();
    clients.push(publisher, subscriber);
    await publisher.acceptAnswer(await alice.publish('screen', await publisher.createOffer()));
    const offer = await bob.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'screen' }],
      unsubscribe: [],
    });
    await bob.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
    const ended: unknown[] = [];
    bob.on('subscriptionended', (stream) => ended.push(stream));

    alice.close();

    expect(ended).toEqual([{ participantId: 'alice', kind: 'screen', mid: offer.streams[0]?.mid }]);
    expect(bob.consumers).toEqual([]);
    expect(router.getProducer('alice', 'screen')).toBeUndefined();
  });

  it('refuses a second session for the same participant and sessions past the limit', () => {
    sfu = createSfu({ ...loopbackSfuOptions, limits: { sessionsPerRouter: 2 } });
    const router = sfu.createRouter();
    router.createSession('alice');
    expect(() => router.createSession('alice')).toThrow(expect.objectContaining({ code: 'session_exists' }));
    router.createSession('bob');
    expect(() => router.createSession('carol')).toThrow(expect.objectContaining({ code: 'limit_exceeded' }));
    router.requireSession('bob').close();
    expect(router.createSession('carol').participantId).toBe('carol');
    expect(() => router.requireSession('bob')).toThrow(
      expect.objectContaining({ code: 'session_not_found' }),
    );
  });

  it('refuses subscriptions to streams nobody publishes and past the per-session limit', async () => {
    sfu = createSfu({ ...loopbackSfuOptions, limits: { subscriptionsPerSession: 1 } });
    const router = sfu.createRouter();
    const bob = router.createSession('bob');
    const missing = await rejection(
      bob.updateSubscriptions({ subscribe: [{ participantId: 'alice', kind: 'video' }], unsubscribe: [] }),
    );
    expect(missing.code).toBe('stream_not_found');
    for (const [id, kind] of [
      ['alice', 'video'],
      ['carol', 'screen'],
    ] as const) {
      const publisher = new VideoTestPublisher();
      clients.push(publisher);
      await publisher.acceptAnswer(
        await router.createSession(id).publish(kind, await publisher.createOffer()),
      );
    }
    await bob.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'video' }],
      unsubscribe: [],
    });
    const full = await rejection(
      bob.updateSubscriptions({ subscribe: [{ participantId: 'carol', kind: 'screen' }], unsubscribe: [] }),
    );
    expect(full.code).toBe('limit_exceeded');
    const swapped = await bob.updateSubscriptions({
      subscribe: [{ participantId: 'carol', kind: 'screen' }],
      unsubscribe: [{ participantId: 'alice', kind: 'video' }],
    });
    expect(swapped.streams).toEqual([{ participantId: 'carol', kind: 'screen', mid: '0' }]);
  });
});

describe('malformed and unsuitable SDP', () => {
  it.each([
    ['not SDP at all', 'hello', 'invalid_sdp', /start with "v=0"/],
    ['an empty string', '', 'invalid_sdp', /received an empty string/],
    [
      'no media section',
      'v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n',
      'invalid_sdp',
      /at least one "m="/,
    ],
    ['a broken media line', 'v=0\r\nm=audio nine RTP\r\n', 'invalid_sdp', /line 2 like "m=video/],
  ])('refuses %s with invalid_sdp', async (_name, sdp, code, message) => {
    sfu = createSfu(loopbackSfuOptions);
    const session = sfu.createRouter().createSession('alice');
    const error = await rejection(Promise.resolve().then(() => session.answerAudioOffer(sdp)));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('refuses a video offer on the audio connection and an audio offer for publishing', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const session = sfu.createRouter().createSession('alice');
    const videoOffer = await new VideoTestPublisher().createOffer();
    const audioClient = new AudioTestClient();
    clients.push(audioClient);
    const audioOffer = await audioClient.createOffer();
    const onAudio = await rejection(Promise.resolve().then(() => session.answerAudioOffer(videoOffer)));
    expect(onAudio.code).toBe('unsupported_media');
    expect(onAudio.message).toMatch(/to be audio for a audio-offer but received video/);
    const onVideo = await rejection(Promise.resolve().then(() => session.publish('video', audioOffer)));
    expect(isSfuError(onVideo, 'unsupported_media')).toBe(true);
  });

  it('refuses an SDP longer than limits.sdpBytes', async () => {
    sfu = createSfu({ ...loopbackSfuOptions, limits: { sdpBytes: 2_048 } });
    const session = sfu.createRouter().createSession('alice');
    const long = `v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n${'a=x:y\r\n'.repeat(400)}`;
    const error = await rejection(Promise.resolve().then(() => session.answerAudioOffer(long)));
    expect(error.code).toBe('invalid_sdp');
    expect(error.details).toEqual({ maxBytes: 2_048, bytes: Buffer.byteLength(long) });
  });

  it('refuses a subscription answer when no offer is pending', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const session = sfu.createRouter().createSession('bob');
    const error = await rejection(session.acceptSubscriptionAnswer('v=0\r\n'));
    expect(error.code).toBe('invalid_state');
  });
});
