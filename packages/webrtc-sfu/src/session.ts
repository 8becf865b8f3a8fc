import type { RTCPeerConnection } from 'werift';
import { AudioConnection } from './audio-connection.js';
import type { ProbeStats } from './bandwidth/prober.js';
import { startPublisherFeedback } from './bandwidth/publisher-feedback.js';
import type { Consumer } from './consumer.js';
import { SfuError } from './errors.js';
import type { SfuOptions } from './options.js';
import { answerIceRestart, createPeer, negotiate, setLocalDescriptionQuietly } from './peer-factory.js';
import { Producer, type StreamKind } from './producer.js';
import type { RouterInternals } from './router-internals.js';
import { trackLossesPerStream } from './rtp/per-stream-nack.js';
import { repairSimulcastLayers } from './rtp/simulcast-retransmissions.js';
import { announceAddresses } from './sdp/announce-addresses.js';
import { isIceRestartOffer } from './sdp/ice-restart.js';
import { withoutSimulcastSsrcs } from './sdp/simulcast-ssrcs.js';
import { validateSdp } from './sdp/validate-sdp.js';
import {
  type StreamRef,
  type SubscribedStream,
  type SubscribeRef,
  SubscriptionConnection,
  type SubscriptionOffer,
} from './subscription-connection.js';
import { TypedEmitter } from './typed-events.js';

/** Events of a {@link Session}. */
export interface SessionEvents extends Record<string, unknown[]> {
  /** A stream this participant watched ended because its publisher left or stopped publishing. */
  subscriptionended: [SubscribedStream];
  /** The session and all its connections were closed. */
  close: [];
}

/** The changes of a {@link Session.updateSubscriptions} call. */
export interface SubscriptionUpdate {
  /** Streams to watch; one already watched takes its new preferred `quality` when given. */
  subscribe: SubscribeRef[];
  unsubscribe: StreamRef[];
  /**
   * Restart ICE on the subscribe connection: the offer carries new ICE credentials, for a client
   * whose network changed or whose connection went `disconnected`/`failed`. @default false
   */
  iceRestart?: boolean;
}

const streamKinds: readonly string[] = ['video', 'screen'];

/**
 * One participant in a router. It owns the participant's werift connections: the audio connection
 * (client offers; the mix of everyone else comes back), one publish connection per published kind
 * (client offers), and one subscribe connection (SFU offers). Negotiations of one session run one
 * at a time, in call order.
 */
