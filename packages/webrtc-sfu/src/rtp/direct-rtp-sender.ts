import type { Socket } from 'node:dgram';
import { isIP } from 'node:net';
import {
  ExtensionProfiles,
  ntpTime,
  type RTCRtpSender,
  RTP_EXTENSION_URI,
  RtpHeader,
  RtpPacket,
} from 'werift';
import { sendDatagramNatively } from './native-datagram.js';
import {
  type ExtensionLayout,
  type OutgoingRtpFields,
  planExtensions,
  rtpHeaderLength,
  writeRtpHeader,
  writeRtpHeaderInto,
} from './rtp-header-writer.js';
import { type SrtpSessionKeys, sealerFor } from './srtp-sealing.js';

export type { OutgoingRtpFields } from './rtp-header-writer.js';

/**
 * The parts of werift 0.24's sender, DTLS and ICE objects this module uses. They are public
 * JavaScript properties that werift's own send path uses, but its type declarations mark some of
 * them private, hence this structural view (`direct-rtp-sender.test.ts` fails if werift moves them).
 */
interface SenderInternals {
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
  runRtcp(): Promise<void>;
  dtlsTransport: DtlsInternals;
}

interface DtlsInternals {
  state: string;
  transportSequenceNumber: number;
  bytesSent: number;
  packetsSent: number;
  srtp?: { localContext: SrtpContextInternals };
  sendRtp(payload: Buffer, header: RtpHeader): Promise<number>;
  iceTransport: { connection: IceConnectionInternals };
}

interface SrtpContextInternals extends SrtpSessionKeys {
  getSrtpSsrcState(ssrc: number): { rolloverCounter: number };
  updateRolloverCount(sequenceNumber: number, state: { rolloverCounter: number }): void;
  cipher: {
    encryptRtp(header: HeaderBytes, payload: Buffer, rolloverCounter: number): Buffer;
  };
}

interface IceConnectionInternals {
  nominated?: {
    remoteAddr: [string, number];
    packetsSent: number;
    bytesSent: number;
    protocol: {
      transport: {
        closed?: boolean;
        socket?: Socket;
      };
    };
  };
  canSendApplicationData(): boolean;
  send(data: Buffer): Promise<void>;
}

/** What werift's ciphers read of a header: its numbers and its serialized bytes. */
interface HeaderBytes {
  ssrc: number;
  sequenceNumber: number;
  serializeSize: number;
  serialize(size: number): Buffer;
}

/**
 * werift's sender reports carry the NTP time and RTP timestamp of one sent packet; a pair up to a
 * second old is as true as a fresh one, and werift's NTP formatting is costly per packet.
 */
const ntpRefreshMs = 1_000;

/** Room for any datagram on a 1500-byte MTU, and more. */
const scratchBytes = 2_048;
/**
 * The packet being sealed: one buffer for the process while sends complete at once, instead of a
 * new buffer per packet and subscriber (tens of megabytes a second of buffers that V8 counts as
 * external memory, which starts full garbage collections).
 */
let scratch = Buffer.allocUnsafeSlow(scratchBytes);

/**
 * Sends forwarded RTP on a werift sender's transport without werift's per-packet work.
 *
 * werift's `RTCRtpSender.sendRtp` rebuilds every header extension as objects, sorts them, formats
 * an NTP time through a string, keeps a copy of the packet for NACKs we answer ourselves, feeds a
 * sender-side estimator we do not use and goes down five chained `async` functions (a promise each)
 * to the UDP socket. Per packet this sender writes the header into one buffer, has werift's SRTP
 * context encrypt it (so rollover counters stay werift's, shared with the retransmissions that go
 * through werift), and hands the result to the nominated pair's socket at once. With the optional
 * `@collab-suite/srtp-native` addon installed (and `nativeSrtp`), the encryption itself runs on a
 * cipher context kept per SRTP session instead of werift's new cipher object per packet, and the
 * datagram leaves through the addon's `sendto` on the socket's descriptor instead of `dgram`'s send
 * (which builds a request object per datagram). It keeps the
 * counters werift's sender reports and statistics read. Where it cannot (no nominated UDP pair, an
 * extension id above 14), it falls back to werift's `sendRtp`.
 */
