import type { RTCRtpReceiver } from 'werift';
import { ReceivedSequenceNumbers } from './rtp/received-sequence-numbers.js';

/** How long a layer may go without a packet before it counts as stopped (a sender drops layers when its own link is weak). */
const activeWithinMs = 2_000;
/** Bitrate measurement window. */
const measureWindowMs = 1_000;

/**
 * One received encoding of a published stream: a simulcast layer (by its `rid`) or the only
 * encoding of a publisher without simulcast (`rid` undefined). It measures its bitrate and asks
 * the publisher for its keyframes, at most once per `keyframeRequestIntervalMs`.
 */
export class ProducerLayer {
  /** The SSRC the publisher sends this layer on, once seen. */
  mediaSsrc: number | undefined;
  /** The publisher connection's receiver this layer arrives on. */
  receiver: RTCRtpReceiver | undefined;
  /** Packets received on this layer. */
  packetsReceived = 0;
  /**
   * Retransmissions (RTX) of this layer's packets from a simulcast publisher, taken to the layer:
   * the repairs of its losses, and the copies of packets it already had that libwebrtc pads its
   * bandwidth probes with.
   */
  retransmissionsReceived = 0;
  /** Keyframe requests sent to the publisher for this layer. */
  keyframeRequests = 0;
  /** The frame width its last keyframe stated (VP8), undefined before one arrived. */
  frameWidth: number | undefined;
  #bitrate = 0;
  #windowStartMs = Number.NEGATIVE_INFINITY;
  #windowBytes = 0;
  #lastPacketMs = Number.NEGATIVE_INFINITY;
  #lastKeyframeRequestMs = Number.NEGATIVE_INFINITY;
  #pendingKeyframeRequest: NodeJS.Timeout | undefined;
  readonly #received = new ReceivedSequenceNumbers();

  constructor(
    /** The simulcast stream id (`a=rid`), or undefined without simulcast. */
    readonly rid: string | undefined,
    /** Position in the publisher's `a=simulcast` list (0 without simulcast). */
    readonly signalledIndex: number,
    readonly keyframeRequestIntervalMs: number,
  ) {}

  /** Bit/s over the last complete measurement window (0 before the first). */
  get bitrate(): number {
    return this.#bitrate;
  }

  /** Whether a packet arrived within the last two seconds. */
  isActive(nowMs: number): boolean {
    return nowMs - this.#lastPacketMs <= activeWithinMs;
  }

  /**
   * @internal Whether a packet of `ssrc` numbered `sequenceNumber` arrived before on this layer (a
   * sender's repeat: its RTX padding, or a retransmission that crossed the late original); records
   * it otherwise.
   */
  isRepeat(ssrc: number, sequenceNumber: number): boolean {
    return !this.#received.receive(ssrc, sequenceNumber);
  }

  /** @internal Counts a received packet of `bytes` bytes. */
  noteReceived(bytes: number, nowMs: number): void {
    this.packetsReceived += 1;
    this.#lastPacketMs = nowMs;
    const elapsed = nowMs - this.#windowStartMs;
    if (elapsed >= measureWindowMs) {
      if (Number.isFinite(elapsed) && elapsed < 2 * measureWindowMs) {
        this.#bitrate = (this.#windowBytes * 8 * 1000) / elapsed;
      }
      this.#windowStartMs = nowMs;
      this.#windowBytes = 0;
    }
    this.#windowBytes += bytes;
  }

  /**
   * Asks the publisher for a keyframe of this layer now, or once the interval has passed; returns
   * whether a request was sent or scheduled (false while one is pending).
   */
  requestKeyframe(canSend: () => boolean, onSent: () => void): boolean {
    if (this.#pendingKeyframeRequest !== undefined) return false;
    const wait = this.#lastKeyframeRequestMs + this.keyframeRequestIntervalMs - performance.now();
    if (wait <= 0) {
      this.#send(canSend, onSent);
      return true;
    }
    this.#pendingKeyframeRequest = setTimeout(() => {
      this.#pendingKeyframeRequest = undefined;
      this.#send(canSend, onSent);
    }, wait);
    this.#pendingKeyframeRequest.unref();
    return true;
  }

  /** Drops a scheduled keyframe request. */
  cancel(): void {
    clearTimeout(this.#pendingKeyframeRequest);
    this.#pendingKeyframeRequest = undefined;
  }

  #send(canSend: () => boolean, onSent: () => void): void {
    const ssrc = this.mediaSsrc;
    if (ssrc === undefined || this.receiver === undefined || !canSend()) return;
    this.#lastKeyframeRequestMs = performance.now();
    this.keyframeRequests += 1;
    onSent();
    this.receiver.sendRtcpPLI(ssrc).catch(() => {});
  }
}
