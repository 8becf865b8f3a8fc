/**
 * What an SFU has carried since it was created, and what it holds now. Totals only grow: they keep
 * the packets of closed routers, sessions, producers and consumers.
 */
export interface SfuStats {
  /** Open routers (meetings). */
  readonly routers: number;
  /** Open sessions (participants) across all routers. */
  readonly sessions: number;
  /** Published video and screen streams now. */
  readonly producers: number;
  /** Forwardings of a stream to one subscriber now. */
  readonly consumers: number;
  /** Sessions opened since the start. */
  readonly sessionsOpened: number;
  /** RTP packets received from publishers' video and screen streams. */
  readonly videoPacketsReceived: number;
  /** Their bytes (RTP header and payload). */
  readonly videoBytesReceived: number;
  /**
   * Of those, packets that arrived twice on their layer and were not forwarded again: a sender's
   * RTX padding for its bandwidth probes, or a retransmission that crossed the late original.
   */
  readonly videoPacketsRepeated: number;
  /** RTP packets of video and screen streams forwarded to subscribers, retransmissions excluded. */
  readonly videoPacketsForwarded: number;
  /** Their bytes (RTP header and payload). */
  readonly videoBytesForwarded: number;
  /** Packets resent to subscribers that reported them lost (NACK). */
  readonly retransmissions: number;
  /** RTP packets of the audio mix sent to participants. */
  readonly audioPacketsSent: number;
  /** Their bytes (RTP header and payload). */
  readonly audioBytesSent: number;
}

/** @internal The running totals of one SFU, kept by its producers, consumers and audio connections. */
export type SfuTotals = {
  -readonly [Key in Exclude<keyof SfuStats, 'routers' | 'sessions' | 'producers' | 'consumers'>]: number;
};

/** @internal Totals at zero. */
export function createSfuTotals(): SfuTotals {
  return {
    sessionsOpened: 0,
    videoPacketsReceived: 0,
    videoBytesReceived: 0,
    videoPacketsRepeated: 0,
    videoPacketsForwarded: 0,
    videoBytesForwarded: 0,
    retransmissions: 0,
    audioPacketsSent: 0,
    audioBytesSent: 0,
  };
}
