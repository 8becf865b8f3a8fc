import { BandwidthProbe, type ProbeVerdictOptions } from './probe.js';
import type { FeedbackResult } from './transport-feedback.js';

/** Tuning of a {@link Prober}, the SFU's `bandwidth.probe` options. */
export interface ProberOptions extends ProbeVerdictOptions {
  /** Probe before climbing to a higher layer (with transport-wide feedback and RTX). */
  enabled: boolean;
  /** How long padding is sent, ms. */
  durationMs: number;
  /** Padding never exceeds this many bit/s, whatever the target. */
  maxPaddingBitrate: number;
  /** Padding is sent in steps this many ms apart. */
  paceIntervalMs: number;
  /** The probe sends this times the target it is started with. */
  overshoot: number;
}

/** Counters of a subscriber's probes. */
export interface ProbeStats {
  started: number;
  passed: number;
  failed: number;
  paddingPackets: number;
  /** Bytes of padding packets (RTP header and padding). */
  paddingBytes: number;
  /** The last verdict and what decided it, e.g. `failed: 12 of 40 packets lost, delay grew 3 ms`. */
  last: string;
}

/** Sends one padding packet of at most `paddingBytes` padding; returns what it sent, or nothing. */
export type PaddingSend = (
  paddingBytes: number,
  nowMs: number,
) => { transportSequenceNumber: number; bytes: number } | undefined;

/** Padding per packet: the most RTP's one-byte padding count allows. */
const paddingPerPacket = 255;
/** Feedback on the last probe packets is awaited this long after the padding ends, ms. */
const feedbackWaitMs = 1_000;

/**
 * Runs one subscriber's probes: for `durationMs` it tops up what the subscriber's video sends with
 * padding to the probe's target bit/s, paced in steps of `paceIntervalMs` (forwarded video counts
 * first, so padding only fills the gap and never holds video back; at most `maxPaddingBitrate`),
 * then waits for the feedback's verdict ({@link BandwidthProbe}) and reports it. Padding stops at
 * once when the feedback shows the probe failing.
 */
export class Prober {
  readonly stats: ProbeStats = {
    started: 0,
    passed: 0,
    failed: 0,
    paddingPackets: 0,
    paddingBytes: 0,
    last: '',
  };
  readonly #options: ProberOptions;
  #probe: BandwidthProbe | undefined;
  #timer: NodeJS.Timeout | undefined;
  #send: PaddingSend | undefined;
  #onVerdict: ((passed: boolean, probe: BandwidthProbe) => void) | undefined;
  #credit = 0;
  #lastTickMs = 0;

  constructor(options: ProberOptions) {
    this.#options = options;
  }

  /** Whether a probe is sending or awaiting its feedback. */
  get running(): boolean {
    return this.#probe !== undefined;
  }

  /**
   * Starts a probe to `targetBitrate` (the subscriber's video after the climb) times `overshoot`,
   * sending padding with `send`; `onVerdict` gets the result once. Ignored while a probe runs.
   */
  start(
    targetBitrate: number,
    send: PaddingSend,
    onVerdict: (passed: boolean, probe: BandwidthProbe) => void,
    nowMs: number,
  ): void {
    if (this.#probe !== undefined) return;
    this.stats.started += 1;
    this.#probe = new BandwidthProbe(
      targetBitrate * this.#options.overshoot,
      nowMs,
      nowMs + this.#options.durationMs,
      feedbackWaitMs,
      this.#options,
    );
    this.#send = send;
    this.#onVerdict = onVerdict;
    this.#credit = 0;
    this.#lastTickMs = nowMs;
    this.#timer = setInterval(() => this.#tick(performance.now()), this.#options.paceIntervalMs);
    this.#timer.unref();
  }

  /** Notes a packet sent to the subscriber (video or padding). */
  packetSent(transportSequenceNumber: number, bytes: number, nowMs: number): void {
    const probe = this.#probe;
    if (probe === undefined) return;
    probe.packetSent(transportSequenceNumber, bytes, nowMs);
    if (probe.sending(nowMs)) this.#credit -= bytes;
  }

  /** A TWCC feedback's per-packet results. */
  feedback(results: readonly FeedbackResult[], nowMs: number): void {
    this.#probe?.feedback(results);
    this.#decide(nowMs);
  }

  /** Ends the running probe without a verdict. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#probe = undefined;
    this.#send = undefined;
    this.#onVerdict = undefined;
  }

  #tick(nowMs: number): void {
    const probe = this.#probe;
    const send = this.#send;
    if (probe === undefined || send === undefined) return;
    if (this.#decide(nowMs) || !probe.sending(nowMs)) return;
    const elapsedMs = Math.max(0, nowMs - this.#lastTickMs);
    this.#lastTickMs = nowMs;
    // Credit for this step's share of the target, less what video already sent; a keyframe may
    // leave it negative for a while. Never more than two steps' worth: no bursts after a stall.
    const stepBytes = (probe.targetBitrate / 8) * (this.#options.paceIntervalMs / 1000);
    this.#credit = Math.min(2 * stepBytes, this.#credit + (probe.targetBitrate / 8) * (elapsedMs / 1000));
    let paddingBudget =
      (this.#options.maxPaddingBitrate / 8) * (Math.min(elapsedMs, 2 * this.#options.paceIntervalMs) / 1000);
    while (this.#credit > 0 && paddingBudget > 0) {
      const sent = send(paddingPerPacket, nowMs);
      if (sent === undefined) break;
      this.stats.paddingPackets += 1;
      this.stats.paddingBytes += sent.bytes;
      paddingBudget -= sent.bytes;
      this.packetSent(sent.transportSequenceNumber, sent.bytes, nowMs);
    }
  }

  /** Reports a decided probe; returns whether it was decided. */
  #decide(nowMs: number): boolean {
    const probe = this.#probe;
    if (probe === undefined) return true;
    const verdict = probe.verdict(nowMs);
    if (verdict === 'pending') return false;
    const onVerdict = this.#onVerdict;
    this.stop();
    if (verdict === 'passed') this.stats.passed += 1;
    else this.stats.failed += 1;
    this.stats.last = `${verdict} to ${Math.round(probe.targetBitrate)} bit/s: ${probe.summary}`;
    onVerdict?.(verdict === 'passed', probe);
    return true;
  }
}
