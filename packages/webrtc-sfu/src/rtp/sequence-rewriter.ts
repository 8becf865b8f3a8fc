/** The sequence number and timestamp a packet gets on the way out. */
export interface RewrittenHeader {
  sequenceNumber: number;
  timestamp: number;
}

const seqModulo = 0x1_0000;
const timestampModulo = 0x1_0000_0000;

/** Signed distance from `from` to `to` on the 16-bit sequence circle (-32768..32767). */
export function sequenceDistance(from: number, to: number): number {
  const difference = (to - from + seqModulo) % seqModulo;
  return difference >= seqModulo / 2 ? difference - seqModulo : difference;
}

/**
 * Keeps one outgoing RTP stream continuous while its input changes: a new publisher connection,
 * a pause and resume, or dropped packets. After {@link SequenceRewriter.resync} the next input
 * packet continues right after the last output, and its timestamp advances by the wall-clock time
 * elapsed, so receivers see neither a sequence gap (which they would NACK) nor a time jump back. Pure:
 * the caller passes the time.
 */
export class SequenceRewriter {
  readonly #clockRate: number;
  #sequenceOffset = 0;
  #timestampOffset = 0;
  #highestInput: number | undefined;
  #runStart = 0;
  #lastOutput: { sequenceNumber: number; timestamp: number; atMs: number } | undefined;
  #needsSync = true;

  constructor(clockRate: number) {
    this.#clockRate = clockRate;
  }

  /** The next packet starts a new run (new source, or the first packet after a pause). */
  resync(): void {
    this.#needsSync = true;
  }

  /**
   * The header for an input packet, or `undefined` for a packet older than the current run's start
   * (it was already replaced by the run's continuity).
   */
  rewrite(sequenceNumber: number, timestamp: number, nowMs: number): RewrittenHeader | undefined {
    if (this.#needsSync) this.#sync(sequenceNumber, timestamp, nowMs);
    if (sequenceDistance(this.#runStart, sequenceNumber) < 0) return undefined;
    const highest = this.#highestInput ?? sequenceNumber;
    const distance = sequenceDistance(highest, sequenceNumber);
    if (distance > 0) this.#highestInput = sequenceNumber;
    const output = {
      sequenceNumber: (sequenceNumber + this.#sequenceOffset + seqModulo) % seqModulo,
      timestamp: (timestamp + this.#timestampOffset + timestampModulo) % timestampModulo,
    };
    if (distance >= 0) {
      // Updated in place: this runs per forwarded packet and subscriber.
      if (this.#lastOutput === undefined) this.#lastOutput = { ...output, atMs: nowMs };
      else {
        this.#lastOutput.sequenceNumber = output.sequenceNumber;
        this.#lastOutput.timestamp = output.timestamp;
        this.#lastOutput.atMs = nowMs;
      }
    }
    return output;
  }

  /** The input packet with this number is not forwarded (padding); later ones close the gap. */
  skip(sequenceNumber: number): void {
    if (this.#needsSync || this.#highestInput === undefined) return;
    if (sequenceDistance(this.#highestInput, sequenceNumber) === 1) {
      this.#highestInput = sequenceNumber;
      this.#sequenceOffset = (this.#sequenceOffset - 1 + seqModulo) % seqModulo;
    }
  }

  #sync(sequenceNumber: number, timestamp: number, nowMs: number): void {
    this.#needsSync = false;
    this.#highestInput = sequenceNumber;
    this.#runStart = sequenceNumber;
    const last = this.#lastOutput;
    if (last === undefined) {
      this.#sequenceOffset = 0;
      this.#timestampOffset = 0;
      return;
    }
    const elapsedTicks = Math.max(1, Math.round(((nowMs - last.atMs) * this.#clockRate) / 1000));
    this.#sequenceOffset = (last.sequenceNumber + 1 - sequenceNumber + 2 * seqModulo) % seqModulo;
    this.#timestampOffset =
      (last.timestamp + elapsedTicks - timestamp + 2 * timestampModulo) % timestampModulo;
  }
}