export class DirectRtpSender {
  readonly #sender: RTCRtpSender;
  readonly #internals: SenderInternals;
  readonly #nativeSrtp: boolean;
  #stateContext: SrtpContextInternals | undefined;
  #state: { rolloverCounter: number } = { rolloverCounter: 0 };
  #layout: ExtensionLayout | undefined;
  #layoutSource: unknown;
  #ntpRefreshedAtMs = Number.NEGATIVE_INFINITY;

  /** `nativeSrtp`: encrypt and send with the native addon when it is installed (the SFU's `srtp.native`). */
  constructor(sender: RTCRtpSender, options: { nativeSrtp: boolean }) {
    this.#sender = sender;
    this.#internals = sender as unknown as SenderInternals;
    this.#nativeSrtp = options.nativeSrtp;
  }

  /**
   * Sends one packet with `payloadType`, on the sender's SSRC unless `ssrc` says otherwise (its
   * retransmission stream's). Returns the transport-wide sequence number it carries, `undefined`
   * when transport-wide congestion control is not negotiated, or `null` when the transport cannot
   * send (not connected).
   */
  send(
    fields: OutgoingRtpFields,
    payloadType: number,
    payload: Buffer,
    nowMs: number,
    ssrc?: number,
  ): number | undefined | null {
    const internals = this.#internals;
    const streamSsrc = ssrc ?? internals.ssrc;
    const dtls = internals.dtlsTransport;
    if (dtls === undefined || dtls.state !== 'connected' || dtls.srtp === undefined) return null;
    const layout = this.#extensionLayout();
    if (layout === undefined) return this.#sendThroughWerift(fields, payloadType, payload, streamSsrc);
    let transportSequenceNumber: number | undefined;
    if (layout.hasTransportWideCc) {
      dtls.transportSequenceNumber = (dtls.transportSequenceNumber + 1) & 0xffff;
      transportSequenceNumber = dtls.transportSequenceNumber;
    }
    const context = dtls.srtp.localContext;
    const state = this.#rolloverState(context, streamSsrc);
    context.updateRolloverCount(fields.sequenceNumber, state);
    const sealer = this.#nativeSrtp ? sealerFor(context) : null;
    let headerLength: number;
    let encrypted: Buffer;
    let fromScratch = false;
    if (sealer !== null) {
      const bytes = rtpHeaderLength(layout) + payload.length + sealer.tagLength;
      const room = scratch.length >= bytes;
      const target = room ? scratch : Buffer.allocUnsafe(bytes);
      headerLength = writeRtpHeaderInto(
        target,
        fields,
        payloadType,
        streamSsrc,
        layout,
        transportSequenceNumber,
        nowMs,
      );
      const length = sealer.seal(target, headerLength, payload, state.rolloverCounter);
      encrypted = room ? target.subarray(0, length) : target;
      fromScratch = room;
    } else {
      const header = writeRtpHeader(fields, payloadType, streamSsrc, layout, transportSequenceNumber, nowMs);
      headerLength = header.length;
      encrypted = context.cipher.encryptRtp(
        {
          ssrc: streamSsrc,
          sequenceNumber: fields.sequenceNumber,
          serializeSize: header.length,
          serialize: () => header,
        },
        payload,
        state.rolloverCounter,
      );
    }
    // Sender reports describe the stream itself, not its retransmissions.
    if (ssrc === undefined) this.#count(fields, payload.length, headerLength, nowMs);
    dtls.bytesSent += encrypted.length;
    dtls.packetsSent += 1;
    const released = transmit(dtls.iceTransport.connection, encrypted, this.#nativeSrtp);
    // A send the socket queued still reads the scratch buffer: the next packet gets a new one.
    if (fromScratch && !released) scratch = Buffer.allocUnsafeSlow(scratchBytes);
    return transportSequenceNumber;
  }

  /**
   * werift's rollover state of `ssrc` in `context`, which it looks up by SSRC in a dictionary on
   * every packet: kept here for the stream's own SSRC (the context changes with a new DTLS session).
   */
  #rolloverState(context: SrtpContextInternals, ssrc: number): { rolloverCounter: number } {
    if (ssrc !== this.#internals.ssrc) return context.getSrtpSsrcState(ssrc);
    if (this.#stateContext !== context) {
      this.#stateContext = context;
      this.#state = context.getSrtpSsrcState(ssrc);
    }
    return this.#state;
  }

  #count(fields: OutgoingRtpFields, payloadBytes: number, headerBytes: number, nowMs: number): void {
    const internals = this.#internals;
    internals.sequenceNumber = fields.sequenceNumber;
    internals.timestamp = fields.timestamp;
    internals.octetCount += payloadBytes;
    internals.headerBytesSent += headerBytes;
    internals.packetCount = (internals.packetCount + 1) >>> 0;
    if (nowMs - this.#ntpRefreshedAtMs >= ntpRefreshMs) {
      this.#ntpRefreshedAtMs = nowMs;
      internals.ntpTimestamp = ntpTime();
      internals.rtpTimestamp = fields.timestamp;
      // Starts werift's sender reports the first time; returns at once afterwards.
      internals.runRtcp().catch(() => {});
    }
  }

