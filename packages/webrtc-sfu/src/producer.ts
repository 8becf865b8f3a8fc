import { randomUUID } from 'node:crypto';
import type { MediaStreamTrack, RTCRtpReceiver, RtpPacket } from 'werift';
import type { Consumer } from './consumer.js';
import { isVp8KeyframeStart } from './rtp/vp8.js';
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
  packetsDropped: number;
  keyframeRequests: number;
}

interface ProducerSource {
  receiver: RTCRtpReceiver;
  mediaSsrc: number | undefined;
  unsubscribe: () => void;
}

/**
 * One participant's published video or screen stream. It takes RTP from the publisher's connection
 * (its source, replaceable when the publisher renegotiates) and hands every packet, untouched, to
 * its consumers; while paused it forwards nothing. It asks the publisher for keyframes (PLI) on
 * behalf of its consumers, at most once per `keyframeRequestIntervalMs`.
 */
export class Producer extends TypedEmitter<ProducerEvents> {
  /** Unique id of this producer. */
  readonly id = randomUUID();
  /** Counters since creation. */
  readonly stats: ProducerStats = { packetsReceived: 0, packetsDropped: 0, keyframeRequests: 0 };
  readonly #consumers = new Set<Consumer>();
  readonly #keyframeRequestIntervalMs: number;
  readonly #totals: SfuTotals | undefined;
  #source: ProducerSource | undefined;
  #paused = false;
  #closed = false;
  #lastKeyframeRequestMs = Number.NEGATIVE_INFINITY;
  #pendingKeyframeRequest: NodeJS.Timeout | undefined;

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

  /**
   * Takes media from a (new) publisher track. Consumers continue their streams without a gap and
   * wait for the next keyframe, which is requested at once.
   */
  attachSource(track: MediaStreamTrack, receiver: RTCRtpReceiver): void {
    if (this.#closed) return;
    this.#source?.unsubscribe();
    const source: ProducerSource = { receiver, mediaSsrc: track.ssrc, unsubscribe: () => {} };
    source.unsubscribe = track.onReceiveRtp.subscribe((packet) => {
      source.mediaSsrc ??= packet.header.ssrc;
      this.#forward(packet);
    }).unSubscribe;
    this.#source = source;
    for (const consumer of this.#consumers) consumer.resync();
    if (this.#consumers.size > 0) this.requestKeyframe();
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
    this.requestKeyframe();
    this.emit('resume');
    return true;
  }

  /** Asks the publisher for a keyframe now, or once the request interval has passed. */
  requestKeyframe(): void {
    if (this.#closed || this.#pendingKeyframeRequest !== undefined) return;
    const wait = this.#lastKeyframeRequestMs + this.#keyframeRequestIntervalMs - performance.now();
    if (wait <= 0) {
      this.#sendKeyframeRequest();
      return;
    }
    this.#pendingKeyframeRequest = setTimeout(() => {
      this.#pendingKeyframeRequest = undefined;
      this.#sendKeyframeRequest();
    }, wait);
    this.#pendingKeyframeRequest.unref();
  }

  /** @internal Called by a new {@link Consumer}. */
  addConsumer(consumer: Consumer): void {
    this.#consumers.add(consumer);
    this.requestKeyframe();
  }

  /** @internal Called by a closing {@link Consumer}. */
  removeConsumer(consumer: Consumer): void {
    this.#consumers.delete(consumer);
  }

  /** Stops forwarding for good and closes every consumer. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#source?.unsubscribe();
    this.#source = undefined;
    clearTimeout(this.#pendingKeyframeRequest);
    for (const consumer of [...this.#consumers]) consumer.close();
    this.emit('close');
    this.removeAllListeners();
  }

  #forward(packet: RtpPacket): void {
    this.stats.packetsReceived += 1;
    if (this.#totals !== undefined) {
      this.#totals.videoPacketsReceived += 1;
      this.#totals.videoBytesReceived += packet.serializeSize;
    }
    if (this.#paused || this.#closed) {
      this.stats.packetsDropped += 1;
      return;
    }
    const keyframe = isVp8KeyframeStart(packet.payload);
    for (const consumer of this.#consumers) consumer.forward(packet, keyframe);
  }

  #sendKeyframeRequest(): void {
    const source = this.#source;
    if (source?.mediaSsrc === undefined || this.#paused) return;
    this.#lastKeyframeRequestMs = performance.now();
    this.stats.keyframeRequests += 1;
    source.receiver.sendRtcpPLI(source.mediaSsrc).catch(() => {});
  }
}
