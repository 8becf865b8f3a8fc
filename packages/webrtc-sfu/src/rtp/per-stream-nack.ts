import type { RTCRtpReceiver, RtpPacket } from 'werift';
import { type NackReceiverInternals, NackRequester, type PacketLostEvent } from './nack-requester.js';

/**
 * What this file uses of werift 0.24's receiver NACK handler (`NackHandler`, not exported and
 * private in its type declarations). The receiver calls `addPacket` with every received video
 * packet and `close` when it stops; the handler sends a NACK for its own `mediaSourceSsrc`.
 */
interface NackHandlerInternals {
  addPacket(packet: RtpPacket): void;
  close(): void;
  onPacketLost: PacketLostEvent;
}

interface ReceiverNackInternals {
  nack: NackHandlerInternals;
}

/** Streams a receiver tracks losses for at once: three layers, and room for a publisher's new SSRCs. */
const maxStreams = 8;

/**
 * Makes werift's receiver track losses and send NACKs per SSRC, with a {@link NackRequester} each,
 * instead of its one NACK handler over all of them. That handler suits a single stream: fed the
 * three simulcast layers of a publisher, whose sequence numbers have nothing in common, it took the
 * jump from one layer's numbers to the next for losses and asked the publisher, on whichever SSRC
 * came last, for packets that were never lost, while a real loss went unasked; and it asks too
 * fast and misses losses at the sequence wrap (see {@link NackRequester}). The NACKs go out
 * through the receiver's `onPacketLost` event as before. Returns how to restore werift's handler.
 */
export function trackLossesPerStream(receiver: RTCRtpReceiver): () => void {
  const internals = receiver as unknown as ReceiverNackInternals;
  const original = internals.nack;
  const owner = receiver as unknown as NackReceiverInternals;
  const handlers = new Map<number, NackRequester>();
  const perStream: NackHandlerInternals & { readonly asking: boolean } = {
    onPacketLost: original.onPacketLost,
    /** Whether any stream has a packet missing (a requester's timer runs). */
    get asking() {
      return [...handlers.values()].some((handler) => handler.active);
    },
    addPacket(packet) {
      const ssrc = packet.header.ssrc;
      let handler = handlers.get(ssrc);
      if (handler === undefined) {
        if (handlers.size >= maxStreams) closeOldest(handlers);
        handler = new NackRequester(owner, original.onPacketLost);
        handlers.set(ssrc, handler);
      }
      handler.addPacket(packet);
    },
    close() {
      for (const handler of handlers.values()) handler.close();
      handlers.clear();
      original.close();
    },
  };
  internals.nack = perStream;
  return () => {
    if (internals.nack !== perStream) return;
    for (const handler of handlers.values()) handler.close();
    handlers.clear();
    internals.nack = original;
  };
}

function closeOldest(handlers: Map<number, NackRequester>): void {
  const [ssrc, handler] = handlers.entries().next().value ?? [];
  if (ssrc === undefined || handler === undefined) return;
  handler.close();
  handlers.delete(ssrc);
}
