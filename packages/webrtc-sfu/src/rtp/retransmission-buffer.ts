/**
 * The last `capacity` packets sent on one stream, by sequence number, for answering NACKs. A slot is
 * reused by the packet `capacity` numbers later, so a request for a packet that old finds nothing.
 */
export class RetransmissionBuffer<Packet> {
  readonly #slots: Array<Packet | undefined>;
  /** The sequence number of each slot's packet, -1 when empty (no object per stored packet: this runs per forwarded packet). */
  readonly #numbers: Int32Array;

  constructor(readonly capacity: number) {
    this.#slots = new Array(capacity);
    this.#numbers = new Int32Array(capacity).fill(-1);
  }

  /** Keeps a sent packet. */
  store(sequenceNumber: number, packet: Packet): void {
    const slot = sequenceNumber % this.capacity;
    this.#slots[slot] = packet;
    this.#numbers[slot] = sequenceNumber;
  }

  /** The packet sent with that number, if it is still kept. */
  get(sequenceNumber: number): Packet | undefined {
    const slot = sequenceNumber % this.capacity;
    return this.#numbers[slot] === sequenceNumber ? this.#slots[slot] : undefined;
  }

  /** Forgets every packet. */
  clear(): void {
    this.#slots.fill(undefined);
    this.#numbers.fill(-1);
  }
}
