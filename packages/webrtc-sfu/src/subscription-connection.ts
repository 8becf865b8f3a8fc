import type { RTCPeerConnection, RTCRtpTransceiver } from 'werift';
import { Consumer } from './consumer.js';
import { SfuError } from './errors.js';
import type { SfuOptions } from './options.js';
import { createPeer, negotiate, setLocalDescriptionQuietly, startRestartedIce } from './peer-factory.js';
import type { Producer, StreamKind } from './producer.js';
import { announceAddresses } from './sdp/announce-addresses.js';
import { validateSdp } from './sdp/validate-sdp.js';
import type { SfuTotals } from './sfu-stats.js';

/** One stream of one participant. */
export interface StreamRef {
  participantId: string;
  kind: StreamKind;
}

/** Which transceiver mid carries which participant's stream in the subscriber's connection. */
export interface SubscribedStream extends StreamRef {
  mid: string;
}

/** The SFU's offer after a subscription change, with the streams it carries. */
export interface SubscriptionOffer {
  sdp: string;
  streams: SubscribedStream[];
}

/** The key of a stream in maps: `<participantId>/<kind>`, the original's feed id. */
export function streamKey(stream: StreamRef): string {
  return `${stream.participantId}/${stream.kind}`;
}

/**
 * A participant's subscribe connection: the SFU offers one send-only video transceiver per watched
 * stream and the client answers. Transceivers of ended subscriptions go inactive and are reused.
 */
export class SubscriptionConnection {
  readonly #subscriberId: string;
  readonly #options: SfuOptions;
  readonly #totals: SfuTotals;
  readonly #onConsumerClose: (consumer: Consumer) => void;
  readonly #consumers = new Map<string, { consumer: Consumer; transceiver: RTCRtpTransceiver }>();
  readonly #idle: RTCRtpTransceiver[] = [];
  #peer: RTCPeerConnection | undefined;
  #offerPending = false;
  #closed = false;

  constructor(
    subscriberId: string,
    options: SfuOptions,
    totals: SfuTotals,
    onConsumerClose: (consumer: Consumer) => void,
  ) {
    this.#subscriberId = subscriberId;
    this.#options = options;
    this.#totals = totals;
    this.#onConsumerClose = onConsumerClose;
  }

  /** The consumers of this subscriber, by stream key. */
  get consumers(): Consumer[] {
    return [...this.#consumers.values()].map((entry) => entry.consumer);
  }

  /** The werift connection once the first offer was made. */
  get peer(): RTCPeerConnection | undefined {
    return this.#peer;
  }

  /**
   * Applies unsubscriptions, then subscriptions, and returns a new offer; with `iceRestart` the
   * offer carries new ICE credentials (werift gathers again and checks new pairs once answered).
   */
  async update(
    subscribe: Producer[],
    unsubscribe: StreamRef[],
    iceRestart = false,
  ): Promise<SubscriptionOffer> {
    for (const stream of unsubscribe) this.#consumers.get(streamKey(stream))?.consumer.close();
    const added = subscribe.filter((producer) => !this.#consumers.has(streamKey(producer)));
    const limit = this.#options.limits.subscriptionsPerSession;
    if (this.#consumers.size + added.length > limit) {
      throw new SfuError(
        'limit_exceeded',
        `expected at most ${limit} subscribed streams per session but this change would make ${this.#consumers.size + added.length}`,
        { details: { limit } },
      );
    }
    this.#peer ??= createPeer(this.#options.ice, 'video');
    const peer = this.#peer;
    for (const producer of added) this.#attach(peer, producer);
    const sdp = await negotiate('create the subscription offer', async () => {
      await setLocalDescriptionQuietly(peer, this.#options.ice, await peer.createOffer({ iceRestart }));
      return peer.localDescription?.sdp ?? '';
    });
    this.#offerPending = true;
    return { sdp: announceAddresses(sdp, this.#options.ice.announcedAddresses), streams: this.streams() };
  }

  /** Applies the client's answer to the last offer. */
  async accept(answer: string): Promise<void> {
    const peer = this.#peer;
    if (peer === undefined || !this.#offerPending) {
      throw new SfuError(
        'invalid_state',
        'expected a subscription offer to answer but there is none pending',
      );
    }
    validateSdp(answer, 'subscribe-answer', {
      maxBytes: this.#options.limits.sdpBytes,
      expectedSections: peer.getTransceivers().length,
    });
    await negotiate('apply the subscription answer', () =>
      peer.setRemoteDescription({ type: 'answer', sdp: answer }),
    );
    startRestartedIce(peer);
    this.#offerPending = false;
    for (const { consumer } of this.#consumers.values()) consumer.producer.requestKeyframe();
  }

  /** The streams carried now, with their mids. */
  streams(): SubscribedStream[] {
    return [...this.#consumers.values()].map(({ consumer }) => ({
      participantId: consumer.producer.participantId,
      kind: consumer.producer.kind,
      mid: consumer.mid ?? '',
    }));
  }

  /** Closes every consumer and the connection. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const { consumer } of [...this.#consumers.values()]) consumer.close();
    this.#peer?.close().catch(() => {});
  }

  #attach(peer: RTCPeerConnection, producer: Producer): void {
    const reused = this.#idle.shift();
    const transceiver = reused ?? peer.addTransceiver('video', { direction: 'sendonly' });
    if (reused !== undefined) transceiver.setDirection('sendonly');
    const consumer = new Consumer(producer, this.#subscriberId, transceiver, {
      retransmissionPackets: this.#options.limits.retransmissionPackets,
      totals: this.#totals,
    });
    const key = streamKey(producer);
    this.#consumers.set(key, { consumer, transceiver });
    consumer.once('close', () => {
      this.#consumers.delete(key);
      if (this.#closed) return;
      transceiver.setDirection('inactive');
      this.#idle.push(transceiver);
      this.#onConsumerClose(consumer);
    });
  }
}
