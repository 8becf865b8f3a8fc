import { randomUUID } from 'node:crypto';
import {
  GenericNack,
  type RTCRtpTransceiver,
  RTP_EXTENSION_URI,
  type RtcpPacket,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
  type RtpPacket,
  TransportWideCC,
} from 'werift';
import { type Producer, qualityLayerIndex, type StreamQuality } from './producer.js';
import type { ProducerLayer } from './producer-layer.js';
import { DirectRtpSender, type OutgoingRtpFields, type PaddingSent } from './rtp/direct-rtp-sender.js';
import { RetransmissionBuffer, type SentPacket } from './rtp/retransmission-buffer.js';
import { SequenceRewriter } from './rtp/sequence-rewriter.js';
import { type Vp8DescriptorFields, Vp8PictureRewriter } from './rtp/vp8-picture-rewriter.js';
import type { SfuTotals } from './sfu-stats.js';
import { TypedEmitter } from './typed-events.js';

/** Events of a {@link Consumer}. */
export interface ConsumerEvents extends Record<string, unknown[]> {
  /** The consumer stopped forwarding for good (unsubscribed, or its producer closed). */
  close: [];
}

/** Counters of a {@link Consumer}, for tests and monitoring. */
export interface ConsumerStats {
  packetsSent: number;
  nacksReceived: number;
  retransmissions: number;
  keyframeRequestsReceived: number;
  /** Times the forwarded layer changed (at a keyframe of the new layer). */
  layerSwitches: number;
}

/** Called for each packet sent with a transport-wide sequence number, for bandwidth estimation. */
export type PacketSentListener = (transportSequenceNumber: number, bytes: number, nowMs: number) => void;

/** An RTX payload (RFC 4588): the original sequence number, then the original payload. */
function withOriginalSequenceNumber(sent: SentPacket): Buffer {
  const payload = Buffer.allocUnsafe(2 + sent.payload.length);
  payload.writeUInt16BE(sent.sequenceNumber, 0);
  sent.payload.copy(payload, 2);
  return payload;
}

/** Counted in the totals as werift counted it: the fixed header, without extensions. */
const rtpHeaderSize = 12;
const pliCount = 1;
const firCount = 4;
/**
 * A packet sent (first or again) less than this long ago is not sent again for a NACK, whatever the
 * measured round trip: such a NACK crossed it, and a lost copy is asked for again later.
 */
const minimumResendIntervalMs = 10;

/**
 * Forwards one {@link Producer}'s stream to one subscriber's transceiver without transcoding. It
 * forwards one layer of a simulcast publisher (its target, set by the subscriber's bandwidth
 * allocation, or nothing while paused) and switches only at a keyframe of the new layer, asking
 * for one. It rewrites SSRC, payload type, sequence numbers, timestamps and the VP8 picture id and
 * TL0PICIDX so the subscriber sees one continuous stream, starts (and restarts after a pause or a
 * new source) at a keyframe, answers the subscriber's NACKs from its own retransmission buffer (as
 * RTX when negotiated), and passes the subscriber's keyframe requests to the producer for the
 * layer it forwards.
 */
export class Consumer extends TypedEmitter<ConsumerEvents> {
  /** Unique id of this consumer. */
  readonly id = randomUUID();
  /** Counters since creation. */
  readonly stats: ConsumerStats = {
    packetsSent: 0,
    nacksReceived: 0,
    retransmissions: 0,
    keyframeRequestsReceived: 0,
    layerSwitches: 0,
  };
  /** The subscriber's preferred quality: the highest layer it wants. */
  quality: StreamQuality;
  /** Set by the subscription connection when transport-wide congestion control is negotiated. */
  onPacketSent: PacketSentListener | undefined;
  readonly #transceiver: RTCRtpTransceiver;
  readonly #rewriter = new SequenceRewriter(90_000);
  readonly #pictures = new Vp8PictureRewriter();
  readonly #buffer: RetransmissionBuffer;
  /** The fields of the packet being forwarded, reused: the sender copies them into the header. */
  readonly #fields: OutgoingRtpFields = { sequenceNumber: 0, timestamp: 0, marker: false };
  /** The fields of the probe padding being sent, reused likewise. */
  readonly #paddingFields: OutgoingRtpFields = { sequenceNumber: 0, timestamp: 0, marker: false };
  readonly #direct: DirectRtpSender;
  readonly #totals: SfuTotals | undefined;
  readonly #restoreRtcp: () => void;
  readonly #stopReady: () => void;
  #waitingForKeyframe = true;
  #target: ProducerLayer | undefined;
  #current: ProducerLayer | undefined;
  #paused = false;
  #transportCc = false;
  #rtxSequenceNumber = Math.floor(Math.random() * 0x1_0000);
  #closed = false;

