import type { RTCDtlsTransport } from 'werift';
import { monotonicMicroseconds, TransportFeedbackWriter } from '../bandwidth/transport-feedback-writer.js';

/**
 * Transport-wide congestion control feedback as a test client's receiver would send it, every
 * 100 ms, for the packets it saw (werift 0.24's own TWCC reports are malformed). A bitrate limit (a
 * token bucket) makes it report the packets above the limit as lost, like a receiver behind a
 * shaped link.
 */
export class TransportFeedbackSender {
  readonly #writer: TransportFeedbackWriter;
  #limit: number | undefined;
  #tokens = 0;
  #lastFillUs = 0;

  constructor(transport: () => RTCDtlsTransport | undefined, senderSsrc: number) {
    this.#writer = new TransportFeedbackWriter(transport, senderSsrc);
  }

  /** Feedback reports sent. */
  get sent(): number {
    return this.#writer.sent;
  }

  /** Reports packets beyond `bitrate` bit/s as lost; `undefined` lifts the limit. */
  limit(bitrate: number | undefined): void {
    this.#limit = bitrate;
    this.#tokens = 0;
    this.#lastFillUs = monotonicMicroseconds();
  }

  /** Notes a received packet with its transport-wide sequence number and size. */
  received(sequenceNumber: number, bytes: number, mediaSsrc: number): void {
    const atUs = monotonicMicroseconds();
    let lost = false;
    if (this.#limit !== undefined) {
      this.#tokens = Math.min(
        this.#limit / 8 / 5,
        this.#tokens + ((atUs - this.#lastFillUs) / 1_000_000) * (this.#limit / 8),
      );
      this.#lastFillUs = atUs;
      if (this.#tokens >= bytes) this.#tokens -= bytes;
      else lost = true;
    }
    this.#writer.received(sequenceNumber, mediaSsrc, atUs, lost);
  }

  stop(): void {
    this.#writer.stop();
  }
}
