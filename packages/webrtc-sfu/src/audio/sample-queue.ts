/**
 * Decoded samples of one speaker waiting to be mixed. Packets may carry 10 to 60 ms; the mixer
 * takes exactly one frame per tick. Beyond `capacity` samples the oldest are dropped, so a sender
 * whose clock runs fast does not build up delay.
 */
export class SampleQueue {
  readonly #chunks: Int16Array[] = [];
  #offset = 0;
  #size = 0;

  constructor(readonly capacity: number) {}

  /** Samples waiting. */
  get size(): number {
    return this.#size;
  }

  /** Appends samples, dropping the oldest beyond capacity. */
  push(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.#chunks.push(samples);
    this.#size += samples.length;
    while (this.#size > this.capacity) this.#drop(this.#size - this.capacity);
  }

  /** Removes and returns exactly `count` samples, or `undefined` when fewer are waiting. */
  take(count: number): Int16Array | undefined {
    if (this.#size < count) return undefined;
    const frame = new Int16Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.#chunks[0] as Int16Array;
      const available = chunk.length - this.#offset;
      const used = Math.min(available, count - filled);
      frame.set(chunk.subarray(this.#offset, this.#offset + used), filled);
      filled += used;
      this.#advance(used, available);
    }
    this.#size -= count;
    return frame;
  }

  /** Forgets every sample. */
  clear(): void {
    this.#chunks.length = 0;
    this.#offset = 0;
    this.#size = 0;
  }

  #drop(count: number): void {
    let remaining = count;
    while (remaining > 0) {
      const chunk = this.#chunks[0] as Int16Array;
      const available = chunk.length - this.#offset;
      const dropped = Math.min(available, remaining);
      remaining -= dropped;
      this.#size -= dropped;
      this.#advance(dropped, available);
    }
  }

  #advance(used: number, available: number): void {
    if (used === available) {
      this.#chunks.shift();
      this.#offset = 0;
    } else {
      this.#offset += used;
    }
  }
}
