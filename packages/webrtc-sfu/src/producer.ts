import { randomUUID } from 'node:crypto';
import type { MediaStreamTrack, RTCRtpReceiver, RtpPacket } from 'werift';
import type { Consumer } from './consumer.js';
import { ProducerLayer } from './producer-layer.js';
import { isVp8KeyframeStart, readVp8KeyframeSize } from './rtp/vp8.js';
import { readVp8Descriptor } from './rtp/vp8-picture-rewriter.js';
import type { SfuTotals } from './sfu-stats.js';
import { TypedEmitter } from './typed-events.js';

/** A published video stream: the camera or a shared screen. */
export type StreamKind = 'video' | 'screen';

/** Events of a {@link Producer}. */
export interface ProducerEvents extends Record<string, unknown[]> {
  /** The stream was disabled: nothing is forwarded until `resume`. */
  pause: [];
  /** The stream was enabled again. */
  resume: [];
  /** The producer and all its consumers were closed. */
  close: [];
}

/** Counters of a {@link Producer}, for tests and monitoring. */
export interface ProducerStats {
  packetsReceived: number;
  /** Packets not forwarded while the stream was paused. */
  packetsDropped: number;
  /** Packets that arrived twice (a sender's RTX padding or crossed retransmission), forwarded once. */
  packetsRepeated: number;
  keyframeRequests: number;
}

/** A preferred quality of a subscribed stream: which simulcast layer at most. */
export type StreamQuality = 'low' | 'medium' | 'high';

/** The highest layer index of `count` layers (lowest first) for a preferred quality. Pure. */
export function qualityLayerIndex(quality: StreamQuality, count: number): number {
  if (count <= 1) return 0;
  if (quality === 'low') return 0;
  if (quality === 'medium') return Math.floor((count - 1) / 2);
  return count - 1;
}

/**
 * One participant's published video or screen stream. It takes RTP from the publisher's connection
 * (its source, replaceable when the publisher renegotiates): one layer without simulcast, or up to
 * three simulcast layers (by `rid`). It hands every packet, untouched, with its layer to its
 * consumers, which pick one layer each; while paused it forwards nothing. It asks the publisher for
 * keyframes (PLI) of a layer on behalf of its consumers, at most once per `keyframeRequestIntervalMs`
 * per layer.
 */
export class Producer extends TypedEmitter<ProducerEvents> {
  /** Unique id of this producer. */
  readonly id = randomUUID();
  /** Counters since creation. */
  readonly stats: ProducerStats = {
    packetsReceived: 0,
    packetsDropped: 0,
    packetsRepeated: 0,
    keyframeRequests: 0,
  };
  readonly #consumers = new Set<Consumer>();
  readonly #keyframeRequestIntervalMs: number;
  readonly #totals: SfuTotals | undefined;
  #layers: ProducerLayer[] = [];
  #unsubscribe: Array<() => void> = [];
  #paused = false;
  #closed = false;

  constructor(
    /** The publishing participant. */
    readonly participantId: string,
    /** Camera or screen. */
    readonly kind: StreamKind,
    options: {
      keyframeRequestIntervalMs: number;
      /** The SFU's totals, which count what this producer receives. */
      totals?: SfuTotals;
    },
  ) {
    super();
    this.#keyframeRequestIntervalMs = options.keyframeRequestIntervalMs;
    this.#totals = options.totals;
  }

  /** Whether the stream is disabled. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Whether {@link Producer.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The consumers forwarding this stream. */
  get consumers(): ReadonlySet<Consumer> {
    return this.#consumers;
  }

  /** The received layers, in the publisher's signalled order. */
  get layers(): readonly ProducerLayer[] {
    return this.#layers;
  }

  /**
   * The layers receiving packets now, lowest first: by the frame width their keyframes state once
   * every one of them sent a keyframe (a starved layer's bitrate may fall below a smaller one's,
   * its size does not); until then by measured bitrate once every one has one (a layer's first
   * second); before that in the publisher's signalled order.
   */
  activeLayers(nowMs: number = performance.now()): ProducerLayer[] {
    const active = this.#layers.filter((layer) => layer.isActive(nowMs));
    const sized = active.every((layer) => layer.frameWidth !== undefined);
    const measured = active.every((layer) => layer.bitrate > 0);
    const rank = (layer: ProducerLayer) => (sized ? (layer.frameWidth ?? 0) : measured ? layer.bitrate : 0);
    return active.sort(
      (left, right) => rank(left) - rank(right) || left.signalledIndex - right.signalledIndex,
    );
  }

