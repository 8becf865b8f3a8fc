import {
  ReceiverEstimatedMaxBitrate,
  type RTCDtlsTransport,
  type RTCPeerConnection,
  type RTCRtpTransceiver,
  type RtcpPacket,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
  TransportWideCC,
} from 'werift';
import { BandwidthEstimator } from './bandwidth/bandwidth-estimator.js';
import { streamToExplore } from './bandwidth/exploration.js';
import { type AllocationStream, allocateLayers } from './bandwidth/layer-allocation.js';
import { paddingPossible } from './bandwidth/probe-padding.js';
import { Prober, type ProbeStats } from './bandwidth/prober.js';
import { transportFeedbackResults } from './bandwidth/transport-feedback.js';
import { UpgradeHold } from './bandwidth/upgrade-hold.js';
import { Consumer } from './consumer.js';
import { SfuError } from './errors.js';
import type { SfuOptions } from './options.js';
import { createPeer, negotiate, setLocalDescriptionQuietly, startRestartedIce } from './peer-factory.js';
import { type Producer, qualityLayerIndex, type StreamKind, type StreamQuality } from './producer.js';
import { announceAddresses } from './sdp/announce-addresses.js';
import { validateSdp } from './sdp/validate-sdp.js';
import type { SfuTotals } from './sfu-stats.js';

/** One stream of one participant. */
export interface StreamRef {
  participantId: string;
  kind: StreamKind;
}

/** A stream to watch, optionally with a preferred quality (the highest simulcast layer wanted). */
export interface SubscribeRef extends StreamRef {
  /** `low`, `medium` or `high` (the default): caps the layer the bandwidth allocation may pick. */
  quality?: StreamQuality;
}

/** Which transceiver mid carries which participant's stream in the subscriber's connection. */
export interface SubscribedStream extends StreamRef {
  mid: string;
}

/** The SFU's offer after a subscription change, with the streams it carries. */
export interface SubscriptionOffer {
  sdp: string;
  streams: SubscribedStream[];
}

/** The key of a stream in maps: `<participantId>/<kind>`, the original's feed id. */
export function streamKey(stream: StreamRef): string {
  return `${stream.participantId}/${stream.kind}`;
}

/** Below this a layer's measured bitrate is not trusted (it has just started). */
const smallestLayerBitrate = 10_000;
/** Probes above the estimate are at least this far apart, ms, whatever `upgradeHoldMs` says. */
const minExplorationIntervalMs = 1_000;

/**
 * Where a climbing stream stays while its probe runs: its current layer; a paused one resuming on
 * the estimate at its lowest layer while it probes for more, or, when the probe is for the resume
 * itself, stays paused.
 */
function keptLayer(stream: AllocationStream, resuming: boolean): number | undefined {
  return resuming ? stream.currentLayer : (stream.currentLayer ?? 0);
}

/**
 * A participant's subscribe connection: the SFU offers one send-only video transceiver per watched
 * stream and the client answers. Transceivers of ended subscriptions go inactive and are reused.
 * It estimates the subscriber's bandwidth from its TWCC feedback or REMB and, every
 * `bandwidth.allocationIntervalMs`, picks each stream's layer (or pauses it) to fit. With TWCC and
 * RTX, a climb to a higher layer (or a resume) waits for a bandwidth probe: padding up to what the
 * climb needs, for `bandwidth.probe.durationMs`; the climb happens only if the probe's feedback is
 * clean, and a failed probe holds the climbing streams back like an undone climb (`UpgradeHold`).
 * A stream that only the estimate keeps below the layer it wants does not wait for the estimate to
 * grow into the next layer: it probes for it (at most once per `upgradeHoldMs`), and a passed probe
 * raises the estimate to what the link carried.
 */
