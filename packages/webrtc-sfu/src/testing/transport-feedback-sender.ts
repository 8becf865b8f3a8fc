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

/**
 * Transport-wide congestion control feedback as a test client's receiver would send it, every
 * 100 ms, for the packets it saw. werift's own TWCC sender in 0.24 stops after its first report, so
 * test clients use this one. A bitrate limit (a token bucket) makes it report the packets above the
 * limit as lost, like a receiver behind a shaped link.
 */
export class TransportFeedbackSender {
  readonly #arrivals: Array<{ sequenceNumber: number; atUs: number; lost: boolean }> = [];
  #timer: NodeJS.Timeout | undefined;
  #feedbackCount = 0;
  #limit: number | undefined;
  #tokens = 0;
  #lastFillUs = 0;
  /** Feedback packets sent. */
  sent = 0;

  constructor(
    readonly transport: () => RTCDtlsTransport | undefined,
    readonly senderSsrc: number,
  ) {
    this.#timer = setInterval(() => this.#flush(), 100);
    this.#timer.unref();
  }

  /** Reports packets beyond `bitrate` bit/s as lost; `undefined` lifts the limit. */
  limit(bitrate: number | undefined): void {
    this.#limit = bitrate;
    this.#tokens = 0;
    this.#lastFillUs = Number(process.hrtime.bigint() / 1000n);
  }

  /** Notes a received packet with its transport-wide sequence number and size. */
  received(sequenceNumber: number, bytes: number, mediaSsrc: number): void {
    this.mediaSsrc = mediaSsrc;
    const atUs = Number(process.hrtime.bigint() / 1000n);
    let lost = false;
    if (this.#limit !== undefined) {
      this.#tokens = Math.min(
        this.#limit / 8 / 5,
        this.#tokens + ((atUs - this.#lastFillUs) / 1_000_000) * (this.#limit / 8),
      );
      this.#lastFillUs = atUs;
      if (this.#tokens >= bytes) this.#tokens -= bytes;
      else lost = true;
    }
    this.#arrivals.push({ sequenceNumber, atUs, lost });
  }

  mediaSsrc = 0;

  stop(): void {
    clearInterval(this.#timer);
  }

  #flush(): void {
    const transport = this.transport();
    if (this.#arrivals.length === 0 || transport?.state !== 'connected') return;
    const arrivals = this.#arrivals
      .splice(0)
      .sort((left, right) => left.sequenceNumber - right.sequenceNumber);
    const first = arrivals[0];
    const last = arrivals[arrivals.length - 1];
    if (first === undefined || last === undefined || last.sequenceNumber - first.sequenceNumber > 8000)
      return;
    const bySequence = new Map(arrivals.map((arrival) => [arrival.sequenceNumber, arrival]));
    const received = arrivals.filter((arrival) => !arrival.lost);
    const referenceTime = Math.floor((received[0]?.atUs ?? first.atUs) / 64_000);
    let previousUs = referenceTime * 64_000;
    const statuses: number[] = [];
    const recvDeltas: RecvDelta[] = [];
    for (let sequence = first.sequenceNumber; sequence <= last.sequenceNumber; sequence += 1) {
      const arrival = bySequence.get(sequence);
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
      baseSequenceNumber: first.sequenceNumber,
      packetStatusCount: statuses.length,
      referenceTime: referenceTime & 0xff_ffff,
      fbPktCount: this.#feedbackCount,
      packetChunks,
      recvDeltas,
      header: new RtcpHeader({ type: 205, count: TransportWideCC.count, version: 2, padding: true }),
    });
    this.#feedbackCount = (this.#feedbackCount + 1) % 256;
    this.sent += 1;
    transport.sendRtcp([new RtcpTransportLayerFeedback({ feedback })]).catch(() => {});
  }
}
