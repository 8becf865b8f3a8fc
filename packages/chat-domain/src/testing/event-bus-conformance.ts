import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventDelivery } from '../events.js';
import type { EventBus, ResyncSignal } from '../ports/event-bus.js';
import { waitUntil } from './fixtures.js';

/** Two handles on one bus backend: what one publishes the other's listeners receive. */
export interface EventBusPair {
  publisher: EventBus;
  subscriber: EventBus;
  /** For a networked backend: takes it away and brings it back, to test the bus across an outage. */
  outage?: {
    stop(): Promise<void>;
    start(): Promise<void>;
  };
}

const delivery = (userId: string, roomId: string, queueId?: string): EventDelivery => ({
  userId,
  ...(queueId ? { queueId } : {}),
  event: { type: 'ROOM_MUTED', roomId, sentDate: '2024-01-01T00:00:00.000Z' },
});

/**
 * Registers the behaviour every {@link EventBus} must have. `open` returns two handles sharing one
 * backend (the same object for an in-process bus, two connections for a networked one).
 */
export function describeEventBusConformance(name: string, open: () => Promise<EventBusPair>): void {
  describe(`EventBus conformance: ${name}`, () => {
    let pair: EventBusPair;
    beforeEach(async () => {
      pair = await open();
    });
    afterEach(async () => {
      await pair.publisher.close();
      await pair.subscriber.close();
    });

    it("delivers a user's events to that user's listeners only, in order", async () => {
      const alice = randomUUID();
      const bob = randomUUID();
      const received: EventDelivery[] = [];
      const bobReceived: EventDelivery[] = [];
      await pair.subscriber.subscribe(alice, (item) => received.push(item));
      await pair.subscriber.subscribe(bob, (item) => bobReceived.push(item));
      await pair.publisher.publish([
        delivery(alice, 'r1'),
        delivery(alice, 'r2', 'queue-1'),
        delivery(randomUUID(), 'r3'),
      ]);
      await waitUntil(() => received.length === 2, 5000, 'two deliveries');
      expect(received).toEqual([delivery(alice, 'r1'), delivery(alice, 'r2', 'queue-1')]);
      expect(bobReceived).toEqual([]);
    });

    it('feeds every listener of a user and stops one that unsubscribed', async () => {
      const alice = randomUUID();
      const first: EventDelivery[] = [];
      const second: EventDelivery[] = [];
      const subscription = await pair.subscriber.subscribe(alice, (item) => first.push(item));
      await pair.subscriber.subscribe(alice, (item) => second.push(item));
      await pair.publisher.publish([delivery(alice, 'r1')]);
      await waitUntil(() => first.length === 1 && second.length === 1, 5000, 'both listeners');
      await subscription.unsubscribe();
      await subscription.unsubscribe();
      await pair.publisher.publish([delivery(alice, 'r2')]);
      await waitUntil(() => second.length === 2, 5000, 'the remaining listener');
      expect(first.map((item) => item.event)).toEqual([delivery(alice, 'r1').event]);
    });

    it('keeps delivering to other listeners when one throws', async () => {
      const alice = randomUUID();
      const received: EventDelivery[] = [];
      await pair.subscriber.subscribe(alice, () => {
        throw new Error('listener failure');
      });
      await pair.subscriber.subscribe(alice, (item) => received.push(item));
      await pair.publisher.publish([delivery(alice, 'r1')]);
      await waitUntil(() => received.length === 1, 5000, 'the healthy listener');
    });

    it('accepts an empty batch', async () => {
      await pair.publisher.publish([]);
    });

    it('never tells a listener to resync while its backend answers', async () => {
      const alice = randomUUID();
      const received: EventDelivery[] = [];
      const signals: ResyncSignal[] = [];
      await pair.subscriber.subscribe(
        alice,
        (item) => received.push(item),
        (signal) => signals.push(signal),
      );
      await pair.publisher.publish([delivery(alice, 'r1')]);
      await waitUntil(() => received.length === 1, 5000, 'the delivery');
      expect(signals).toEqual([]);
    });

    it('accepts events while its backend is away and delivers them in order once it returns', async (context) => {
      const { outage } = pair;
      if (outage === undefined) return context.skip();
      const alice = randomUUID();
      const received: EventDelivery[] = [];
      await pair.subscriber.subscribe(alice, (item) => received.push(item));
      await outage.stop();
      await pair.publisher.publish([delivery(alice, 'r1'), delivery(alice, 'r2')]);
      await pair.publisher.publish([delivery(alice, 'r3')]);
      await outage.start();
      await waitUntil(() => received.length >= 3, 15_000, 'the kept deliveries');
      expect(received.map((item) => item.event)).toEqual(
        ['r1', 'r2', 'r3'].map((roomId) => delivery(alice, roomId).event),
      );
    });

    it('subscribes a listener while its backend is away: a resync, then events, once it returns', async (context) => {
      const { outage } = pair;
      if (outage === undefined) return context.skip();
      const alice = randomUUID();
      const received: EventDelivery[] = [];
      const signals: ResyncSignal[] = [];
      await outage.stop();
      await pair.subscriber.subscribe(
        alice,
        (item) => received.push(item),
        (signal) => signals.push(signal),
      );
      await outage.start();
      await waitUntil(() => signals.length > 0, 15_000, 'a resync signal');
      expect(signals[0]).toEqual({ reason: 'subscription_interrupted' });
      await pair.publisher.publish([delivery(alice, 'r1')]);
      await waitUntil(() => received.length === 1, 15_000, 'a delivery after the outage');
    });

    it('reports itself ready while its backend answers', async () => {
      expect(await pair.publisher.checkHealth()).toEqual({ ready: true });
      expect(await pair.subscriber.checkHealth()).toEqual({ ready: true });
    });
  });
}