  /**
   * Takes media from a (new) publisher track without simulcast. Consumers continue their streams
   * without a gap and wait for the next keyframe, which is requested at once.
   */
  attachSource(track: MediaStreamTrack, receiver: RTCRtpReceiver): void {
    this.#attach([track], receiver);
  }

  /**
   * Takes media from a (new) publisher receiver: its simulcast layers (tracks with a `rid`, at
   * most `maxLayers`) or else its one track. Layers keep their identity across sources by `rid`.
   */
  attachReceiver(receiver: RTCRtpReceiver, maxLayers = 3): void {
    const simulcast = receiver.tracks.filter((track) => track.rid !== undefined).slice(0, maxLayers);
    const tracks = simulcast.length > 0 ? simulcast : receiver.tracks.slice(0, 1);
    if (tracks.length > 0) this.#attach(tracks, receiver);
  }

  #attach(tracks: MediaStreamTrack[], receiver: RTCRtpReceiver): void {
    if (this.#closed) return;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    const previous = new Map(this.#layers.map((layer) => [layer.rid ?? '', layer]));
    this.#layers = tracks.map((track, index) => {
      const rid = track.rid;
      const layer = previous.get(rid ?? '') ?? new ProducerLayer(rid, index, this.#keyframeRequestIntervalMs);
      previous.delete(rid ?? '');
      layer.receiver = receiver;
      layer.mediaSsrc = track.ssrc;
      return layer;
    });
    for (const stale of previous.values()) stale.cancel();
    this.#unsubscribe = tracks.map((track, index) => {
      const layer = this.#layers[index] as ProducerLayer;
      return track.onReceiveRtp.subscribe((packet) => {
        layer.mediaSsrc ??= packet.header.ssrc;
        this.#forward(packet, layer);
      }).unSubscribe;
    });
    for (const consumer of this.#consumers) consumer.resync();
  }

  /**
   * Stops forwarding. Returns whether the state changed.
   */
  pause(): boolean {
    if (this.#closed || this.#paused) return false;
    this.#paused = true;
    this.emit('pause');
    return true;
  }

  /** Forwards again, starting each consumer at the next keyframe. Returns whether the state changed. */
  resume(): boolean {
    if (this.#closed || !this.#paused) return false;
    this.#paused = false;
    for (const consumer of this.#consumers) consumer.resync();
    this.emit('resume');
    return true;
  }

  /**
   * Asks the publisher for a keyframe of `layer` (every layer when omitted) now, or once the
   * layer's request interval has passed.
   */
  requestKeyframe(layer?: ProducerLayer): void {
    if (this.#closed) return;
    const canSend = () => !this.#paused && !this.#closed;
    const onSent = () => {
      this.stats.keyframeRequests += 1;
    };
    for (const target of layer === undefined ? this.#layers : [layer])
      target.requestKeyframe(canSend, onSent);
  }

  /** @internal Called by a new {@link Consumer}. */
  addConsumer(consumer: Consumer): void {
    this.#consumers.add(consumer);
  }

  /** @internal Counts a retransmission the publisher sent for the layer of `rid`. */
  noteRetransmission(rid: string): void {
    const layer = this.#layers.find((candidate) => candidate.rid === rid);
    if (layer !== undefined) layer.retransmissionsReceived += 1;
  }

  /** @internal Called by a closing {@link Consumer}. */
  removeConsumer(consumer: Consumer): void {
    this.#consumers.delete(consumer);
  }

  /** Stops forwarding for good and closes every consumer. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    for (const layer of this.#layers) layer.cancel();
    for (const consumer of [...this.#consumers]) consumer.close();
    this.emit('close');
    this.removeAllListeners();
  }

  #forward(packet: RtpPacket, layer: ProducerLayer): void {
    this.stats.packetsReceived += 1;
    const size = packet.serializeSize;
    if (this.#totals !== undefined) {
      this.#totals.videoPacketsReceived += 1;
      this.#totals.videoBytesReceived += size;
    }
    // A copy is neither the layer's bitrate nor anything a subscriber could use.
    if (layer.isRepeat(packet.header.ssrc, packet.header.sequenceNumber)) {
      this.stats.packetsRepeated += 1;
      if (this.#totals !== undefined) this.#totals.videoPacketsRepeated += 1;
      return;
    }
    layer.noteReceived(size, performance.now());
    if (this.#paused || this.#closed) {
      this.stats.packetsDropped += 1;
      return;
    }
    const keyframe = isVp8KeyframeStart(packet.payload);
    if (keyframe) layer.frameWidth = readVp8KeyframeSize(packet.payload)?.width ?? layer.frameWidth;
    const descriptor = readVp8Descriptor(packet.payload);
    for (const consumer of this.#consumers) consumer.forward(packet, keyframe, layer, descriptor);
  }
}
