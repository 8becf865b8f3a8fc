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
  /** When each slot's packet was last sent, first or again (ms, the caller's clock). */
  readonly #sentAtMs: Float64Array;

  constructor(readonly capacity: number) {
    this.#payloads = new Array(capacity).fill(undefined);
    this.#numbers = new Int32Array(capacity).fill(-1);
    this.#timestamps = new Uint32Array(capacity);
    this.#markers = new Uint8Array(capacity);
    this.#sentAtMs = new Float64Array(capacity);
  }

  /** Keeps a packet sent at `nowMs` (its payload by reference). */
  store(fields: OutgoingRtpFields, payload: Buffer, nowMs: number): void {
    const slot = fields.sequenceNumber % this.capacity;
    this.#payloads[slot] = payload;
    this.#numbers[slot] = fields.sequenceNumber;
    this.#timestamps[slot] = fields.timestamp;
    this.#markers[slot] = fields.marker ? 1 : 0;
    this.#sentAtMs[slot] = nowMs;
  }

  /**
   * The packet with that number, if it is kept and was last sent at least `intervalMs` before
   * `nowMs`, now counted as sent again; otherwise `undefined`. A NACK that arrives within a round
   * trip of the packet's last sending was sent before that sending could arrive: answering it
   * would only send the receiver a copy.
   */
  takeForResend(sequenceNumber: number, nowMs: number, intervalMs: number): SentPacket | undefined {
    const slot = sequenceNumber % this.capacity;
    if (this.#numbers[slot] !== sequenceNumber) return undefined;
    if (nowMs - (this.#sentAtMs[slot] ?? 0) < intervalMs) return undefined;
    const packet = this.get(sequenceNumber);
    if (packet !== undefined) this.#sentAtMs[slot] = nowMs;
    return packet;
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
