import type { RTCPeerConnection } from 'werift';

/** What this helper uses of one of werift's ICE sockets. */
interface Socket {
  localIp?: string;
  sendData(data: Buffer, address: unknown): Promise<void>;
}

// A client whose network changes, on one machine: the loopback interface answers every 127.x.y.z
// address, so moving a werift client from 127.0.0.1 to 127.0.0.2 is an address change that keeps
// all traffic on loopback. The old address goes "down": what the client sends from it is dropped.

/** The address a connection's nominated pair sends from, once connected. */
export function selectedLocalAddress(peer: RTCPeerConnection): string | undefined {
  return peer.iceTransports[0]?.connection.nominated?.localCandidate.host;
}

/**
 * Moves a loopback werift client (see `createLoopbackPeer`) to `address`: its sockets on other
 * addresses drop everything they would send (the link is down), it gathers on `address` from its
 * next ICE restart on, and it checks only pairs from `address` to the SFU on 127.0.0.1. Then
 * restart ICE: `peer.restartIce()` and a new offer for a client that offers, or answer the SFU's
 * restart offer for a client that answers. The SFU must accept `address` (`ice.onlyAddresses`).
 */
export function moveLoopbackPeer(peer: RTCPeerConnection, address: string): void {
  for (const transport of peer.iceTransports) {
    // werift's types leave out the connection's sockets (`protocols`).
    const connection = transport.connection as typeof transport.connection & { protocols: Socket[] };
    const kept: Socket[] = [];
    for (const protocol of connection.protocols) {
      if (protocol.localIp === address) {
        kept.push(protocol);
        continue;
      }
      protocol.sendData = async () => {};
    }
    connection.protocols = kept;
    connection.options.additionalHostAddresses = [address];
    connection.options.filterCandidatePair = (pair) =>
      pair.localCandidate.host === address && pair.remoteCandidate.host === '127.0.0.1';
  }
}
