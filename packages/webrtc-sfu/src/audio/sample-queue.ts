/**
 * Decoded samples of one speaker waiting to be mixed. Packets may carry 10 to 60 ms; the mixer
 * takes exactly one frame per tick. Beyond `capacity` samples the oldest are dropped, so a sender
 * whose clock runs fast does not build up delay. The samples live in one ring of `capacity`
 * allocated once: pushing and taking copy, and allocate nothing.
 */
export class SampleQueue {
  readonly #ring: Int16Array;
  #start = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    this.#ring = new Int16Array(capacity);
  }

  /** Samples waiting. */
  get size(): number {
    return this.#size;
  }

  /** Appends a copy of the samples, dropping the oldest beyond capacity. */
  push(samples: Int16Array): void {
    const capacity = this.capacity;
    const kept = samples.length > capacity ? samples.subarray(samples.length - capacity) : samples;
    if (kept.length === 0) return;
    const overflow = this.#size + kept.length - capacity;
    if (overflow > 0) {
      this.#start = (this.#start + overflow) % capacity;
      this.#size -= overflow;
    }
    const end = (this.#start + this.#size) % capacity;
    const first = Math.min(kept.length, capacity - end);
    this.#ring.set(kept.subarray(0, first), end);
    if (first < kept.length) this.#ring.set(kept.subarray(first), 0);
    this.#size += kept.length;
  }

  /** Removes exactly `target.length` samples into `target`; false (and nothing removed) when fewer wait. */
  takeInto(target: Int16Array): boolean {
    const count = target.length;
    if (this.#size < count) return false;
    const capacity = this.capacity;
    const first = Math.min(count, capacity - this.#start);
    target.set(this.#ring.subarray(this.#start, this.#start + first), 0);
    if (first < count) target.set(this.#ring.subarray(0, count - first), first);
    this.#start = (this.#start + count) % capacity;
    this.#size -= count;
    return true;
  }

  /** Removes and returns exactly `count` samples, or `undefined` when fewer are waiting. */
  take(count: number): Int16Array | undefined {
    const frame = new Int16Array(count);
    return this.takeInto(frame) ? frame : undefined;
  }

  /** Forgets every sample. */
  clear(): void {
    this.#start = 0;
    this.#size = 0;
  }
}
