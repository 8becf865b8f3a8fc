import { afterEach } from 'vitest';
import {
  createSfu,
  type Router,
  type Sfu,
  type SfuOptionsInput,
  type SubscriptionOffer,
} from '../../src/index.js';
import { loopbackSfuOptions, type VideoTestPublisher } from '../../src/testing/index.js';

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
