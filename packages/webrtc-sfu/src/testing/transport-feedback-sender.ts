import type { RTCDtlsTransport } from 'werift';
import { monotonicMicroseconds, TransportFeedbackWriter } from '../bandwidth/transport-feedback-writer.js';

/** How a limited link shows its limit: packets above it are lost, or they queue (delay grows). */
export type LimitBehaviour = 'loss' | 'delay';

/**
 * Transport-wide congestion control feedback as a test client's receiver would send it, every
 * 100 ms, for the packets it saw (werift 0.24's own TWCC reports are malformed). A bitrate limit
 * makes it report what a receiver behind a shaped link would: with `loss` (a token bucket) the
 * packets above the limit as lost; with `delay` (a queue without bound drained at the limit) every
 * packet arriving when the queue has drained, so the delay grows while more than the limit comes in.
 */
export class TransportFeedbackSender {
  readonly #writer: TransportFeedbackWriter;
  #limit: number | undefined;
  #behaviour: LimitBehaviour = 'loss';
  #queueFreeAtUs = 0;
  #tokens = 0;
  #lastFillUs = 0;

  constructor(transport: () => RTCDtlsTransport | undefined, senderSsrc: number) {
    this.#writer = new TransportFeedbackWriter(transport, senderSsrc);
  }

  /** Feedback reports sent. */
  get sent(): number {
    return this.#writer.sent;
  }

  /** Reports packets beyond `bitrate` bit/s as lost (or late); `undefined` lifts the limit. */
  limit(bitrate: number | undefined, behaviour: LimitBehaviour = 'loss'): void {
    this.#limit = bitrate;
    this.#behaviour = behaviour;
    this.#queueFreeAtUs = 0;
    this.#tokens = 0;
    this.#lastFillUs = monotonicMicroseconds();
  }

  /** Notes a received packet with its transport-wide sequence number and size. */
  received(sequenceNumber: number, bytes: number, mediaSsrc: number): void {
    const atUs = monotonicMicroseconds();
    let lost = false;
    if (this.#limit !== undefined && this.#behaviour === 'delay') {
      this.#queueFreeAtUs = Math.max(atUs, this.#queueFreeAtUs) + (bytes * 8 * 1_000_000) / this.#limit;
      this.#writer.received(sequenceNumber, mediaSsrc, Math.round(this.#queueFreeAtUs), false);
      return;
    }
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
