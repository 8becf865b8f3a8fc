import type { FeedbackResult } from './transport-feedback.js';

/** Tuning of a {@link BandwidthEstimator}, from the SFU's `bandwidth` options. */
export interface BandwidthEstimatorOptions {
  /** Estimate before the first transport feedback, bit/s. */
  initialBitrate: number;
  /** The estimate never goes below this, bit/s. */
  minBitrate: number;
  /** The estimate never goes above this, bit/s. */
  maxBitrate: number;
  /** Multiplicative growth per second while feedback shows neither loss nor queuing (0.15 = 15 %/s). */
  increasePerSecond: number;
}

/** Sent packets remembered (about 2 s at 1,000 packets/s; feedback comes every ~100 ms). */
const sentSlots = 2048;
/** Evaluate a feedback window once it covers this many packets... */
const windowPackets = 20;
/** ...and at least this long on the receiver's clock. */
const windowMs = 100;
const lossDecrease = 0.1;
const lossIncrease = 0.02;
const queuingDecreaseMs = 80;
const queuingIncreaseMs = 25;
const decreaseFactor = 0.85;
const holdAfterDecreaseMs = 1_000;
const baseDelayRefreshMs = 30_000;
/** Without feedback for this long (nothing sent, e.g. video paused) the estimate keeps climbing. */
const idleMs = 1_000;
/**
 * After a failed probe, the queue its padding left behind drains for up to this long, ms: feedback
 * on it then neither cuts the estimate below the probe's fallback nor lets it grow.
 */
const probeDrainMs = 2_000;

/** The feedback gathered until a window is evaluated. */
function emptyWindow() {
  return { received: 0, lost: 0, bytes: 0, firstMs: 0, lastMs: 0, delaySum: 0, minDelay: Infinity };
}

/**
 * A subscriber's available bandwidth, from transport-wide congestion control feedback (TWCC) on the
 * packets the SFU sent it, and from REMB where that is what the client sends. TWCC: each window of
 * about 100 ms of feedback gives a loss ratio, a delivered rate and a queuing delay (one-way delay
 * above the lowest seen); loss above 10 % or queuing above 80 ms cuts the estimate to 85 % of the
 * delivered rate, loss under 2 % with queuing under 25 ms lets it grow by `increasePerSecond`
 * (not within a second of a cut), anything between holds it. REMB is the receiver's own ceiling; the
 * estimate is the lower of the two. Without either, there is no estimate (`undefined`): nothing is
 * limited, as before congestion control. Pure: callers pass the time.
 */
export class BandwidthEstimator {
  readonly #options: BandwidthEstimatorOptions;
  /** Allocated at the first sent packet: only subscribers with transport-wide feedback need them. */
  #sent: { sequence: Int32Array; atMs: Float64Array; bytes: Uint32Array } | undefined;
  #transportEstimate: number | undefined;
  #receiverEstimate: number | undefined;
  #lastGrowthMs = 0;
  #lastDecreaseMs = Number.NEGATIVE_INFINITY;
  #lastFeedbackMs = Number.NEGATIVE_INFINITY;
  #growing = true;
  #baseDelayMs = Number.POSITIVE_INFINITY;
  #baseDelaySetMs = 0;
  #window = emptyWindow();
  /** Until when a failed probe's queue drains, and the estimate it must not be cut below meanwhile. */
  #drain = { untilMs: Number.NEGATIVE_INFINITY, floorBitrate: 0 };
  /**
   * While a bandwidth probe runs, its own padding may congest the link: the estimate then neither
   * grows nor falls from feedback, and the probe's verdict decides ({@link BandwidthEstimator.probed}).
   */
  probing = false;

  constructor(options: BandwidthEstimatorOptions) {
    this.#options = options;
  }

  /** The estimate from transport feedback alone, bit/s, once feedback arrived. */
  get transportEstimate(): number | undefined {
    return this.#transportEstimate;
  }

  /** The last REMB value, bit/s. */
  get receiverEstimate(): number | undefined {
    return this.#receiverEstimate;
  }