export class Session extends TypedEmitter<SessionEvents> {
  readonly #router: RouterInternals;
  readonly #options: SfuOptions;
  readonly #publishers = new Map<
    StreamKind,
    { peer: RTCPeerConnection; producer: Producer; stopFeedback: () => void }
  >();
  readonly #subscriptions: SubscriptionConnection;
  #audio: AudioConnection | undefined;
  #audioEnabled = false;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** @internal Sessions are made by {@link Router.createSession}. */
  constructor(
    /** The participant, e.g. the user id. */
    readonly participantId: string,
    router: RouterInternals,
  ) {
    super();
    this.#router = router;
    this.#options = router.options;
    this.#subscriptions = new SubscriptionConnection(
      participantId,
      router.options,
      router.totals,
      (consumer: Consumer) => {
        this.emit('subscriptionended', {
          participantId: consumer.producer.participantId,
          kind: consumer.producer.kind,
          mid: consumer.mid ?? '',
        });
      },
    );
  }

  /** Whether {@link Session.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Whether this participant is heard by the others. Starts `false`, like the original's muted join. */
  get audioEnabled(): boolean {
    return this.#audioEnabled;
  }

  /** This participant's published streams. */
  get producers(): Producer[] {
    return [...this.#publishers.values()].map((entry) => entry.producer);
  }

  /** The streams this participant watches. */
  get consumers(): Consumer[] {
    return this.#subscriptions.consumers;
  }

  /** The bandwidth estimate of this participant's subscribe connection in bit/s, if it reported any. */
  get subscriptionBandwidth(): number | undefined {
    return this.#subscriptions.bandwidthEstimate;
  }

  /** Counters of the bandwidth probes of this participant's subscribe connection. */
  get subscriptionProbes(): ProbeStats {
    return this.#subscriptions.probeStats;
  }

  /**
   * How long `consumer` (one of {@link Session.consumers}) waits after a step down or a failed
   * bandwidth probe before it may climb to a higher layer again, ms.
   */
  upgradeHoldMs(consumer: Consumer): number {
    return this.#subscriptions.upgradeHoldMs(consumer);
  }

  /** Re-picks the simulcast layer of every watched stream from the bandwidth estimate now. */
  allocateLayers(): void {
    this.#subscriptions.allocate();
  }

  /**
   * Answers the client's audio offer, replacing an earlier audio connection. The answer carries
   * the mix of every other unmuted participant. An offer of the same client connection with new ICE
   * credentials (an ICE restart) is answered on the existing connection instead.
   * @throws SfuError `invalid_sdp`, `unsupported_media` (not one Opus audio section), `negotiation_failed`, `closed`.
   */
  answerAudioOffer(offer: string): Promise<string> {
    const { summary } = validateSdp(offer, 'audio-offer', { maxBytes: this.#options.limits.sdpBytes });
    const direction = summary.media[0]?.direction ?? 'sendrecv';
    return this.#serialize(async () => {
      if (this.#audio?.restartsIce(offer)) return this.#audio.answerIceRestart(offer, this.#options.ice);
      this.#audio?.close();
      const audio = new AudioConnection(
        this.participantId,
        this.#router.mixer,
        this.#options.ice,
        this.#router.totals,
        this.#options.srtp,
      );
      this.#audio = audio;
      this.#router.mixer.setMuted(this.participantId, !this.#audioEnabled);
      try {
        const answer = await audio.answer(offer, direction, this.#options.ice);
        this.#router.mixer.setMuted(this.participantId, !this.#audioEnabled);
        this.#router.mixerChanged();
        return answer;
      } catch (error) {
        audio.close();
        throw error;
      }
    });
  }

  /** Unmutes or mutes this participant in everyone else's mix. Returns whether the state changed. */
  setAudioEnabled(enabled: boolean): boolean {
    this.#assertOpen();
    if (this.#audioEnabled === enabled) return false;
    this.#audioEnabled = enabled;
    this.#router.mixer.setMuted(this.participantId, !enabled);
    return true;
  }

  /**
   * Answers the client's offer to publish its camera or screen, replacing an earlier publish
   * connection of that kind; subscribers continue at the new connection's next keyframe. Publishing
   * enables the stream. An offer of the same client connection with new ICE credentials (an ICE
   * restart) is answered on the existing connection instead, keeping its stream.
   * @throws SfuError `invalid_sdp`, `unsupported_media` (not one sent VP8 video section), `negotiation_failed`, `closed`.
   */
  publish(kind: StreamKind, clientOffer: string): Promise<string> {
    this.#assertKind(kind);
    validateSdp(clientOffer, 'publish-offer', { maxBytes: this.#options.limits.sdpBytes });
    // Simulcast layers are known by rid; listed SSRCs would cost Firefox's first layer.
    const offer = withoutSimulcastSsrcs(clientOffer);
    return this.#serialize(async () => {
      const current = this.#publishers.get(kind)?.peer;
      if (current !== undefined && isIceRestartOffer(current.remoteDescription?.sdp, offer)) {
        const sdp = await answerIceRestart(current, this.#options.ice, offer);
        return announceAddresses(sdp, this.#options.ice.announcedAddresses);
      }
      const peer = createPeer(this.#options.ice, 'video', 'publish', this.#options.srtp.native);
      try {
        const sdp = await this.#answerPublish(peer, kind, offer);
        return announceAddresses(sdp, this.#options.ice.announcedAddresses);
      } catch (error) {
        peer.close().catch(() => {});
        throw error;
      }
    });
  }

  /**
   * Enables or disables a published stream; while disabled nothing of it is forwarded. Returns
   * whether the state changed.
   * @throws SfuError `stream_not_found` when this participant never published that kind, `closed`.
   */
  setStreamEnabled(kind: StreamKind, enabled: boolean): boolean {
    this.#assertOpen();
    this.#assertKind(kind);
    const producer = this.#publishers.get(kind)?.producer;
    if (producer === undefined) {
      if (!enabled) return false;
      throw new SfuError(
        'stream_not_found',
        `expected a published ${kind} stream to enable but ${this.participantId} has none`,
      );
    }
    return enabled ? producer.resume() : producer.pause();
  }

  /**
   * Changes what this participant watches and returns the SFU's new offer with the mid of each
   * stream. Apply the client's answer with {@link Session.acceptSubscriptionAnswer}.
   * @throws SfuError `stream_not_found` for a stream nobody publishes, `limit_exceeded`, `negotiation_failed`, `closed`.
   */
  updateSubscriptions(update: SubscriptionUpdate): Promise<SubscriptionOffer> {
    this.#assertOpen();
    return this.#serialize(async () => {
      const producers = update.subscribe.map((stream) => {
        this.#assertKind(stream.kind);
        const producer = this.#router.findProducer(stream.participantId, stream.kind);
        if (producer === undefined) {
          throw new SfuError(
            'stream_not_found',
            `expected ${stream.participantId} to publish ${stream.kind} but it does not`,
            {
              details: { participantId: stream.participantId, kind: stream.kind },
            },
          );
        }
        return { producer, quality: stream.quality };
      });
      return this.#subscriptions.update(producers, update.unsubscribe, update.iceRestart === true);
    });
  }

  /**
   * Applies the client's answer to the last subscription offer; forwarding starts at the next keyframe.
   * @throws SfuError `invalid_state` without a pending offer, `invalid_sdp`, `unsupported_media`, `negotiation_failed`, `closed`.
   */
  acceptSubscriptionAnswer(answer: string): Promise<void> {
    this.#assertOpen();
    return this.#serialize(() => this.#subscriptions.accept(answer));
  }

  /** Closes every connection, producer and consumer of this participant. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#audio?.close();
    this.#router.mixer.remove(this.participantId);
    this.#router.mixerChanged();
    for (const { peer, producer, stopFeedback } of this.#publishers.values()) {
      stopFeedback();
      this.#router.removeProducer(producer);
      producer.close();
      peer.close().catch(() => {});
    }
    this.#publishers.clear();
    this.#subscriptions.close();
    this.#router.removeSession(this);
    this.emit('close');
    this.removeAllListeners();
  }

  async #answerPublish(peer: RTCPeerConnection, kind: StreamKind, offer: string): Promise<string> {
    peer.onTrack.subscribe((track) => {
      const transceiver = peer
        .getTransceivers()
        .find((candidate) => candidate.receiver.tracks.includes(track));
      const producer = this.#publishers.get(kind)?.producer;
      if (transceiver !== undefined && producer !== undefined) producer.attachReceiver(transceiver.receiver);
    });
    await negotiate('apply the publish offer', () =>
      peer.setRemoteDescription({ type: 'offer', sdp: offer }),
    );
    const sdp = await negotiate('answer the publish offer', async () => {
      await setLocalDescriptionQuietly(peer, this.#options.ice, await peer.createAnswer());
      return peer.localDescription?.sdp ?? '';
    });
    const previous = this.#publishers.get(kind);
    const producer =
      previous?.producer ??
      new Producer(this.participantId, kind, {
        keyframeRequestIntervalMs: this.#options.limits.keyframeRequestIntervalMs,
        totals: this.#router.totals,
      });
    // Congestion feedback, NACKs per SSRC, and the retransmissions that repair simulcast losses.
    const feedback = peer
      .getTransceivers()
      .flatMap((transceiver) => [
        startPublisherFeedback(transceiver),
        trackLossesPerStream(transceiver.receiver),
        repairSimulcastLayers(transceiver, (rid) => producer.noteRetransmission(rid)),
      ]);
    const stopFeedback = () => {
      for (const stop of feedback) stop?.();
    };
    this.#publishers.set(kind, { peer, producer, stopFeedback });
    previous?.stopFeedback();
    previous?.peer.close().catch(() => {});
    for (const transceiver of peer.getTransceivers()) producer.attachReceiver(transceiver.receiver);
    producer.resume();
    if (previous === undefined) this.#router.addProducer(producer);
    return sdp;
  }

  #serialize<T>(action: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      this.#assertOpen();
      return action();
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  #assertOpen(): void {
    if (this.#closed) throw new SfuError('closed', `the session of ${this.participantId} is closed`);
  }

  #assertKind(kind: string): void {
    if (!streamKinds.includes(kind)) {
      throw new SfuError(
        'unsupported_media',
        `expected a stream kind of video or screen but received ${JSON.stringify(kind)}`,
      );
    }
  }
}
