import type { Socket } from 'node:dgram';
import { isIP } from 'node:net';
import type { RtpHeader } from 'werift';
import { sendToNamedAddress } from './named-address-send.js';
import { sendDatagramNatively } from './native-datagram.js';
import type { SrtpSessionKeys } from './srtp-sealing.js';

/**
 * The parts of werift 0.24's sender, DTLS and ICE objects the direct send path uses. They are
 * public JavaScript properties that werift's own send path uses, but its type declarations mark
 * some of them private, hence this structural view (`test/direct-send.test.ts` fails if werift
 * moves them).
 */
export interface SenderInternals {
  ssrc: number;
  mid?: string;
  headerExtensions: { uri: string; id: number }[];
  ntpTimestamp: bigint;
  rtpTimestamp: number;
  octetCount: number;
  packetCount: number;
  headerBytesSent: number;
  sequenceNumber?: number;
  timestamp?: number;
  /** The round trip in seconds, smoothed, from the receiver's reports; undefined before one. */
  rtt?: number;
  runRtcp(): Promise<void>;
  dtlsTransport: DtlsInternals;
}

export interface DtlsInternals {
  state: string;
  transportSequenceNumber: number;
  bytesSent: number;
  packetsSent: number;
  srtp?: { localContext: SrtpContextInternals };
  sendRtp(payload: Buffer, header: RtpHeader): Promise<number>;
  iceTransport: { connection: IceConnectionInternals };
}

/** A rollover state werift keeps per SSRC in an SRTP context. */
export interface RolloverState {
  rolloverCounter: number;
}

export interface SrtpContextInternals extends SrtpSessionKeys {
  getSrtpSsrcState(ssrc: number): RolloverState;
  updateRolloverCount(sequenceNumber: number, state: RolloverState): void;
  cipher: {
    encryptRtp(header: HeaderBytes, payload: Buffer, rolloverCounter: number): Buffer;
  };
}

interface IceConnectionInternals {
  nominated?: {
    remoteAddr: [string, number];
    packetsSent: number;
    bytesSent: number;
    /** A UDP pair's protocol has a transport with a socket; ICE-TCP's and TURN's have no `transport`. */
    protocol: {
      transport?: {
        closed?: boolean;
        socket?: Socket;
      };
    };
  };
  canSendApplicationData(): boolean;
  send(data: Buffer): Promise<void>;
}

/** What werift's ciphers read of a header: its numbers and its serialized bytes. */
export interface HeaderBytes {
  ssrc: number;
  sequenceNumber: number;
  serializeSize: number;
  serialize(size: number): Buffer;
}

/**
 * Sends `data` on the connection's nominated pair, through the native addon's `sendto` when
 * `native` and it can. Returns whether `data` may be overwritten now: the system call took it (or
 * it was dropped), rather than a queue or werift's asynchronous send keeping it for later.
 */
export function transmit(connection: IceConnectionInternals, data: Buffer, native: boolean): boolean {
  // RFC 7675: no application data once consent expired (werift's own send checks the same).
  if (!connection.canSendApplicationData()) return true;
  const pair = connection.nominated;
  const transport = pair?.protocol.transport;
  const socket = transport?.socket;
  if (pair === undefined || transport === undefined || socket === undefined) {
    connection.send(data).catch(() => {});
    return false;
  }
  if (transport.closed) return true;
  if (!hasLiteralAddress(pair)) {
    sendToNamedAddress(socket, pair, data);
    return false;
  }
  if (native && sendDatagramNatively(socket, pair, data)) {
    pair.packetsSent += 1;
    pair.bytesSent += data.length;
    return true;
  }
  // Without a callback a failed send is dropped (an IP literal needs no lookup that could fail).
  try {
    socket.send(data, pair.remoteAddr[1], pair.remoteAddr[0]);
  } catch {
    // A socket closed under us: the transport is going away.
    return true;
  }
  pair.packetsSent += 1;
  pair.bytesSent += data.length;
  // Node sends at once when the socket can take the datagram, and queues it otherwise.
  return socket.getSendQueueCount() === 0;
}

const literalAddressPairs = new WeakMap<object, boolean>();

/** Whether the pair's remote address is an IP literal (werift's patched lookup answers those at once). */
function hasLiteralAddress(pair: { remoteAddr: [string, number] }): boolean {
  let literal = literalAddressPairs.get(pair);
  if (literal === undefined) {
    literal = isIP(pair.remoteAddr[0]) !== 0;
    literalAddressPairs.set(pair, literal);
  }
  return literal;
}