  /** Notes a sent packet carrying transport-wide sequence number `sequenceNumber`. */
  packetSent(sequenceNumber: number, bytes: number, nowMs: number): void {
    this.#sent ??= {
      sequence: new Int32Array(sentSlots).fill(-1),
      atMs: new Float64Array(sentSlots),
      bytes: new Uint32Array(sentSlots),
    };
    const slot = sequenceNumber % sentSlots;
    this.#sent.sequence[slot] = sequenceNumber;
    this.#sent.atMs[slot] = nowMs;
    this.#sent.bytes[slot] = bytes;
  }

  /** A REMB from the subscriber: its own estimate of what it can receive. */
  receiverEstimated(bitrate: number): void {
    this.#receiverEstimate = Math.max(this.#options.minBitrate, Math.min(this.#options.maxBitrate, bitrate));
  }

  /** A TWCC feedback's per-packet results. */
  transportFeedback(results: readonly FeedbackResult[], nowMs: number): void {
    if (this.#transportEstimate === undefined) {
      this.#transportEstimate = this.#options.initialBitrate;
      this.#lastGrowthMs = nowMs;
    }
    // After a silence (video paused), a window begun before it would spread its bytes over the
    // silence and read as a link that carries almost nothing.
    if (nowMs - this.#lastFeedbackMs > idleMs) this.#window = emptyWindow();
    this.#lastFeedbackMs = nowMs;
    const window = this.#window;
    const sent = this.#sent;
    if (sent === undefined) return;
    for (const result of results) {
      const slot = result.sequenceNumber % sentSlots;
      if (sent.sequence[slot] !== result.sequenceNumber) continue;
      if (!result.received) {
        window.lost += 1;
        continue;
      }
      const delay = result.receivedAtMs - (sent.atMs[slot] ?? 0);
      if (window.received === 0) window.firstMs = result.receivedAtMs;
      window.lastMs = Math.max(window.lastMs, result.receivedAtMs);
      window.received += 1;
      window.bytes += sent.bytes[slot] ?? 0;
      window.delaySum += delay;
      window.minDelay = Math.min(window.minDelay, delay);
    }
    if (window.received + window.lost >= windowPackets && window.lastMs - window.firstMs >= windowMs) {
      this.#evaluate(nowMs);
    }
  }

  /**
   * Whether the last feedback was clean (the estimate grows), or none came for a second (nothing
   * sent: the video is paused), and no cut or probe came within the last second: the moment to
   * probe above the estimate.
   */
  feedbackClean(nowMs: number): boolean {
    return (
      this.#transportEstimate !== undefined &&
      (this.#growing || nowMs - this.#lastFeedbackMs > idleMs) &&
      !this.probing &&
      nowMs - this.#lastDecreaseMs >= holdAfterDecreaseMs
    );
  }

  /**
   * A bandwidth probe's verdict. A passed probe raises the transport estimate to `carriedBitrate`
   * (what the link carried during the probe) when that is higher. A failed probe sets it to
   * `fallbackBitrate` (what the layers forwarded now need: the failure came from the probe's own
   * padding) and holds it for a second before it may grow again; for two seconds, while the queue
   * the padding left drains, feedback does not cut it below that.
   */
  probed(passed: boolean, fallbackBitrate: number, nowMs: number, carriedBitrate = 0): void {
    this.probing = false;
    if (this.#transportEstimate === undefined) return;
    if (passed) {
      this.#transportEstimate = Math.min(
        this.#options.maxBitrate,
        Math.max(this.#transportEstimate, carriedBitrate),
      );
      this.#lastGrowthMs = nowMs;
      return;
    }
    this.#transportEstimate = Math.max(
      this.#options.minBitrate,
      Math.min(this.#options.maxBitrate, fallbackBitrate),
    );
    this.#drain = { untilMs: nowMs + probeDrainMs, floorBitrate: this.#transportEstimate };
    this.#lastDecreaseMs = nowMs;
    this.#lastGrowthMs = nowMs;
    this.#growing = false;
  }

  /** The current estimate in bit/s, or `undefined` while the subscriber reported nothing. */
  bitrate(nowMs: number): number | undefined {
    if (this.#transportEstimate !== undefined && nowMs - this.#lastFeedbackMs > idleMs && !this.probing) {
      this.#grow(nowMs);
    }
    const transport = this.#transportEstimate;
    const receiver = this.#receiverEstimate;
    if (transport === undefined) return receiver;
    return receiver === undefined ? transport : Math.min(transport, receiver);
  }

  #evaluate(nowMs: number): void {
    const window = this.#window;
    const total = window.received + window.lost;
    const loss = total === 0 ? 0 : window.lost / total;
    if (nowMs - this.#baseDelaySetMs > baseDelayRefreshMs && Number.isFinite(window.minDelay)) {
      this.#baseDelayMs = window.minDelay;
      this.#baseDelaySetMs = nowMs;
    } else {
      this.#baseDelayMs = Math.min(this.#baseDelayMs, window.minDelay);
    }
    const queuingMs = window.received === 0 ? 0 : window.delaySum / window.received - this.#baseDelayMs;
    const spanMs = window.lastMs - window.firstMs;
    const delivered = spanMs > 0 ? (window.bytes * 8 * 1000) / spanMs : undefined;
    const estimate = this.#transportEstimate ?? this.#options.initialBitrate;
    if (this.probing) {
      this.#lastGrowthMs = nowMs;
    } else if (loss > lossDecrease || queuingMs > queuingDecreaseMs) {
      // 85 % of what got through, not 85 % of an estimate already cut: while a queue drains, window
      // after window is late, and compounding the cut would fall far below what the link carries.
      const cut =
        delivered === undefined ? estimate * decreaseFactor : Math.min(estimate, delivered * decreaseFactor);
      // The failed probe's own queue draining is not the link getting worse.
      const floor = nowMs < this.#drain.untilMs ? this.#drain.floorBitrate : 0;
      this.#transportEstimate = Math.max(this.#options.minBitrate, floor, Math.min(estimate, cut));
      this.#lastDecreaseMs = nowMs;
      this.#growing = false;
    } else if (loss < lossIncrease && queuingMs < queuingIncreaseMs) {
      if (!this.#growing) this.#lastGrowthMs = nowMs;
      this.#growing = true;
      this.#grow(nowMs);
    } else {
      this.#growing = false;
    }
    this.#window = emptyWindow();
  }

  #grow(nowMs: number): void {
    const estimate = this.#transportEstimate;
    if (estimate === undefined) return;
    if (nowMs - this.#lastDecreaseMs < holdAfterDecreaseMs) {
      this.#lastGrowthMs = nowMs;
      return;
    }
    const elapsedSeconds = Math.min(1, Math.max(0, (nowMs - this.#lastGrowthMs) / 1000));
    this.#lastGrowthMs = nowMs;
    const grown = estimate * (1 + this.#options.increasePerSecond) ** elapsedSeconds;
    this.#transportEstimate = Math.min(this.#options.maxBitrate, grown);
  }
}