  constructor(
    /** The stream this consumer forwards. */
    readonly producer: Producer,
    /** The watching participant. */
    readonly subscriberId: string,
    transceiver: RTCRtpTransceiver,
    options: {
      retransmissionPackets: number;
      /** Encrypt with the native SRTP addon when installed (the SFU's `srtp.native`). */
      nativeSrtp: boolean;
      /** The SFU's totals, which count what this consumer sends. */
      totals?: SfuTotals;
      /** The preferred quality. @default 'high' */
      quality?: StreamQuality;
    },
  ) {
    super();
    this.quality = options.quality ?? 'high';
    this.#transceiver = transceiver;
    this.#totals = options.totals;
    this.#buffer = new RetransmissionBuffer(options.retransmissionPackets);
    this.#direct = new DirectRtpSender(transceiver.sender, { nativeSrtp: options.nativeSrtp });
    this.#restoreRtcp = this.#interceptRtcp();
    this.#stopReady = transceiver.sender.onReady.subscribe(() => this.requestKeyframe()).unSubscribe;
    producer.addConsumer(this);
    const layers = producer.activeLayers();
    const initial = layers.length > 0 ? layers : [...producer.layers];
    this.setTargetLayer(
      initial[Math.min(initial.length - 1, qualityLayerIndex(this.quality, initial.length))],
    );
  }

  /** The layer forwarded now (undefined before the first keyframe or while paused). */
  get currentLayer(): ProducerLayer | undefined {
    return this.#current;
  }

  /** The layer this consumer forwards or switches to at its next keyframe; undefined while paused. */
  get targetLayer(): ProducerLayer | undefined {
    return this.#target;
  }

