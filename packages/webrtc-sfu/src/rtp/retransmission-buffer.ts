/**
 * The last `capacity` packets sent on one stream, by sequence number, for answering NACKs. A slot is
 * reused by the packet `capacity` numbers later, so a request for a packet that old finds nothing.
 */
export class RetransmissionBuffer<Packet> {
  readonly #slots: Array<{ sequenceNumber: number; packet: Packet } | undefined>;

  constructor(readonly capacity: number) {
    this.#slots = new Array(capacity);
  }

  /** Keeps a sent packet. */
  store(sequenceNumber: number, packet: Packet): void {
    this.#slots[sequenceNumber % this.capacity] = { sequenceNumber, packet };
  }

  /** The packet sent with that number, if it is still kept. */
  get(sequenceNumber: number): Packet | undefined {
    const slot = this.#slots[sequenceNumber % this.capacity];
    return slot?.sequenceNumber === sequenceNumber ? slot.packet : undefined;
  }

  /** Forgets every packet. */
  clear(): void {
    this.#slots.fill(undefined);
  }
}
