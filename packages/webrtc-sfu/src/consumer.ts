import { randomUUID } from 'node:crypto';
import {
  GenericNack,
  type RTCRtpTransceiver,
  type RtcpPacket,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
  RtpHeader,
  RtpPacket,
  wrapRtx,
} from 'werift';
import type { Producer } from './producer.js';
import { RetransmissionBuffer } from './rtp/retransmission-buffer.js';
import { SequenceRewriter } from './rtp/sequence-rewriter.js';
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
}

const pliCount = 1;

/**
 * Forwards one {@link Producer}'s stream to one subscriber's transceiver without transcoding. It
 * rewrites SSRC, payload type, sequence numbers and timestamps for the subscriber's negotiated
 * stream, starts (and restarts after a pause or a new source) at a keyframe, answers the
 * subscriber's NACKs from its own retransmission buffer (as RTX when negotiated), and passes the
 * subscriber's keyframe requests to the producer.
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
  };
  readonly #transceiver: RTCRtpTransceiver;
  readonly #rewriter = new SequenceRewriter(90_000);
  readonly #buffer: RetransmissionBuffer<RtpPacket>;
  readonly #totals: SfuTotals | undefined;
  readonly #restoreRtcp: () => void;
  readonly #stopReady: () => void;
  #waitingForKeyframe = true;
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
      /** The SFU's totals, which count what this consumer sends. */
      totals?: SfuTotals;
    },
  ) {
    super();
    this.#transceiver = transceiver;
    this.#totals = options.totals;
    this.#buffer = new RetransmissionBuffer(options.retransmissionPackets);
    this.#restoreRtcp = this.#interceptRtcp();
    this.#stopReady = transceiver.sender.onReady.subscribe(() => this.producer.requestKeyframe()).unSubscribe;
    producer.addConsumer(this);
  }

  /** The transceiver mid that carries this stream in the subscriber's connection. */
  get mid(): string | null {
    return this.#transceiver.mid;
  }

  /** Whether {@link Consumer.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** @internal A packet from the producer; `keyframe` says whether it starts a keyframe. */
  forward(packet: RtpPacket, keyframe: boolean): void {
    const sender = this.#transceiver.sender;
    if (this.#closed || sender.codec === undefined || sender.dtlsTransport?.state !== 'connected') return;
    if (this.#waitingForKeyframe) {
      if (!keyframe) {
        this.producer.requestKeyframe();
        return;
      }
      this.#waitingForKeyframe = false;
    }
    const { header, payload } = packet;
    if (payload.length === 0) {
      this.#rewriter.skip(header.sequenceNumber);
      return;
    }
    const rewritten = this.#rewriter.rewrite(header.sequenceNumber, header.timestamp, performance.now());
    if (rewritten === undefined) return;
    const outgoing = new RtpPacket(
      new RtpHeader({
        payloadType: sender.codec.payloadType,
        ssrc: sender.ssrc,
        sequenceNumber: rewritten.sequenceNumber,
        timestamp: rewritten.timestamp,
        marker: header.marker,
      }),
      payload,
    );
    this.#buffer.store(rewritten.sequenceNumber, outgoing);
    this.stats.packetsSent += 1;
    if (this.#totals !== undefined) {
      this.#totals.videoPacketsForwarded += 1;
      this.#totals.videoBytesForwarded += outgoing.serializeSize;
    }
    sender.sendRtp(outgoing).catch(() => {});
  }

  /** @internal The next forwarded packet starts a new run at a keyframe (new source or resume). */
  resync(): void {
    this.#rewriter.resync();
    this.#waitingForKeyframe = true;
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
      if (packet instanceof RtcpTransportLayerFeedback && packet.feedback instanceof GenericNack) {
        this.#answerNack(packet.feedback);
        return;
      }
      if (packet instanceof RtcpPayloadSpecificFeedback && packet.feedback.count === pliCount) {
        this.stats.keyframeRequestsReceived += 1;
        this.producer.requestKeyframe();
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
    const rtxPayloadType = this.#rtxPayloadType();
    for (const sequenceNumber of nack.lost) {
      const packet = this.#buffer.get(sequenceNumber);
      if (packet === undefined) continue;
      const resend =
        rtxPayloadType === undefined
          ? packet
          : wrapRtx(packet, rtxPayloadType, this.#nextRtxSequenceNumber(), sender.rtxSsrc);
      this.stats.retransmissions += 1;
      if (this.#totals !== undefined) this.#totals.retransmissions += 1;
      sender.dtlsTransport.sendRtp(resend.payload, resend.header).catch(() => {});
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