  #sendThroughWerift(
    fields: OutgoingRtpFields,
    payloadType: number,
    payload: Buffer,
    ssrc: number,
  ): number | undefined {
    // No layout means one-byte elements cannot carry the extensions (an id above 14, a mid over 16
    // bytes); werift's sendRtp keeps the profile it is given and writes one-byte elements by default,
    // which for id 15 a receiver stops parsing at and for higher ids do not fit in a byte.
    const header = new RtpHeader({
      ...fields,
      payloadType,
      ssrc,
      extensionProfile: ExtensionProfiles.TwoByte,
    });
    if (ssrc !== this.#internals.ssrc) {
      // werift's sendRtp would put the stream's own SSRC on a retransmission.
      this.#internals.dtlsTransport.sendRtp(payload, header).catch(() => {});
      return undefined;
    }
    // werift's sendRtp numbers the packet for transport-wide congestion control before its first await.
    this.#sender.sendRtp(new RtpPacket(header, payload)).catch(() => {});
    return this.#negotiatedTransportWideCc()
      ? this.#internals.dtlsTransport.transportSequenceNumber
      : undefined;
  }

  #negotiatedTransportWideCc(): boolean {
    return this.#internals.headerExtensions.some(
      (extension) => extension.uri === RTP_EXTENSION_URI.transportWideCC,
    );
  }

  /** The layout for the negotiated extensions (renegotiation replaces the array), or `undefined` to fall back. */
  #extensionLayout(): ExtensionLayout | undefined {
    const negotiated = this.#internals.headerExtensions;
    const mid = this.#internals.mid;
    if (this.#layoutSource === negotiated && this.#layout?.mid === mid) return this.#layout;
    this.#layoutSource = negotiated;
    this.#layout = planExtensions(negotiated, mid);
    return this.#layout;
  }
}

/**
 * Sends `data` on the connection's nominated pair. Returns whether `data` may be overwritten now:
 * the system call took it (or it was dropped), rather than a queue or werift's asynchronous send
 * keeping it for later.
 */
function transmit(connection: IceConnectionInternals, data: Buffer, native: boolean): boolean {
  // RFC 7675: no application data once consent expired (werift's own send checks the same).
  if (!connection.canSendApplicationData()) return true;
  const pair = connection.nominated;
  const socket = pair?.protocol.transport.socket;
  if (pair === undefined || socket === undefined) {
    connection.send(data).catch(() => {});
    return false;
  }
  if (pair.protocol.transport.closed) return true;
  if (native && sendDatagramNatively(socket, pair, data)) {
    pair.packetsSent += 1;
    pair.bytesSent += data.length;
    return true;
  }
  // Without a callback a failed send is dropped, or (a failed address lookup) reported as an 'error'
  // event, which our werift patch listens to on every UDP transport socket.
  try {
    socket.send(data, pair.remoteAddr[1], pair.remoteAddr[0]);
  } catch {
    // A socket closed under us: the transport is going away.
    return true;
  }
  pair.packetsSent += 1;
  pair.bytesSent += data.length;
  // Node sends at once when the socket can take the datagram, and queues it otherwise (or, for an
  // address that is not an IP literal, after an asynchronous lookup).
  return socket.getSendQueueCount() === 0 && hasLiteralAddress(pair);
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