export class SubscriptionConnection {
  readonly #subscriberId: string;
  readonly #options: SfuOptions;
  readonly #totals: SfuTotals;
  readonly #onConsumerClose: (consumer: Consumer) => void;
  readonly #consumers = new Map<string, { consumer: Consumer; transceiver: RTCRtpTransceiver }>();
  readonly #idle: RTCRtpTransceiver[] = [];
  readonly #estimator: BandwidthEstimator;
  readonly #holds = new WeakMap<Consumer, UpgradeHold>();
  readonly #prober: Prober;
  /** When a probe above the estimate was last asked for ({@link SubscriptionConnection.allocate}). */
  #lastExplorationMs = Number.NEGATIVE_INFINITY;
  /** What a passed probe showed the link carries (video bit/s), until when it may be used. */
  #probeGrant: { bitrate: number; untilMs: number } | undefined;
  readonly #listened = new WeakSet<RTCDtlsTransport>();
  readonly #stopListening: Array<() => void> = [];
  #allocationTimer: NodeJS.Timeout | undefined;
  #peer: RTCPeerConnection | undefined;
  #offerPending = false;
  #closed = false;

  constructor(
    subscriberId: string,
    options: SfuOptions,
    totals: SfuTotals,
    onConsumerClose: (consumer: Consumer) => void,
  ) {
    this.#subscriberId = subscriberId;
    this.#options = options;
    this.#totals = totals;
    this.#onConsumerClose = onConsumerClose;
    this.#estimator = new BandwidthEstimator(options.bandwidth);
    this.#prober = new Prober(options.bandwidth.probe);
  }

