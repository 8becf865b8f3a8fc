import type { FeedbackResult } from './transport-feedback.js';

/** What a probe's feedback must show for it to pass, from the SFU's `bandwidth.probe` options. */
export interface ProbeVerdictOptions {
  /** Highest share of the probe's packets reported lost (0.02: 2 %). */
  maxLoss: number;
  /** Highest growth of the one-way delay from the probe's first third to its last third, ms. */
  maxDelayGrowthMs: number;
}

/** The state of a {@link BandwidthProbe}. */
export type ProbeVerdict = 'pending' | 'passed' | 'failed';

/** Feedback on fewer of the probe's packets than this decides nothing. */
const minimumReported = 10;

interface ProbePacket {
  sentMs: number;
  bytes: number;
  received: boolean | undefined;
  /** Receiver clock minus sender clock, ms (a constant offset apart from queuing). */
  delayMs: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * One probe of a subscriber's link: every packet sent to it (forwarded video and padding) from
 * `startMs` until `endMs`, and what transport-wide feedback says of them. It fails when more than
 * `maxLoss` of the reported packets were lost, or when the one-way delay grew by more than
 * `maxDelayGrowthMs` from the first third of the probe to the last (a queue building at the
 * bottleneck: the link does not carry the probe's rate); it passes when every packet was reported
 * (or `feedbackWaitMs` after the end, with unreported packets counted lost) without either. A
 * probe with enough feedback to fail already fails before its end, so its padding stops early.
 * Pure: callers pass the time.
 */
export class BandwidthProbe {
  readonly #options: ProbeVerdictOptions;
  readonly #packets = new Map<number, ProbePacket>();
  readonly #order: ProbePacket[] = [];
  #reported = 0;
  #verdict: ProbeVerdict = 'pending';
  /** Why the probe failed, or what it measured when it passed, for statistics and logs. */
  summary = '';

  constructor(
    /** Bit/s the probe brings the subscriber's video to. */
    readonly targetBitrate: number,
    readonly startMs: number,
    readonly endMs: number,
    readonly feedbackWaitMs: number,
    options: ProbeVerdictOptions,
  ) {
    this.#options = options;
  }

  /** Whether packets sent now still belong to the probe. */
  sending(nowMs: number): boolean {
    return this.#verdict === 'pending' && nowMs < this.endMs;
  }

  /** Packets sent during the probe. */
  get packets(): number {
    return this.#order.length;
  }

  /** Bit/s sent during the probe (video and padding), over its planned length. */
  get sentBitrate(): number {
    const bytes = this.#order.reduce((sum, packet) => sum + packet.bytes, 0);
    return (bytes * 8 * 1000) / Math.max(1, this.endMs - this.startMs);
  }

  /** Notes a packet sent to the subscriber with transport-wide sequence number `sequenceNumber`. */
  packetSent(sequenceNumber: number, bytes: number, nowMs: number): void {
    if (!this.sending(nowMs)) return;
    const packet: ProbePacket = { sentMs: nowMs, bytes, received: undefined, delayMs: 0 };
    this.#packets.set(sequenceNumber, packet);
    this.#order.push(packet);
  }

  /** A TWCC feedback's per-packet results. */
  feedback(results: readonly FeedbackResult[]): void {
    if (this.#verdict !== 'pending') return;
    for (const result of results) {
      const packet = this.#packets.get(result.sequenceNumber);
      if (packet === undefined || packet.received !== undefined) continue;
      packet.received = result.received;
      if (result.received) packet.delayMs = result.receivedAtMs - packet.sentMs;
      this.#reported += 1;
    }
  }

  /** Decides, once: `failed` as soon as the feedback shows loss or delay growth, `passed` at the end. */
  verdict(nowMs: number): ProbeVerdict {
    if (this.#verdict !== 'pending') return this.#verdict;
    const complete = nowMs >= this.endMs && this.#reported === this.#order.length;
    const expired = nowMs >= this.endMs + this.feedbackWaitMs;
    const reported = this.#order.filter((packet) => packet.received !== undefined || expired);
    if (reported.length < minimumReported) {
      if (expired) this.#verdict = 'failed';
      this.summary = `feedback on ${reported.length} packets`;
      return this.#verdict;
    }
    const lost = reported.filter((packet) => packet.received !== true).length;
    const received = reported.filter((packet) => packet.received === true);
    const third = Math.max(1, Math.floor(received.length / 3));
    const growth =
      received.length < 3
        ? 0
        : median(received.slice(-third).map((packet) => packet.delayMs)) -
          median(received.slice(0, third).map((packet) => packet.delayMs));
    if (lost / reported.length > this.#options.maxLoss || growth > this.#options.maxDelayGrowthMs) {
      this.#verdict = 'failed';
    } else if (complete || expired) {
      this.#verdict = 'passed';
    }
    this.summary = `${lost} of ${reported.length} packets lost, delay grew ${Math.round(growth)} ms`;
    return this.#verdict;
  }
}
