import { describe, expect, it } from 'vitest';
import {
  delayStunResponses,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';
import { offerVideoSubscription, publishVideo, sfuTestBed } from './support/sfu-test-bed.js';

const bed = sfuTestBed();

describe('ICE consent freshness', () => {
  it('counts a consent response that a busy event loop handles seconds late', async () => {
    const router = bed.start().createRouter('meeting');
    const publisher = bed.track(new VideoTestPublisher());
    const subscriber = bed.track(new VideoTestSubscriber());
    await publishVideo(router, 'alice', publisher);
    const offer = await offerVideoSubscription(router, 'bob', 'alice');
    await router.requireSession('bob').acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
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
