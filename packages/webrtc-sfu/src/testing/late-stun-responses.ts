import type { RTCPeerConnection } from 'werift';

// What a starved event loop does to ICE consent freshness, on loopback: the STUN responses a werift
// connection receives are handled `delayMs` late, as when they wait in the socket behind seconds
// of media while the connection's timers run first.

/** What this helper uses of one of werift's ICE sockets. */
interface Socket {
  datagramReceived(data: Buffer, address: unknown): void;
}

const bindingSuccessResponse = 0x0101;

/** Makes `peer`'s ICE connection handle every STUN binding success response it receives `delayMs` late. */
export function delayStunResponses(peer: RTCPeerConnection, delayMs: number): void {
  for (const transport of peer.iceTransports) {
    // werift's types leave out the connection's sockets (`protocols`).
    const connection = transport.connection as typeof transport.connection & { protocols: Socket[] };
    for (const socket of connection.protocols) {
      const datagramReceived = socket.datagramReceived.bind(socket);
      socket.datagramReceived = (data, address) => {
        if (data.length >= 20 && data.readUInt16BE(0) === bindingSuccessResponse) {
          setTimeout(() => datagramReceived(data, address), delayMs);
          return;
        }
        datagramReceived(data, address);
      };
    }
  }
}