  /** Whether the bandwidth allocation paused this stream for the subscriber. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Chooses the layer to forward: a different layer is switched to at its next keyframe (which is
   * requested now); `undefined` pauses forwarding at once.
   */
  setTargetLayer(layer: ProducerLayer | undefined): void {
    if (layer === undefined) {
      this.#paused = true;
      this.#target = undefined;
      this.#current = undefined;
      this.#waitingForKeyframe = true;
      return;
    }
    this.#paused = false;
    if (layer === this.#target) return;
    this.#target = layer;
    if (layer !== this.#current || this.#waitingForKeyframe) this.producer.requestKeyframe(layer);
  }

  /** Asks the publisher for a keyframe of the layer this consumer forwards or waits for. */
  requestKeyframe(): void {
    if (this.#target !== undefined) this.producer.requestKeyframe(this.#target);
  }

  /** @internal Re-reads what the answer negotiated (transport-wide congestion control). */
  refreshNegotiated(): void {
    this.#transportCc = this.#transceiver.headerExtensions.some(
      (extension) => extension.uri === RTP_EXTENSION_URI.transportWideCC,
    );
  }

  /** The transceiver mid that carries this stream in the subscriber's connection. */
  get mid(): string | null {
    return this.#transceiver.mid;
  }

  /** Whether {@link Consumer.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * @internal A packet from the producer's `layer`; `keyframe` says whether it starts a keyframe,
   * `descriptor` is its VP8 payload descriptor (read once for every consumer).
   */
  forward(
    packet: RtpPacket,
    keyframe: boolean,
    layer: ProducerLayer,
    descriptor: Vp8DescriptorFields | undefined,
  ): void {
    const sender = this.#transceiver.sender;
    if (this.#closed || sender.codec === undefined || sender.dtlsTransport?.state !== 'connected') return;
    if (layer !== this.#current || this.#waitingForKeyframe) {
      if (layer !== this.#target) return;
      if (!keyframe) {
        this.producer.requestKeyframe(layer);
        return;
      }
      if (this.#current !== undefined && this.#current !== layer) this.stats.layerSwitches += 1;
      this.#current = layer;
      this.#waitingForKeyframe = false;
      this.#rewriter.resync();
      this.#pictures.resync();
    }
    const { header, payload } = packet;
    if (payload.length === 0) {
      this.#rewriter.skip(header.sequenceNumber);
      return;
    }
    const nowMs = performance.now();
    const rewritten = this.#rewriter.rewrite(header.sequenceNumber, header.timestamp, nowMs);
    if (rewritten === undefined) return;
    const fields = this.#fields;
    fields.sequenceNumber = rewritten.sequenceNumber;
    fields.timestamp = rewritten.timestamp;
    fields.marker = header.marker;
    const forwarded = this.#pictures.rewrite(payload, descriptor);
    const transportSequenceNumber = this.#direct.send(fields, sender.codec.payloadType, forwarded, nowMs);
    if (transportSequenceNumber === null) return;
    this.#buffer.store(fields, forwarded, nowMs);
    this.stats.packetsSent += 1;
    const size = rtpHeaderSize + forwarded.length;
    if (this.#totals !== undefined) {
      this.#totals.videoPacketsForwarded += 1;
      this.#totals.videoBytesForwarded += size;
    }
    if (this.#transportCc && transportSequenceNumber !== undefined) {
      this.onPacketSent?.(transportSequenceNumber, size, nowMs);
    }
  }

  /**
   * @internal Sends one padding-only packet of a bandwidth probe on this stream's RTX SSRC, with the
   * next transport-wide sequence number, through the same direct path as the video (in sending
   * order, sealed alike); nothing without RTX, transport-cc or a connected transport. The result is
   * reused by the next call.
   */
  sendPadding(paddingBytes: number): PaddingSent | undefined {
    const sender = this.#transceiver.sender;
    const payloadType = this.#rtxPayloadType();
    if (this.#closed || payloadType === undefined || !this.#transportCc) return undefined;
    if (sender.dtlsTransport?.state !== 'connected') return undefined;
    const fields = this.#paddingFields;
    fields.sequenceNumber = this.#nextRtxSequenceNumber();
    // The timestamp of the last forwarded packet, as browsers stamp their RTX padding.
    fields.timestamp = this.#fields.timestamp;
    return this.#direct.sendPadding(fields, payloadType, paddingBytes, performance.now(), sender.rtxSsrc);
  }

  /** @internal The next forwarded packet starts a new run at a keyframe (new source or resume). */
  resync(): void {
    this.#waitingForKeyframe = true;
    const layers = this.producer.layers;
    if (this.#target !== undefined && !layers.includes(this.#target)) {
      this.#target = layers[Math.min(layers.length - 1, qualityLayerIndex(this.quality, layers.length))];
    }
    this.requestKeyframe();
  }

  /** Stops forwarding for good. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.producer.removeConsumer(this);
    this.#restoreRtcp();
    this.#stopReady();
    this.#buffer.clear();
    this.emit('close');
    this.removeAllListeners();
  }

  /**
   * Takes NACKs away from werift's sender (which would also answer them from its own cache) and
   * sees keyframe requests, then lets werift handle everything else.
   */
  #interceptRtcp(): () => void {
    const sender = this.#transceiver.sender;
    const original = sender.handleRtcpPacket;
    sender.handleRtcpPacket = (packet: RtcpPacket) => {
      if (packet instanceof RtcpTransportLayerFeedback) {
        if (packet.feedback instanceof GenericNack) {
          this.#answerNack(packet.feedback);
          return;
        }
        // The subscription connection reads transport feedback for the whole transport.
        if (packet.feedback instanceof TransportWideCC) return;
      }
      if (
        packet instanceof RtcpPayloadSpecificFeedback &&
        (packet.feedback.count === pliCount || packet.feedback.count === firCount)
      ) {
        this.stats.keyframeRequestsReceived += 1;
        this.requestKeyframe();
      }
      original.call(sender, packet);
    };
    return () => {
      sender.handleRtcpPacket = original;
    };
  }

  #answerNack(nack: GenericNack): void {
    if (this.#closed) return;
    this.stats.nacksReceived += 1;
    const sender = this.#transceiver.sender;
    const payloadType = sender.codec?.payloadType;
    if (payloadType === undefined) return;
    const rtxPayloadType = this.#rtxPayloadType();
    // Before the subscriber's first receiver report, and on a link faster than the event loop's
    // own delays, the floor holds.
    const resendIntervalMs = Math.max(minimumResendIntervalMs, this.#direct.roundTripMs ?? 0);
    for (const sequenceNumber of nack.lost) {
      const nowMs = performance.now();
      const sent = this.#buffer.takeForResend(sequenceNumber, nowMs, resendIntervalMs);
      if (sent === undefined) continue;
      // A retransmission gets a transport-wide number of its own and counts as sent bytes, so the
      // subscriber's feedback on it reaches the estimator like any packet's.
      const transportSequenceNumber =
        rtxPayloadType === undefined
          ? this.#direct.send(sent, payloadType, sent.payload, nowMs, sender.ssrc)
          : this.#direct.send(
              {
                sequenceNumber: this.#nextRtxSequenceNumber(),
                timestamp: sent.timestamp,
                marker: sent.marker,
              },
              rtxPayloadType,
              withOriginalSequenceNumber(sent),
              nowMs,
              sender.rtxSsrc,
            );
      if (transportSequenceNumber === null) return;
      this.stats.retransmissions += 1;
      if (this.#totals !== undefined) this.#totals.retransmissions += 1;
      if (this.#transportCc && transportSequenceNumber !== undefined) {
        const size = rtpHeaderSize + sent.payload.length + (rtxPayloadType === undefined ? 0 : 2);
        this.onPacketSent?.(transportSequenceNumber, size, nowMs);
      }
    }
  }

  #nextRtxSequenceNumber(): number {
    this.#rtxSequenceNumber = (this.#rtxSequenceNumber + 1) % 0x1_0000;
    return this.#rtxSequenceNumber;
  }

  #rtxPayloadType(): number | undefined {
    const main = this.#transceiver.sender.codec?.payloadType;
    if (main === undefined) return undefined;
    return this.#transceiver.codecs.find(
      (codec) =>
        codec.name.toLowerCase() === 'rtx' && (codec.parameters ?? '').split(';').includes(`apt=${main}`),
    )?.payloadType;
  }
}
