/** One kept packet of a {@link SentPacketHistory}. */
export interface SentPacket {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
  payload: Buffer;
}

/** The last `capacity` packets a test sender sent on one stream, by sequence number, to answer NACKs. */
export class SentPacketHistory {
  readonly #packets = new Map<number, SentPacket>();

  constructor(readonly capacity: number) {}

  store(sequenceNumber: number, timestamp: number, marker: boolean, payload: Buffer): void {
    this.#packets.delete(sequenceNumber);
    this.#packets.set(sequenceNumber, { sequenceNumber, timestamp, marker, payload });
    if (this.#packets.size > this.capacity) {
      const oldest = this.#packets.keys().next().value;
      if (oldest !== undefined) this.#packets.delete(oldest);
    }
  }

  get(sequenceNumber: number): SentPacket | undefined {
    return this.#packets.get(sequenceNumber);
  }
}
