import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Router, type Sfu, type SfuOptionsInput, type StreamQuality } from '../src/index.js';
import {
  type LimitBehaviour,
  layerFrameBase,
  loopbackSfuOptions,
  type ReceivedPacket,
  readSyntheticVp8,
  SimulcastTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';

let sfu: Sfu;
const clients: Array<{ close(): Promise<void> }> = [];

function track<T extends { close(): Promise<void> }>(client: T): T {
  clients.push(client);
  return client;
}

afterEach(async () => {
  sfu?.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** Deadline of each wait: generous, as the suite runs on a busy shared machine. */
const patient = 30_000;

/**
 * Quick allocation and a fast-growing estimate, so a subscriber on the low layer wants the next
 * one within a couple of seconds; the upgrade hold starts at 500 ms.
 */
const options = {
  ...loopbackSfuOptions,
  bandwidth: {
    allocationIntervalMs: 100,
    upgradeHoldMs: 500,
    increasePerSecond: 1,
    probe: { enabled: true },
  },
} satisfies SfuOptionsInput;

async function publishSimulcast(router: Router, participantId: string): Promise<void> {
  const session = router.createSession(participantId);
  const publisher = track(new SimulcastTestPublisher());
  await publisher.acceptAnswer(await session.publish('video', await publisher.createOffer()));
  publisher.start();
  const producer = router.getProducer(participantId, 'video');
  await waitFor(() => producer?.activeLayers().length === 3, 'three active layers at the SFU', patient);
}

/**
 * A subscriber with TWCC whose feedback pretends a link of `limit` bit/s from the start (none when
 * `undefined`), watching alice's video at `quality` (the SFU's default when not given).
 */
async function subscribeLimited(
  router: Router,
  participantId: string,
  limit: number | undefined,
  behaviour: LimitBehaviour,
  quality?: StreamQuality,
): Promise<{ subscriber: VideoTestSubscriber; mid: string }> {
  const session = router.createSession(participantId);
  const subscriber = track(new VideoTestSubscriber({ transportCc: true }));
  subscriber.transportFeedback?.limit(limit, behaviour);
  const offer = await session.updateSubscriptions({
    subscribe: [{ participantId: 'alice', kind: 'video', quality }],
    unsubscribe: [],
  });
  await session.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
  const mid = offer.streams[0]?.mid;
  if (mid === undefined) throw new Error('no stream in offer');
  return { subscriber, mid };
}

function layerOf(received: ReceivedPacket): number {
  const frame = readSyntheticVp8(received.packet.payload);
  if (frame === undefined) throw new Error('not a synthetic packet');
  return Math.floor(frame.frameNumber / layerFrameBase);
}

/** Layer of the last `count` packets on `mid` (received after `sinceMs`), if they all agree. */
function settledLayer(
  subscriber: VideoTestSubscriber,
  mid: string,
  count = 20,
  sinceMs = Number.NEGATIVE_INFINITY,
): number | undefined {
  const recent = subscriber.packets
    .filter((received) => received.mid === mid && received.receivedAtMs > sinceMs)
    .slice(-count);
  if (recent.length < count) return undefined;
  const layers = new Set(recent.map(layerOf));
  return layers.size === 1 ? [...layers][0] : undefined;
}

/**
 * Lifts `subscriber`'s pretended limit and waits until the packets on `mid` since then settle on
 * the high layer (packets of it that arrived before the stream settled low do not count); returns
 * when the limit was lifted, on the packets' clock.
 */
async function liftLimitUntilHighLayer(subscriber: VideoTestSubscriber, mid: string): Promise<number> {
  const liftedAt = performance.timeOrigin + performance.now();
  subscriber.transportFeedback?.limit(undefined);
  await waitFor(
    () => settledLayer(subscriber, mid, 20, liftedAt) === 2,
    'the high layer after the limit was lifted',
    patient,
  );
  return liftedAt;
}

describe('bandwidth probes before a climb', () => {
  it('probes with padding before climbing, and climbs once the probe comes back clean', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('probe-clean');
    await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribeLimited(router, 'bob', 200_000, 'loss');
    const bob = router.requireSession('bob');
    const consumer = bob.consumers[0];
    // The low layer, or paused: on a loaded machine the estimate may fall below the low layer too.
    await waitFor(
      () =>
        (bob.subscriptionBandwidth ?? Infinity) < 400_000 &&
        (consumer?.paused === true || consumer?.currentLayer?.rid === 'l'),
      'the low layer (or a pause) behind 200 kbit/s',
      patient,
    );

    const passedBefore = bob.subscriptionProbes.passed;
    const liftedAt = await liftLimitUntilHighLayer(subscriber, mid);

    const firstHigher = subscriber.packets.find(
      (received) => received.mid === mid && received.receivedAtMs > liftedAt && layerOf(received) > 0,
    );
    const firstPadding = subscriber.paddingArrivals.find((atMs) => atMs > liftedAt);
    expect(firstHigher).toBeDefined();
    expect(firstPadding).toBeDefined();
    expect(firstPadding ?? Infinity).toBeLessThan(firstHigher?.receivedAtMs ?? 0);
    expect(bob.subscriptionProbes.passed).toBeGreaterThan(passedBefore);
    expect(bob.subscriptionProbes.paddingPackets).toBeGreaterThan(0);
  }, 120_000);

  it('climbs back on probes above the estimate once a limit is lifted, where the estimate alone would grow too slowly', async () => {
    // 1 % a second: from the low layer's ~100 kbit/s the estimate alone would need minutes to
    // reach what the high layer needs.
    sfu = createSfu({ ...options, bandwidth: { ...options.bandwidth, increasePerSecond: 0.01 } });
    const router = sfu.createRouter('probe-explore');
    await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribeLimited(router, 'bob', 200_000, 'loss');
    const bob = router.requireSession('bob');
    await waitFor(() => settledLayer(subscriber, mid) === 0, 'the low layer behind 200 kbit/s', patient);

    const estimateBefore = bob.subscriptionBandwidth ?? 0;
    const passedBefore = bob.subscriptionProbes.passed;
    const liftedAt = await liftLimitUntilHighLayer(subscriber, mid);
    const elapsedSeconds = (performance.timeOrigin + performance.now() - liftedAt) / 1000;
    // Two passed probes (low to middle, middle to high), each raising the estimate far beyond
    // what 1 % a second of growth gives in the time it took.
    expect(bob.subscriptionProbes.passed - passedBefore).toBeGreaterThanOrEqual(2);
    expect(bob.subscriptionBandwidth ?? 0).toBeGreaterThan(estimateBefore * 1.01 ** elapsedSeconds * 2);
  }, 120_000);

  it('climbs one layer per clean probe when the estimate allows two at once', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('probe-steps');
    await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribeLimited(router, 'bob', undefined, 'loss', 'low');
    const session = router.requireSession('bob');
    // The low layer (100 kbit/s) goes through unhindered while the estimate grows past what the
    // high layer needs: asking for high quality then allows two layers up at once.
    await waitFor(
      () => settledLayer(subscriber, mid) === 0 && (session.subscriptionBandwidth ?? 0) > 4_000_000,
      'the low layer and an estimate above 4 Mbit/s',
      patient,
    );
    const askedAt = performance.timeOrigin + performance.now();
    const passedBefore = session.subscriptionProbes.passed;
    const again = await session.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'video', quality: 'high' }],
      unsubscribe: [],
    });
    await session.acceptSubscriptionAnswer(await subscriber.answer(again.sdp));
    await waitFor(() => settledLayer(subscriber, mid, 20, askedAt) === 2, 'the high layer', patient);

    const above = subscriber.packets.filter(
      (received) => received.mid === mid && received.receivedAtMs > askedAt && layerOf(received) > 0,
    );
    expect(above[0] === undefined ? undefined : layerOf(above[0])).toBe(1);
    expect(session.subscriptionProbes.passed - passedBefore).toBeGreaterThanOrEqual(2);
  }, 120_000);

  for (const behaviour of ['loss', 'delay'] as const) {
    it(`stays on the low layer when the probe's feedback shows ${behaviour === 'loss' ? 'loss' : 'a growing delay'}, and holds back longer after each failed probe`, async () => {
      sfu = createSfu(options);
      const router = sfu.createRouter(`probe-${behaviour}`);
      await publishSimulcast(router, 'alice');
      const { subscriber, mid } = await subscribeLimited(router, 'bob', 200_000, behaviour);
      const bob = router.requireSession('bob');
      const consumer = bob.consumers[0];
      if (consumer === undefined) throw new Error('no consumer');
      await waitFor(() => settledLayer(subscriber, mid) === 0, 'the low layer behind 200 kbit/s', patient);
      const settledAt = subscriber.packets.length;
      const switchesBefore = consumer.stats.layerSwitches;
      const failedBefore = bob.subscriptionProbes.failed;
      const paddingBefore = subscriber.paddingArrivals.length;

      await waitFor(
        () => bob.subscriptionProbes.failed >= failedBefore + 2,
        'two failed probes while the estimate grew on the narrow link',
        patient,
      );
      expect(subscriber.paddingArrivals.length).toBeGreaterThan(paddingBefore);
      expect(consumer.stats.layerSwitches).toBe(switchesBefore);
      const since = subscriber.packets.slice(settledAt).filter((received) => received.mid === mid);
      expect(since.length).toBeGreaterThan(0);
      expect(new Set(since.map(layerOf))).toEqual(new Set([0]));
      expect(bob.upgradeHoldMs(consumer)).toBeGreaterThan(500);
      // Not above the low layer (a cut of the estimate may still pause it: that is not a probe's doing).
      expect(consumer.targetLayer?.rid ?? 'l').toBe('l');
    }, 120_000);
  }

  it('resumes a paused stream at its low layer behind a link that carries it, and keeps it there while probes for more fail', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('probe-resume');
    await publishSimulcast(router, 'alice');
    // 40 kbit/s carries no layer beside the audio reserve: the stream pauses.
    const { subscriber, mid } = await subscribeLimited(router, 'bob', 40_000, 'delay');
    const bob = router.requireSession('bob');
    const consumer = bob.consumers[0];
    if (consumer === undefined) throw new Error('no consumer');
    await waitFor(() => consumer.paused, 'the stream paused behind 40 kbit/s', patient);

    // 250 kbit/s carries the low layer (100 kbit/s), not the middle one (300 kbit/s).
    const liftedAt = performance.timeOrigin + performance.now();
    subscriber.transportFeedback?.limit(250_000, 'delay');
    await waitFor(
      () => settledLayer(subscriber, mid, 20, liftedAt) === 0,
      'the low layer again behind 250 kbit/s',
      patient,
    );
    const failedBefore = bob.subscriptionProbes.failed;
    const resumedAt = subscriber.packets.length;
    await waitFor(
      () => bob.subscriptionProbes.failed >= failedBefore + 2,
      'two failed probes of a climb above the low layer',
      patient,
    );
    expect(consumer.paused).toBe(false);
    expect(consumer.targetLayer?.rid).toBe('l');
    const since = subscriber.packets.slice(resumedAt).filter((received) => received.mid === mid);
    expect(since.length).toBeGreaterThan(0);
    expect(new Set(since.map(layerOf))).toEqual(new Set([0]));
  }, 120_000);

  it('resumes a stream the estimate paused on a probe once its link carries the low layer, where the estimate alone would grow too slowly', async () => {
    // 1 % a second: with nothing sent, the estimate alone would need minutes to reach the low layer.
    sfu = createSfu({ ...options, bandwidth: { ...options.bandwidth, increasePerSecond: 0.01 } });
    const router = sfu.createRouter('probe-resume-paused');
    await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribeLimited(router, 'bob', 40_000, 'delay');
    const bob = router.requireSession('bob');
    const consumer = bob.consumers[0];
    if (consumer === undefined) throw new Error('no consumer');
    await waitFor(() => consumer.paused, 'the stream paused behind 40 kbit/s', patient);

    const passedBefore = bob.subscriptionProbes.passed;
    const estimateBefore = bob.subscriptionBandwidth ?? 0;
    const liftedAt = performance.timeOrigin + performance.now();
    subscriber.transportFeedback?.limit(250_000, 'delay');
    await waitFor(
      () => settledLayer(subscriber, mid, 20, liftedAt) === 0,
      'the low layer again behind 250 kbit/s',
      patient,
    );
    const elapsedSeconds = (performance.timeOrigin + performance.now() - liftedAt) / 1000;
    expect(bob.subscriptionProbes.passed).toBeGreaterThan(passedBefore);
    expect(bob.subscriptionBandwidth ?? 0).toBeGreaterThan(estimateBefore * 1.01 ** elapsedSeconds * 2);
  }, 120_000);
});
