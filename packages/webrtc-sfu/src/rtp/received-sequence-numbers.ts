import { REPLAY_WINDOW_PACKETS, ReplayWindow } from './replay-window.js';

const sequenceModulo = 0x1_0000;
/** Where the first packet's number is placed on the extended line, so older ones stay positive. */
const firstExtended = 0x1_0000_0000;
/**
 * A packet this far behind the highest is taken for a sender that started counting anew (same
 * SSRC), not for a repeat: the history restarts at it instead of refusing the stream for good.
 */
const restartBehind = 4 * REPLAY_WINDOW_PACKETS;

/**
 * Which RTP sequence numbers of one stream arrived, to refuse a packet that arrives twice. Senders
 * repeat packets that did arrive: libwebrtc (Chromium, Firefox) pads for its bandwidth probes with
 * RTX copies of packets it sent a moment ago, and a retransmission may answer a NACK the receiver
 * sent before the late original came. Forwarded again, such a copy reaches the subscriber as a
 * packet it already has: its SRTP replay check drops it, and its transport-wide feedback then
 * reports the copy lost. The numbers are extended past the 16-bit wrap and kept in a
 * {@link ReplayWindow} of the packets just before the highest; an older packet counts as a repeat
 * too (a browser would refuse it as well). A new SSRC, or a packet far behind, starts the history
 * anew. Pure.
 */
export class ReceivedSequenceNumbers {
  #window = new ReplayWindow();
  #ssrc: number | undefined;
  #highest = -1;

  /** Records a packet of `ssrc` numbered `sequenceNumber`; returns false when it arrived before. */
  receive(ssrc: number, sequenceNumber: number): boolean {
    if (ssrc !== this.#ssrc || this.#highest < 0) return this.#restart(ssrc, sequenceNumber);
    const extended = this.#extend(sequenceNumber);
    if (this.#highest - extended >= restartBehind) return this.#restart(ssrc, sequenceNumber);
    if (!this.#window.check(extended)) return false;
    this.#window.accept(extended);
    this.#highest = Math.max(this.#highest, extended);
    return true;
  }

  /** The number on the extended line nearest to the highest so far. */
  #extend(sequenceNumber: number): number {
    const highest = this.#highest;
    let extended = highest - (highest % sequenceModulo) + sequenceNumber;
    if (extended - highest > sequenceModulo / 2) extended -= sequenceModulo;
    else if (highest - extended > sequenceModulo / 2) extended += sequenceModulo;
    return extended;
  }

  #restart(ssrc: number, sequenceNumber: number): true {
    this.#ssrc = ssrc;
    this.#window = new ReplayWindow();
    this.#highest = firstExtended + sequenceNumber;
    this.#window.accept(this.#highest);
    return true;
  }
}
