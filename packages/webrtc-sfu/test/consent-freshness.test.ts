import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Sfu } from '../src/index.js';
import {
  delayStunResponses,
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

describe('ICE consent freshness', () => {
  it('counts a consent response that a busy event loop handles seconds late', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter('meeting');
    const alice = router.createSession('alice');
    const bob = router.createSession('bob');
    const publisher = new VideoTestPublisher();
    const subscriber = new VideoTestSubscriber();
    clients.push(publisher, subscriber);
    await publisher.acceptAnswer(await alice.publish('video', await publisher.createOffer()));
    const offer = await bob.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'video' }],
      unsubscribe: [],
    });
    await bob.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
    await waitFor(() => subscriber.peer.connectionState === 'connected', 'the subscriber connected');
    const pair = subscriber.peer.iceTransports[0]?.connection.nominated;
    if (pair === undefined) throw new Error('no nominated pair');

    // Three times werift's own response wait on loopback (2 x RTT + 200 ms, at least 500 ms).
    delayStunResponses(subscriber.peer, 1_500);
    const requestsBefore = pair.consentRequestsSent;
    const responsesBefore = pair.responsesReceived;
    await waitFor(() => pair.consentRequestsSent > requestsBefore, 'a consent request', 20_000);
    await waitFor(
      () => pair.responsesReceived > responsesBefore,
      'the late consent response counted (werift drops it after its response wait)',
      20_000,
    );

    expect(subscriber.peer.iceConnectionState).toBe('connected');
  });
});
