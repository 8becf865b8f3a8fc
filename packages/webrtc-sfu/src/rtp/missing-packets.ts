import { sequenceDistance } from './sequence-rewriter.js';

/** When to ask a sender again for a packet that did not come, and when to stop asking. */
export interface MissingPacketsOptions {
  /** A packet asked for is asked for again after this long, ms, if it still has not come. */
  retryIntervalMs: number;
  /** Requests per packet at most. */
  maxRequests: number;
  /** A packet missing for longer than this is given up, ms: no subscriber waits that long for it. */
  maxAgeMs: number;
  /** Packets tracked at most: a gap wider than this is given up at once (the sender restarted or a long outage). */
  maxTracked: number;
}

/** A missing packet's state. */
interface Missing {
  detectedMs: number;
  requests: number;
  lastRequestMs: number;
}

/** What {@link MissingPackets.due} decided. */
export interface DueRequests {
  /** Sequence numbers to ask for now. */
  ask: number[];
  /** Packets given up since the last call (too old, asked too often, or past `maxTracked`). */
  givenUp: number;
}

/**
 * The packets of one RTP stream that did not arrive, and when to ask for each (NACK): at once when
 * a gap shows, again every `retryIntervalMs` while it stays missing (the first retransmission may be
 * lost too), until it comes, `maxRequests` were sent or it is `maxAgeMs` old. Sequence numbers are
 * compared on the 16-bit circle, so a gap across the wrap is seen like any other; a packet older
 * than the highest fills its gap. Pure: the caller passes the time.
 */
export class MissingPackets {
  readonly #options: MissingPacketsOptions;
  readonly #missing = new Map<number, Missing>();
  #highest: number | undefined;
  #givenUp = 0;

  constructor(options: MissingPacketsOptions) {
    this.#options = options;
  }

  /** How many packets are missing now. */
  get size(): number {
    return this.#missing.size;
  }

  /** Notes an arrived packet; returns whether it opened a new gap (something to ask for at once). */
  received(sequenceNumber: number, nowMs: number): boolean {
    const highest = this.#highest;
    if (highest === undefined) {
      this.#highest = sequenceNumber;
      return false;
    }
    const distance = sequenceDistance(highest, sequenceNumber);
    if (distance <= 0) {
      this.#missing.delete(sequenceNumber);
      return false;
    }
    this.#highest = sequenceNumber;
    if (distance === 1) return false;
    const gap = distance - 1;
    if (gap > this.#options.maxTracked) {
      this.#givenUp += this.#missing.size + gap;
      this.#missing.clear();
      return false;
    }
    for (let offset = 1; offset <= gap; offset += 1) {
      const missing = (highest + offset) % 0x1_0000;
      this.#missing.set(missing, { detectedMs: nowMs, requests: 0, lastRequestMs: 0 });
    }
    this.#dropOldestBeyondLimit();
    return true;
  }

  /** The sequence numbers to ask for at `nowMs`, counted as asked; gives up what is past its limits. */
  due(nowMs: number): DueRequests {
    const { retryIntervalMs, maxRequests, maxAgeMs } = this.#options;
    const ask: number[] = [];
    for (const [sequenceNumber, missing] of this.#missing) {
      if (missing.requests >= maxRequests || nowMs - missing.detectedMs > maxAgeMs) {
        this.#missing.delete(sequenceNumber);
        this.#givenUp += 1;
        continue;
      }
      if (missing.requests > 0 && nowMs - missing.lastRequestMs < retryIntervalMs) continue;
      missing.requests += 1;
      missing.lastRequestMs = nowMs;
      ask.push(sequenceNumber);
    }
    const givenUp = this.#givenUp;
    this.#givenUp = 0;
    return { ask, givenUp };
  }

  /** Forgets every missing packet (the stream stopped or changed source). */
  clear(): void {
    this.#missing.clear();
    this.#highest = undefined;
    this.#givenUp = 0;
  }

  #dropOldestBeyondLimit(): void {
    // A Map iterates in insertion order: the first entries are the oldest gaps.
    for (const sequenceNumber of this.#missing.keys()) {
      if (this.#missing.size <= this.#options.maxTracked) return;
      this.#missing.delete(sequenceNumber);
      this.#givenUp += 1;
    }
  }
}