  /** Counters of this subscriber's bandwidth probes. */
  get probeStats(): ProbeStats {
    return { ...this.#prober.stats };
  }

  /** How long `consumer` waits after a step down (or a failed probe) before it may climb, ms. */
  upgradeHoldMs(consumer: Consumer): number {
    return this.#holdOf(consumer).holdMs;
  }

  /** The subscriber's bandwidth estimate in bit/s, or `undefined` while it reported none. */
  get bandwidthEstimate(): number | undefined {
    return this.#estimator.bitrate(performance.now());
  }

  /** The consumers of this subscriber, by stream key. */
  get consumers(): Consumer[] {
    return [...this.#consumers.values()].map((entry) => entry.consumer);
  }

  /** The werift connection once the first offer was made. */
  get peer(): RTCPeerConnection | undefined {
    return this.#peer;
  }

  /**
   * Applies unsubscriptions, then subscriptions (a stream already watched takes its new preferred
   * quality), and returns a new offer; with `iceRestart` the offer carries new ICE credentials
   * (werift gathers again and checks new pairs once answered).
   */
  async update(
    subscribe: Array<{ producer: Producer; quality?: StreamQuality | undefined }>,
    unsubscribe: StreamRef[],
    iceRestart = false,
  ): Promise<SubscriptionOffer> {
    for (const stream of unsubscribe) this.#consumers.get(streamKey(stream))?.consumer.close();
    for (const { producer, quality } of subscribe) {
      const existing = this.#consumers.get(streamKey(producer))?.consumer;
      if (existing !== undefined && quality !== undefined) existing.quality = quality;
    }
    const added = subscribe.filter(({ producer }) => !this.#consumers.has(streamKey(producer)));
    const limit = this.#options.limits.subscriptionsPerSession;
    if (this.#consumers.size + added.length > limit) {
      throw new SfuError(
        'limit_exceeded',
        `expected at most ${limit} subscribed streams per session but this change would make ${this.#consumers.size + added.length}`,
        { details: { limit } },
      );
    }
    this.#peer ??= createPeer(this.#options.ice, 'video', 'subscribe', this.#options.srtp.native);
    const peer = this.#peer;
    for (const { producer, quality } of added) this.#attach(peer, producer, quality);
    this.allocate();
    const sdp = await negotiate('create the subscription offer', async () => {
      await setLocalDescriptionQuietly(peer, this.#options.ice, await peer.createOffer({ iceRestart }));
      return peer.localDescription?.sdp ?? '';
    });
    this.#offerPending = true;
    return { sdp: announceAddresses(sdp, this.#options.ice.announcedAddresses), streams: this.streams() };
  }

  /** Applies the client's answer to the last offer. */
  async accept(answer: string): Promise<void> {
    const peer = this.#peer;
    if (peer === undefined || !this.#offerPending) {
      throw new SfuError(
        'invalid_state',
        'expected a subscription offer to answer but there is none pending',
      );
    }
    validateSdp(answer, 'subscribe-answer', {
      maxBytes: this.#options.limits.sdpBytes,
      expectedSections: peer.getTransceivers().length,
    });
    await negotiate('apply the subscription answer', () =>
      peer.setRemoteDescription({ type: 'answer', sdp: answer }),
    );
    startRestartedIce(peer);
    this.#offerPending = false;
    this.#listen(peer);
    for (const { consumer } of this.#consumers.values()) {
      consumer.refreshNegotiated();
      consumer.requestKeyframe();
    }
  }

  /**
   * Picks each stream's layer from the bandwidth estimate now (also runs every
   * `bandwidth.allocationIntervalMs`). Without an estimate every stream gets its preferred quality.
   */
  allocate(): void {
    if (this.#closed) return;
    const nowMs = performance.now();
    const { audioReserveBitrate, upgradeHeadroom } = this.#options.bandwidth;
    const estimate = this.#estimator.bitrate(nowMs);
    const budget = estimate === undefined ? undefined : Math.max(0, estimate - audioReserveBitrate);
    const entries = [...this.#consumers.values()]
      .map(({ consumer }) => ({ consumer, layers: consumer.producer.activeLayers(nowMs) }))
      .filter(({ layers }) => layers.length > 0);
    const streams: AllocationStream[] = entries.map(({ consumer, layers }) => {
      const target = consumer.targetLayer;
      const index = target === undefined ? -1 : layers.indexOf(target);
      return {
        priority: consumer.producer.kind === 'screen' ? 0 : 1,
        layerBitrates: layers.map((layer) => Math.max(smallestLayerBitrate, layer.bitrate)),
        maxLayer: qualityLayerIndex(consumer.quality, layers.length),
        currentLayer: consumer.paused ? undefined : index >= 0 ? index : layers.length - 1,
        mayUpgrade: this.#holdOf(consumer).mayClimb(nowMs),
      };
    });
    const chosen = allocateLayers(streams, budget, upgradeHeadroom);
    const explored = this.#exploreAboveEstimate(streams, chosen, nowMs);
    // A paused stream explored to its lowest layer resumes only on a passed probe.
    const resuming = explored >= 0 && streams[explored]?.currentLayer === undefined ? explored : -1;
    this.#probeBeforeClimbing(
      entries.map(({ consumer }) => consumer),
      streams,
      chosen,
      nowMs,
      resuming,
    );
    entries.forEach(({ consumer, layers }, position) => {
      const choice = chosen[position];
      const before = streams[position]?.currentLayer;
      if (before !== undefined && (choice === undefined || choice < before)) {
        this.#holdOf(consumer).steppedDown(nowMs);
      } else if (choice !== undefined && (before === undefined || choice > before)) {
        this.#holdOf(consumer).climbed(nowMs);
      }
      consumer.setTargetLayer(choice === undefined ? undefined : layers[choice]);
    });
  }

  /**
   * Lets one stream that only the estimate keeps below the layer it wants climb one layer in
   * `chosen` ({@link streamToExplore}), so `#probeBeforeClimbing` probes for it now instead of
   * waiting for the estimate to grow into the layer: a passed probe raises the estimate to what
   * the link carried. A stream the estimate paused is explored to its lowest layer likewise. Only
   * while feedback is clean (or absent, nothing being sent), with probes possible, and at most once
   * per `upgradeHoldMs` (at least a second). Returns the explored stream's position, or -1.
   */
  #exploreAboveEstimate(
    streams: readonly AllocationStream[],
    chosen: Array<number | undefined>,
    nowMs: number,
  ): number {
    const { upgradeHeadroom, audioReserveBitrate, upgradeHoldMs, probe } = this.#options.bandwidth;
    if (!probe.enabled || this.#prober.running || !this.#estimator.feedbackClean(nowMs)) return -1;
    if (nowMs - this.#lastExplorationMs < Math.max(upgradeHoldMs, minExplorationIntervalMs)) return -1;
    if (this.#paddable().length === 0) return -1;
    const receiver = this.#estimator.receiverEstimate;
    const receiverBudget = receiver === undefined ? undefined : receiver - audioReserveBitrate;
    const position = streamToExplore(streams, chosen, upgradeHeadroom, receiverBudget);
    if (position < 0) return -1;
    const layer = chosen[position];
    this.#lastExplorationMs = nowMs;
    chosen[position] = layer === undefined ? 0 : layer + 1;
    return position;
  }

  /** The subscriber's streams whose transceiver can carry probe padding (negotiated RTX). */
  #paddable(): Array<{ consumer: Consumer; transceiver: RTCRtpTransceiver }> {
    return [...this.#consumers.values()].filter(({ transceiver }) => paddingPossible(transceiver));
  }

  /**
   * With climbs among `chosen` and no passed probe covering them: keeps the climbing streams where
   * they are (in `chosen`) and starts a probe to what the climbs need, unless one runs already.
   * Without transport-wide feedback, RTX, or with probes disabled, lets the climbs through. The
   * stream at `resuming` (a paused one explored to its lowest layer) counts as climbing.
   */
  #probeBeforeClimbing(
    consumers: readonly Consumer[],
    streams: readonly AllocationStream[],
    chosen: Array<number | undefined>,
    nowMs: number,
    resuming: number,
  ): void {
    const { upgradeHeadroom, audioReserveBitrate, probe } = this.#options.bandwidth;
    // Nothing chosen above what is forwarded now (a resume at the lowest layer on the estimate
    // included): no probe.
    const above = streams.some((stream, position) => (chosen[position] ?? -1) > (stream.currentLayer ?? 0));
    if (!above && resuming < 0) return;
    const paddable = this.#paddable();
    const probing = probe.enabled && this.#estimator.transportEstimate !== undefined && paddable.length > 0;
    if (probing) {
      // One layer at a time: a probe to the next layer's rate, not to the estimate's whole climb.
      // Behind a narrow link a probe far above it leaves a queue that outlasts the probe; a step
      // keeps the overshoot small, and a climb that passes goes on one probe later.
      streams.forEach((stream, position) => {
        const choice = chosen[position];
        if (choice === undefined) return;
        chosen[position] = Math.min(choice, stream.currentLayer === undefined ? 0 : stream.currentLayer + 1);
      });
    }
    // A paused stream resumes at its lowest layer on the estimate alone: only a climb above that
    // waits for a probe (a probe that fails must not keep video paused that the estimate carries).
    const climbing = streams.map((stream, position) => {
      const choice = chosen[position];
      if (choice === undefined) return false;
      if (position === resuming) return true;
      return stream.currentLayer === undefined ? choice > 0 : choice > stream.currentLayer;
    });
    if (!climbing.some(Boolean)) return;
    let needed = 0;
    let current = 0;
    streams.forEach((stream, position) => {
      const choice = chosen[position];
      if (choice === undefined) return;
      needed += (stream.layerBitrates[choice] ?? 0) * (climbing[position] ? upgradeHeadroom : 1);
      // What is forwarded while the probe runs: the kept layer of a climbing stream (none for the
      // paused one it would resume), else the choice.
      const kept = climbing[position] ? keptLayer(stream, position === resuming) : choice;
      current += kept === undefined ? 0 : (stream.layerBitrates[kept] ?? 0);
    });
    const grant = this.#probeGrant;
    if (grant !== undefined && nowMs <= grant.untilMs && needed <= grant.bitrate) {
      this.#probeGrant = undefined;
      return;
    }
    if (!probing) return;
    const climbers = consumers.filter((_, position) => climbing[position]);
    streams.forEach((stream, position) => {
      if (climbing[position]) chosen[position] = keptLayer(stream, position === resuming);
    });
    if (this.#prober.running) return;
    const padder = paddable[0]?.consumer;
    this.#estimator.probing = true;
    this.#prober.start(
      needed,
      (paddingBytes) =>
        padder === undefined || padder.closed ? undefined : padder.sendPadding(paddingBytes),
      (passed, finished) => {
        const doneMs = performance.now();
        // What the layers forwarded now need, with the climbing headroom so the measured bitrates'
        // jitter does not pause them, and well below what the failed climb needed.
        // Passed: the link carried the probe's video and the audio beside it.
        this.#estimator.probed(
          passed,
          (current + audioReserveBitrate) * upgradeHeadroom,
          doneMs,
          finished.targetBitrate + audioReserveBitrate,
        );
        if (passed) {
          // What the link carried: layer bitrates measured a moment later may have grown a little
          // (a layer that just came up is still ramping), which must not ask for the same probe again.
          this.#probeGrant = {
            bitrate: finished.targetBitrate,
            untilMs: doneMs + 2 * this.#options.bandwidth.allocationIntervalMs + 1_000,
          };
        } else {
          for (const consumer of climbers) this.#holdOf(consumer).probeFailed(doneMs);
        }
        this.allocate();
      },
      nowMs,
    );
  }

  #holdOf(consumer: Consumer): UpgradeHold {
    let hold = this.#holds.get(consumer);
    if (hold === undefined) {
      hold = new UpgradeHold(this.#options.bandwidth.upgradeHoldMs);
      this.#holds.set(consumer, hold);
    }
    return hold;
  }

  /** The streams carried now, with their mids. */
  streams(): SubscribedStream[] {
    return [...this.#consumers.values()].map(({ consumer }) => ({
      participantId: consumer.producer.participantId,
      kind: consumer.producer.kind,
      mid: consumer.mid ?? '',
    }));
  }

  /** Closes every consumer and the connection. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#allocationTimer);
    this.#prober.stop();
    for (const stop of this.#stopListening.splice(0)) stop();
    for (const { consumer } of [...this.#consumers.values()]) consumer.close();
    this.#peer?.close().catch(() => {});
  }

  #listen(peer: RTCPeerConnection): void {
    for (const transport of peer.dtlsTransports) {
      if (this.#listened.has(transport)) continue;
      this.#listened.add(transport);
      this.#stopListening.push(transport.onRtcp.subscribe((packet) => this.#onRtcp(packet)).unSubscribe);
    }
  }

  #onRtcp(packet: RtcpPacket): void {
    if (packet instanceof RtcpTransportLayerFeedback && packet.feedback instanceof TransportWideCC) {
      const results = transportFeedbackResults(packet.feedback);
      const nowMs = performance.now();
      this.#estimator.transportFeedback(results, nowMs);
      this.#prober.feedback(results, nowMs);
    } else if (
      packet instanceof RtcpPayloadSpecificFeedback &&
      packet.feedback instanceof ReceiverEstimatedMaxBitrate
    ) {
      this.#estimator.receiverEstimated(Number(packet.feedback.bitrate));
    }
  }

  #startAllocating(): void {
    if (this.#allocationTimer !== undefined || this.#closed) return;
    this.#allocationTimer = setInterval(() => this.allocate(), this.#options.bandwidth.allocationIntervalMs);
    this.#allocationTimer.unref();
  }

  #attach(peer: RTCPeerConnection, producer: Producer, quality: StreamQuality | undefined): void {
    const reused = this.#idle.shift();
    const transceiver = reused ?? peer.addTransceiver('video', { direction: 'sendonly' });
    if (reused !== undefined) transceiver.setDirection('sendonly');
    const consumer = new Consumer(producer, this.#subscriberId, transceiver, {
      retransmissionPackets: this.#options.limits.retransmissionPackets,
      nativeSrtp: this.#options.srtp.native,
      totals: this.#totals,
      quality,
    });
    consumer.onPacketSent = (sequenceNumber, bytes, nowMs) => {
      this.#estimator.packetSent(sequenceNumber, bytes, nowMs);
      this.#prober.packetSent(sequenceNumber, bytes, nowMs);
    };
    const key = streamKey(producer);
    this.#consumers.set(key, { consumer, transceiver });
    this.#startAllocating();
    consumer.once('close', () => {
      this.#consumers.delete(key);
      if (this.#consumers.size === 0) {
        clearInterval(this.#allocationTimer);
        this.#allocationTimer = undefined;
      }
      if (this.#closed) return;
      transceiver.setDirection('inactive');
      this.#idle.push(transceiver);
      this.#onConsumerClose(consumer);
    });
  }
}
