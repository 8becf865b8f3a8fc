import { classes, type Message, type RTCPeerConnection } from 'werift';

// A werift client that answers (ICE-controlled, DTLS client) can send its ClientHello as soon as the
// server's check nominated a pair, while the server, the controlling side, has not yet had the
// response to that check: on a loaded machine the ClientHello then reaches the server before the
// server nominated. This helper makes that order certain on loopback: the client holds back its
// STUN success responses until it has sent its first ClientHello, then sends them. It also lets
// through no second cookie-less ClientHello (a retransmission), so a handshake can only complete if
// the server answered the early one.

/** What one client sent, as counted by {@link sendClientHelloBeforeNomination}. */
export interface EarlyClientHelloCounts {
  /** Cookie-less ClientHello records put on the wire (the early one). */
  clientHellosSent: number;
  /** Cookie-less ClientHello retransmissions not sent. */
  retransmissionsDropped: number;
  /** STUN success responses held back until the first ClientHello had been sent. */
  responsesHeld: number;
}

/** What this helper uses of werift's ICE sockets and connection. */
interface Socket {
  sendStun(message: Message, address: unknown): Promise<void>;
}
interface Connection {
  protocols: Socket[];
  send(data: Buffer): Promise<void>;
}

const recordHeaderLength = 13;
const handshakeHeaderLength = 12;
const handshakeContentType = 22;
const clientHelloType = 1;

/**
 * Whether `datagram` starts with a DTLS ClientHello that carries no cookie (the first of a
 * handshake, or its retransmission), from the record and handshake layouts of RFC 6347.
 */
export function isCookielessClientHello(datagram: Buffer): boolean {
  if (datagram.length < recordHeaderLength + handshakeHeaderLength + 35) return false;
  if (datagram[0] !== handshakeContentType || datagram[recordHeaderLength] !== clientHelloType) return false;
  // Body: client version (2), random (32), session id (1 + length), cookie (1 + length).
  const sessionIdOffset = recordHeaderLength + handshakeHeaderLength + 2 + 32;
  const cookieOffset = sessionIdOffset + 1 + (datagram[sessionIdOffset] ?? 0);
  return datagram[cookieOffset] === 0;
}

/**
 * Makes `peer`, a werift client that answers an offer, send its first ClientHello before the
 * offerer's ICE nominated (see above). Call it once the peer has applied the offer and made its
 * answer (its ICE transport exists), before the offerer applies that answer.
 */
export function sendClientHelloBeforeNomination(peer: RTCPeerConnection): EarlyClientHelloCounts {
  const counts: EarlyClientHelloCounts = { clientHellosSent: 0, retransmissionsDropped: 0, responsesHeld: 0 };
  const transport = peer.iceTransports[0];
  if (transport === undefined) throw new Error('the peer has no ICE transport yet: apply the offer first');
  // werift's types leave out the connection's sockets (`protocols`).
  const connection = transport.connection as unknown as Connection;
  const held: Array<() => Promise<void>> = [];
  for (const socket of connection.protocols) {
    const sendStun = socket.sendStun.bind(socket);
    socket.sendStun = async (message, address) => {
      if (counts.clientHellosSent === 0 && message.messageClass === classes.RESPONSE) {
        counts.responsesHeld += 1;
        held.push(() => sendStun(message, address));
        return;
      }
      await sendStun(message, address);
    };
  }
  const send = connection.send.bind(connection);
  connection.send = async (data) => {
    if (!isCookielessClientHello(data)) {
      await send(data);
      return;
    }
    if (counts.clientHellosSent > 0) {
      counts.retransmissionsDropped += 1;
      return;
    }
    counts.clientHellosSent += 1;
    await send(data);
    await Promise.all(held.splice(0).map((sendHeld) => sendHeld()));
  };
  return counts;
}
