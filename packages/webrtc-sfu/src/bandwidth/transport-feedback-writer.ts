import {
  RecvDelta,
  type RTCDtlsTransport,
  RtcpHeader,
  RtcpTransportLayerFeedback,
  RunLengthChunk,
  TransportWideCC,
} from 'werift';

const notReceived = 0;
const receivedSmall = 1;
const receivedLarge = 2;
const flushEveryMs = 100;
/** A report spans at most this many sequence numbers; a larger jump starts over. */
const maxSpan = 8_000;

/** Bytes of a TWCC report after its 4-byte RTCP header: SSRCs, fixed fields, chunks, deltas. */
function feedbackBodyBytes(chunks: number, recvDeltas: readonly RecvDelta[]): number {
  const deltaBytes = recvDeltas.reduce((sum, delta) => sum + (delta.type === receivedSmall ? 1 : 2), 0);
  return 8 + 8 + 2 * chunks + deltaBytes;
}

/** Microseconds on a monotonic clock. */
export function monotonicMicroseconds(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Transport-wide congestion control feedback (TWCC) for what a connection receives, sent every
 * 100 ms: which transport-wide sequence numbers arrived and when. The SFU sends it to publishers so
 * their own congestion control (a browser's) finds room for their simulcast layers. werift 0.24's
 * own TWCC sender writes reports that werift itself cannot parse (no padding to a 32-bit boundary,
 * run lengths off by one), so the SFU disables it and writes these instead.
 */
export class TransportFeedbackWriter {
  readonly #arrivals: Array<{ sequenceNumber: number; atUs: number; lost: boolean }> = [];
  readonly #timer: NodeJS.Timeout;
  #feedbackCount = 0;
  /** The SSRC the reports name as media source (the last seen). */
  mediaSsrc = 0;
  /** Reports sent. */
  sent = 0;

  constructor(
    readonly transport: () => RTCDtlsTransport | undefined,
    readonly senderSsrc: number,
  ) {
    this.#timer = setInterval(() => this.flush(), flushEveryMs);
    this.#timer.unref();
  }

  /** Notes a packet with transport-wide sequence number `sequenceNumber`; `lost` reports it missing. */
  received(sequenceNumber: number, mediaSsrc: number, atUs = monotonicMicroseconds(), lost = false): void {
    this.mediaSsrc = mediaSsrc;
    if (this.#arrivals.length >= maxSpan) this.#arrivals.splice(0, this.#arrivals.length - maxSpan / 2);
    this.#arrivals.push({ sequenceNumber, atUs, lost });
  }

  /** Stops reporting. */
  stop(): void {
    clearInterval(this.#timer);
    this.#arrivals.length = 0;
  }

  /** Sends a report of the packets noted since the last one. */
  flush(): void {
    const transport = this.transport();
    if (this.#arrivals.length === 0 || transport?.state !== 'connected') return;
    const arrivals = this.#arrivals.splice(0);
    const feedback = this.#feedback(arrivals);
    if (feedback === undefined) return;
    this.sent += 1;
    transport.sendRtcp([new RtcpTransportLayerFeedback({ feedback })]).catch(() => {});
  }

  #feedback(
    arrivals: Array<{ sequenceNumber: number; atUs: number; lost: boolean }>,
  ): TransportWideCC | undefined {
    const firstSequence = arrivals[0]?.sequenceNumber ?? 0;
    // Unwrap around the first number so a report across 65535 -> 0 keeps its order.
    const unwrapped = arrivals.map((arrival) => {
      const offset = (arrival.sequenceNumber - firstSequence + 0x1_8000) % 0x1_0000;
      return { ...arrival, unwrapped: firstSequence + offset - 0x8000 };
    });
    unwrapped.sort((left, right) => left.unwrapped - right.unwrapped);
    const first = unwrapped[0];
    const last = unwrapped[unwrapped.length - 1];
    if (first === undefined || last === undefined || last.unwrapped - first.unwrapped >= maxSpan)
      return undefined;
    const byNumber = new Map(unwrapped.map((arrival) => [arrival.unwrapped, arrival]));
    const firstReceived = unwrapped.find((arrival) => !arrival.lost);
    const referenceTime = Math.floor((firstReceived?.atUs ?? first.atUs) / 64_000);
    let previousUs = referenceTime * 64_000;
    const statuses: number[] = [];
    const recvDeltas: RecvDelta[] = [];
    for (let number = first.unwrapped; number <= last.unwrapped; number += 1) {
      const arrival = byNumber.get(number);
      if (arrival === undefined || arrival.lost) {
        statuses.push(notReceived);
        continue;
      }
      const delta = arrival.atUs - previousUs;
      previousUs = arrival.atUs;
      const type = delta >= 0 && delta <= 63_750 ? receivedSmall : receivedLarge;
      statuses.push(type);
      recvDeltas.push(new RecvDelta({ type, delta }));
    }
    const packetChunks: RunLengthChunk[] = [];
    let runStart = 0;
    statuses.forEach((status, index) => {
      if (index + 1 === statuses.length || statuses[index + 1] !== status) {
        packetChunks.push(new RunLengthChunk({ packetStatus: status, runLength: index + 1 - runStart }));
        runStart = index + 1;
      }
    });
    const feedback = new TransportWideCC({
      senderSsrc: this.senderSsrc,
      mediaSourceSsrc: this.mediaSsrc,
      baseSequenceNumber: (first.unwrapped + 0x1_0000) % 0x1_0000,
      packetStatusCount: statuses.length,
      referenceTime: referenceTime & 0xff_ffff,
      fbPktCount: this.#feedbackCount,
      packetChunks,
      recvDeltas,
      // The P bit only when padding follows: werift sets no padding bytes on a report already of a
      // multiple of 4 bytes but keeps the bit, and receivers (werift, browsers) then strip bytes
      // that are not padding and drop the report (about one report in four).
      header: new RtcpHeader({
        type: 205,
        count: TransportWideCC.count,
        version: 2,
        padding: feedbackBodyBytes(packetChunks.length, recvDeltas) % 4 !== 0,
      }),
    });
    this.#feedbackCount = (this.#feedbackCount + 1) % 256;
    return feedback;
  }
}
