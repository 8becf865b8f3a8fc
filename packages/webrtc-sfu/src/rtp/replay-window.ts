/**
 * Packets a replay window keeps track of, the highest one included: what Chromium and Firefox set
 * for libsrtp (whose own default is 128), so a packet late enough to be refused here would be
 * refused by a browser too. An older packet is refused even if it never arrived (RFC 3711 section
 * 3.3.2 leaves the size to the receiver).
 */
export const REPLAY_WINDOW_PACKETS = 1024;

/**
 * The replay list of one SRTP or SRTCP stream (RFC 3711 section 3.3.2): the highest packet index
 * accepted and which of the packets just before it were. Indexes are exact up to 2^53, so the 48-bit
 * SRTP index (rollover counter × 65,536 + sequence number) and the 31-bit SRTCP index both fit. Pure;
 * its caller accepts an index only once the packet proved authentic, so a forged one cannot mark an
 * index as seen or move the window ahead.
 */
export class ReplayWindow {
  /** The highest index accepted, -1 before the first. */
  #highest = -1;
  /** Bit `i` (word `i >>> 5`, bit `i & 31`) is set when index `#highest - i` was accepted. */
  readonly #seen = new Uint32Array(REPLAY_WINDOW_PACKETS / 32);

  /** Whether `index` would be a new packet: above the highest, or within the window and not accepted. */
  check(index: number): boolean {
    const behind = this.#highest - index;
    if (this.#highest < 0 || behind < 0) return true;
    if (behind >= REPLAY_WINDOW_PACKETS) return false;
    return ((this.#seen[behind >>> 5] ?? 0) & (1 << (behind & 31))) === 0;
  }

  /** Records `index` as received, sliding the window when it is the new highest. */
  accept(index: number): void {
    const behind = this.#highest - index;
    if (this.#highest >= 0 && behind >= 0) {
      if (behind < REPLAY_WINDOW_PACKETS) this.#mark(behind);
      return;
    }
    if (this.#highest >= 0) this.#slide(-behind);
    this.#highest = index;
    this.#mark(0);
  }

  #mark(behind: number): void {
    const word = behind >>> 5;
    this.#seen[word] = (this.#seen[word] ?? 0) | (1 << (behind & 31));
  }

  /** Moves every accepted index `by` bits further from the highest, dropping those that leave the window. */
  #slide(by: number): void {
    const seen = this.#seen;
    if (by >= REPLAY_WINDOW_PACKETS) {
      seen.fill(0);
      return;
    }
    const words = by >>> 5;
    const bits = by & 31;
    for (let word = seen.length - 1; word >= 0; word--) {
      const from = word - words;
      const shifted = from >= 0 ? (seen[from] ?? 0) << bits : 0;
      // `>>> 32` would shift by nothing, so a whole-word slide carries no bits over.
      const carried = bits > 0 && from > 0 ? (seen[from - 1] ?? 0) >>> (32 - bits) : 0;
      seen[word] = shifted | carried;
    }
  }
}
