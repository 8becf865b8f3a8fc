import { GenericNack, type RtcpPacket, RtcpTransportLayerFeedback, type RtpPacket } from 'werift';
import { MissingPackets, type MissingPacketsOptions } from './missing-packets.js';

/** What this file uses of werift 0.24's receiver (its type declarations mark some of it private). */
export interface NackReceiverInternals {
  rtcpSsrc: number;
  dtlsTransport: { sendRtcp(packets: RtcpPacket[]): Promise<unknown> };
}

/** werift's `Event`, as the receiver's `onPacketLost` is one: it counts the NACKs sent per SSRC from it. */
export interface PacketLostEvent {
  execute(nack: GenericNack): void;
}

/**
 * When to ask a publisher again. The SFU does not know the round trip to a publisher (it sends it
 * no media to be reported on), so a retry waits 100 ms, libwebrtc's assumed round trip before it
 * measured one; ten requests, within a second, as libwebrtc's receivers ask.
 */
export const defaultMissingPacketsOptions: MissingPacketsOptions = {
  retryIntervalMs: 100,
  maxRequests: 10,
  maxAgeMs: 1_000,
  maxTracked: 1_000,
};

/** How often pending requests are looked at while anything is missing, ms. */
const tickMs = 20;

/**
 * Asks a publisher for the lost packets of one SSRC (RTCP generic NACK), in place of werift 0.24's
 * receiver NACK handler. werift's handler asks every 5 ms, ten times within 50 ms, so on a link
 * whose round trip is longer than that it gives up before a lost retransmission could be seen, and
 * it compares sequence numbers without the 16-bit wrap: a loss right at the wrap stopped it from
 * seeing any loss for a whole cycle of sequence numbers. This one asks at once when a gap shows,
 * again every 100 ms while the packet stays missing ({@link MissingPackets}), and keeps a timer
 * only while something is missing. Its NACKs also go through the receiver's `onPacketLost` event.
 */
export class NackRequester {
  readonly #receiver: NackReceiverInternals;
  readonly #missing: MissingPackets;
  #timer: NodeJS.Timeout | undefined;
  #ssrc: number | undefined;
  #closed = false;

  constructor(
    receiver: NackReceiverInternals,
    readonly onPacketLost: PacketLostEvent,
    options: MissingPacketsOptions = defaultMissingPacketsOptions,
  ) {
    this.#receiver = receiver;
    this.#missing = new MissingPackets(options);
  }

  /** Whether a timer runs (something is missing). */
  get active(): boolean {
    return this.#timer !== undefined;
  }

  /** Notes a received packet of the stream (werift calls it for each video packet, repaired ones included). */
  addPacket(packet: RtpPacket): void {
    if (this.#closed) return;
    const { ssrc, sequenceNumber } = packet.header;
    if (ssrc !== this.#ssrc) {
      this.#ssrc = ssrc;
      this.#missing.clear();
    }
    const opened = this.#missing.received(sequenceNumber, performance.now());
    if (opened) this.#askDue();
    else if (this.#missing.size === 0) this.#stopTimer();
  }

  /** Stops asking for good. */
  close(): void {
    this.#closed = true;
    this.#stopTimer();
    this.#missing.clear();
  }

  #askDue(): void {
    const ssrc = this.#ssrc;
    if (this.#closed || ssrc === undefined) return;
    const { ask } = this.#missing.due(performance.now());
    if (ask.length > 0) {
      const nack = new GenericNack({ senderSsrc: this.#receiver.rtcpSsrc, mediaSourceSsrc: ssrc, lost: ask });
      this.#receiver.dtlsTransport
        .sendRtcp([new RtcpTransportLayerFeedback({ feedback: nack })])
        .catch(() => {});
      this.onPacketLost.execute(nack);
    }
    if (this.#missing.size === 0) this.#stopTimer();
    else if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#askDue(), tickMs);
      this.#timer.unref();
    }
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
