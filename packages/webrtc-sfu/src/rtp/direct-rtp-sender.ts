import { ntpTime, type RTCRtpSender } from 'werift';
import {
  type ExtensionLayout,
  type OutgoingRtpFields,
  planExtensions,
  rtpHeaderLength,
  writeRtpHeader,
  writeRtpHeaderInto,
} from './rtp-header-writer.js';
import { sealerFor } from './srtp-sealing.js';
import { sendThroughWerift } from './werift-fallback-send.js';
import {
  type RolloverState,
  type SenderInternals,
  type SrtpContextInternals,
  transmit,
} from './werift-send-internals.js';

export type { OutgoingRtpFields } from './rtp-header-writer.js';

/** What {@link DirectRtpSender.sendPadding} sent. */
export interface PaddingSent {
  /** The transport-wide sequence number the padding packet carries. */
  transportSequenceNumber: number;
  /** Its size: RTP header and padding, before SRTP. */
  bytes: number;
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

/** The most padding one packet carries: RTP's padding count is one byte. */
const maxPaddingBytes = 255;
/** Padding by count (RFC 3550: the last byte is the count), made once per count and only read. */
const paddings: Array<Buffer | undefined> = [];

function paddingOf(count: number): Buffer {
  let padding = paddings[count];
  if (padding === undefined) {
    padding = Buffer.alloc(count);
    padding[count - 1] = count;
    paddings[count] = padding;
  }
  return padding;
}

/**
 * werift's rollover state of one SSRC in one SRTP context, which werift looks up by SSRC in a
 * dictionary on every packet: looked up again only when the SSRC or the context (a new DTLS
 * session) changes. The object is werift's own, so werift's sends on that SSRC share it.
 */
class RolloverStateSlot {
  #context: SrtpContextInternals | undefined;
  #ssrc = -1;
  #state: RolloverState = { rolloverCounter: 0 };

  of(context: SrtpContextInternals, ssrc: number): RolloverState {
    if (this.#context !== context || this.#ssrc !== ssrc) {
      this.#context = context;
      this.#ssrc = ssrc;
      this.#state = context.getSrtpSsrcState(ssrc);
    }
    return this.#state;
  }
}

/**
 * Sends forwarded RTP, its retransmissions and probe padding on a werift sender's transport
 * without werift's per-packet work.
 *
 * werift's `RTCRtpSender.sendRtp` rebuilds every header extension as objects, sorts them, formats
 * an NTP time through a string, keeps a copy of the packet for NACKs we answer ourselves, feeds a
 * sender-side estimator we do not use and goes down five chained `async` functions (a promise each)
 * to the UDP socket. Per packet this sender writes the header into one buffer, takes the next
 * transport-wide sequence number, has werift's SRTP context encrypt it (so rollover counters stay
 * werift's, per SSRC: the stream's and its retransmission stream's) and hands the result to the
 * nominated pair's socket at once, so packets leave in the order of their transport-wide numbers.
 * With the optional `@collab-suite/srtp-native` addon installed (and `nativeSrtp`), the encryption
 * itself runs on a cipher context kept per SRTP session instead of werift's new cipher object per
 * packet, and the datagram leaves through the addon's `sendto` on the socket's descriptor instead
 * of `dgram`'s send (which builds a request object per datagram). It keeps the counters werift's
 * sender reports and statistics read. Where it cannot (an extension id above 14, a mid over 16
 * bytes), it falls back to werift's own send path; without a nominated UDP pair, to werift's ICE
 * send.
 */
export class DirectRtpSender {
  readonly #sender: RTCRtpSender;
  readonly #internals: SenderInternals;
  readonly #nativeSrtp: boolean;
  readonly #streamState = new RolloverStateSlot();
  readonly #repairState = new RolloverStateSlot();
  readonly #paddingSent: PaddingSent = { transportSequenceNumber: 0, bytes: 0 };
  #headerBytes = 0;
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
    return this.#send(fields, payloadType, payload, nowMs, ssrc, false);
  }

  /**
   * Sends one padding-only packet on `ssrc` (the retransmission stream's, as bandwidth probes do):
   * no payload, `paddingBytes` of padding (1 to 255) whose last byte is their count, and the next
   * transport-wide sequence number. Returns that number and the packet's size in an object this
   * sender reuses (read it before the next call), or `undefined` when the transport cannot send or
   * transport-wide congestion control is not negotiated.
   */
  sendPadding(
    fields: OutgoingRtpFields,
    payloadType: number,
    paddingBytes: number,
    nowMs: number,
    ssrc: number,
  ): PaddingSent | undefined {
    const count = Math.max(1, Math.min(maxPaddingBytes, Math.floor(paddingBytes)));
    const transportSequenceNumber = this.#send(fields, payloadType, paddingOf(count), nowMs, ssrc, true);
    if (transportSequenceNumber === null || transportSequenceNumber === undefined) return undefined;
    this.#paddingSent.transportSequenceNumber = transportSequenceNumber;
    this.#paddingSent.bytes = this.#headerBytes + count;
    return this.#paddingSent;
  }

  /** The round trip to the receiver in ms, as werift measures it from its reports; undefined before one. */
  get roundTripMs(): number | undefined {
    const seconds = this.#internals.rtt;
    return seconds === undefined ? undefined : seconds * 1000;
  }

  /** `padded`: `payload` is padding (the P bit is set). */
  #send(
    fields: OutgoingRtpFields,
    payloadType: number,
    payload: Buffer,
    nowMs: number,
    ssrc: number | undefined,
    padded: boolean,
  ): number | undefined | null {
    const internals = this.#internals;
    const streamSsrc = ssrc ?? internals.ssrc;
    const dtls = internals.dtlsTransport;
    if (dtls === undefined || dtls.state !== 'connected' || dtls.srtp === undefined) return null;
    const layout = this.#extensionLayout();
    if (layout === undefined) {
      const sent = sendThroughWerift(this.#sender, internals, {
        fields,
        payloadType,
        payload,
        ssrc: streamSsrc,
        padded,
      });
      this.#headerBytes = sent.headerBytes;
      return sent.transportSequenceNumber;
    }
    let transportSequenceNumber: number | undefined;
    if (layout.hasTransportWideCc) {
      dtls.transportSequenceNumber = (dtls.transportSequenceNumber + 1) & 0xffff;
      transportSequenceNumber = dtls.transportSequenceNumber;
    }
    const context = dtls.srtp.localContext;
    const state = (streamSsrc === internals.ssrc ? this.#streamState : this.#repairState).of(
      context,
      streamSsrc,
    );
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
        padded,
      );
      const length = sealer.seal(target, headerLength, payload, state.rolloverCounter);
      encrypted = room ? target.subarray(0, length) : target;
      fromScratch = room;
    } else {
      const header = writeRtpHeader(
        fields,
        payloadType,
        streamSsrc,
        layout,
        transportSequenceNumber,
        nowMs,
        padded,
      );
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
    this.#headerBytes = headerLength;
    // Sender reports describe the stream itself, not its retransmissions or padding.
    if (ssrc === undefined) this.#count(fields, payload.length, headerLength, nowMs);
    dtls.bytesSent += encrypted.length;
    dtls.packetsSent += 1;
    const released = transmit(dtls.iceTransport.connection, encrypted, this.#nativeSrtp);
    // A send the socket queued still reads the scratch buffer: the next packet gets a new one.
    if (fromScratch && !released) scratch = Buffer.allocUnsafeSlow(scratchBytes);
    return transportSequenceNumber;
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
