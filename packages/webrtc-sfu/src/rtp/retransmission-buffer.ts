import type { OutgoingRtpFields } from './rtp-header-writer.js';

/** A forwarded packet as kept for retransmission. */
export interface SentPacket extends OutgoingRtpFields {
  payload: Buffer;
}

/**
 * The last `capacity` packets sent on one stream, by sequence number, for answering NACKs. A slot is
 * reused by the packet `capacity` numbers later, so a request for a packet that old finds nothing.
 * Stored column by column: this runs per forwarded packet and subscriber, and an object per kept
 * packet lived long enough (seconds) to reach V8's old generation and its full collections.
 */
export class RetransmissionBuffer {
  readonly #payloads: Array<Buffer | undefined>;
  /** The sequence number of each slot's packet, -1 when empty. */
  readonly #numbers: Int32Array;
  readonly #timestamps: Uint32Array;
  readonly #markers: Uint8Array;

  constructor(readonly capacity: number) {
    this.#payloads = new Array(capacity).fill(undefined);
    this.#numbers = new Int32Array(capacity).fill(-1);
    this.#timestamps = new Uint32Array(capacity);
    this.#markers = new Uint8Array(capacity);
  }

  /** Keeps a sent packet (its payload by reference). */
  store(fields: OutgoingRtpFields, payload: Buffer): void {
    const slot = fields.sequenceNumber % this.capacity;
    this.#payloads[slot] = payload;
    this.#numbers[slot] = fields.sequenceNumber;
    this.#timestamps[slot] = fields.timestamp;
    this.#markers[slot] = fields.marker ? 1 : 0;
  }

  /** The packet sent with that number, if it is still kept. */
  get(sequenceNumber: number): SentPacket | undefined {
    const slot = sequenceNumber % this.capacity;
    const payload = this.#payloads[slot];
    if (this.#numbers[slot] !== sequenceNumber || payload === undefined) return undefined;
    return {
      sequenceNumber,
      timestamp: this.#timestamps[slot] ?? 0,
      marker: this.#markers[slot] === 1,
      payload,
    };
  }

  /** Forgets every packet. */
  clear(): void {
    this.#payloads.fill(undefined);
    this.#numbers.fill(-1);
  }
}
