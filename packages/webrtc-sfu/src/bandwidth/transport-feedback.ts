import { RunLengthChunk, StatusVectorChunk, type TransportWideCC } from 'werift';

/** One packet's fate in a transport-wide congestion control feedback. */
export interface FeedbackResult {
  /** Transport-wide sequence number (16 bits). */
  sequenceNumber: number;
  received: boolean;
  /** Arrival time at the receiver in ms on its own clock; only meaningful for received packets. */
  receivedAtMs: number;
}

const receivedSmall = 1;
const receivedLarge = 2;

/**
 * The per-packet results of a TWCC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01),
 * from werift's parsed chunks. werift's own `packetResults` reads only run-length chunks, while
 * browsers mostly send status vectors, so this reads both. Pure.
 */
export function transportFeedbackResults(feedback: TransportWideCC): FeedbackResult[] {
  const statuses: number[] = [];
  for (const chunk of feedback.packetChunks) {
    if (statuses.length >= feedback.packetStatusCount) break;
    if (chunk instanceof RunLengthChunk) {
      for (let index = 0; index < chunk.runLength; index += 1) statuses.push(chunk.packetStatus);
    } else if (chunk instanceof StatusVectorChunk) {
      for (const symbol of chunk.symbolList) statuses.push(symbol);
    }
  }
  statuses.length = Math.min(statuses.length, feedback.packetStatusCount);
  const results: FeedbackResult[] = [];
  let receivedAtMs = feedback.referenceTime * 64;
  let deltaIndex = 0;
  statuses.forEach((status, index) => {
    const sequenceNumber = (feedback.baseSequenceNumber + index) & 0xffff;
    const received = status === receivedSmall || status === receivedLarge;
    if (received) {
      const delta = feedback.recvDeltas[deltaIndex];
      deltaIndex += 1;
      receivedAtMs += (delta?.delta ?? 0) / 1000;
    }
    results.push({ sequenceNumber, received, receivedAtMs });
  });
  return results;
}
