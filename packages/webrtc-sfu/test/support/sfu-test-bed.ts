import { afterEach } from 'vitest';
import { RTP_EXTENSION_URI } from 'werift';
import {
  createSfu,
  type Router,
  type Sfu,
  type SfuOptionsInput,
  type SubscriptionOffer,
} from '../../src/index.js';
import { loopbackSfuOptions, VideoTestPublisher, VideoTestSubscriber } from '../../src/testing/index.js';

/** An SFU and the clients of one test, closed after each test of the file that made the bed. */
export interface SfuTestBed {
  /** Creates the test's SFU (loopback options unless given). */
  start(options?: SfuOptionsInput): Sfu;
  /** Closes `client` after the test. */
  track<Client extends { close(): Promise<void> }>(client: Client): Client;
}

/** Call at the top of a test file: registers the `afterEach` that closes what each test made. */
export function sfuTestBed(): SfuTestBed {
  let sfu: Sfu | undefined;
  const clients: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    sfu?.close();
    sfu = undefined;
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return {
    start: (options = loopbackSfuOptions) => {
      sfu = createSfu(options);
      return sfu;
    },
    track: (client) => {
      clients.push(client);
      return client;
    },
  };
}

/** `participantId` publishes video from `publisher` (answer applied). */
export async function publishVideo(
  router: Router,
  participantId: string,
  publisher: VideoTestPublisher,
): Promise<void> {
  const session = router.getSession(participantId) ?? router.createSession(participantId);
  await publisher.acceptAnswer(await session.publish('video', await publisher.createOffer()));
}

/** The SFU's offer for `participantId` to watch `to`'s video; the caller answers it. */
export function offerVideoSubscription(
  router: Router,
  participantId: string,
  to: string,
): Promise<SubscriptionOffer> {
  const session = router.getSession(participantId) ?? router.createSession(participantId);
  return session.updateSubscriptions({ subscribe: [{ participantId: to, kind: 'video' }], unsubscribe: [] });
}

/** Steps between consecutive 16-bit sequence numbers (RTP or transport-wide), across the wrap. */
export function sequenceSteps(numbers: ReadonlyArray<number | undefined>): number[] {
  return numbers.slice(1).map((value, index) => ((value ?? 0) - (numbers[index] ?? 0) + 0x1_0000) % 0x1_0000);
}

/** What {@link forwardToTransportCcSubscriber} set up. */
export interface ForwardedVideo {
  router: Router;
  publisher: VideoTestPublisher;
  subscriber: VideoTestSubscriber;
  /** The mid of alice's video in bob's subscription. */
  mid: string;
  /** The SFU's offer bob answered, as the subscriber applied it. */
  offer: string;
}

/**
 * Alice publishes 300 kbit/s of video (a keyframe a second) and bob, a subscriber with transport-wide
 * congestion control, watches it. `transportCcId` replaces the transport-wide extension's id in the
 * SFU's offer bob answers (the answer echoes it, and the SFU's sender takes the answer's ids).
 */
export async function forwardToTransportCcSubscriber(
  bed: SfuTestBed,
  options: { transportCcId?: number; sfu?: SfuOptionsInput } = {},
): Promise<ForwardedVideo> {
  const router = bed.start(options.sfu).createRouter('forwarding');
  const publisher = bed.track(new VideoTestPublisher({ payloadType: 120 }));
  await publishVideo(router, 'alice', publisher);
  publisher.start({ bitrate: 300_000, keyframeInterval: 1_000 });
  const subscriber = bed.track(new VideoTestSubscriber({ transportCc: true }));
  const offered = await offerVideoSubscription(router, 'bob', 'alice');
  const { transportCcId } = options;
  const offer =
    transportCcId === undefined
      ? offered.sdp
      : offered.sdp.replace(
          new RegExp(`a=extmap:\\d+ ${RTP_EXTENSION_URI.transportWideCC}`, 'g'),
          `a=extmap:${transportCcId} ${RTP_EXTENSION_URI.transportWideCC}`,
        );
  if (transportCcId !== undefined && !offer.includes(`a=extmap:${transportCcId} `)) {
    throw new Error(`the SFU's offer has no transport-wide extension to renumber to ${transportCcId}`);
  }
  await router.requireSession('bob').acceptSubscriptionAnswer(await subscriber.answer(offer));
  const mid = offered.streams.find((stream) => stream.participantId === 'alice')?.mid;
  if (mid === undefined) throw new Error('no stream in the offer');
  return { router, publisher, subscriber, mid, offer };
}
