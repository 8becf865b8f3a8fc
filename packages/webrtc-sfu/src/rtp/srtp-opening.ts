import type { SrtpOpener } from '@collab-suite/srtp-native';
import { loadNativeAddon } from './native-addon.js';

/** werift 0.24's rollover state of one incoming SSRC. */
interface RolloverState {
  ssrc: number;
  rolloverCounter: number;
  lastSequenceNumber: number;
  rolloverHasProcessed?: boolean;
}

/** The parts of werift 0.24's remote SRTP context (its session keys and rollover states) used here. */
interface RemoteContextInternals {
  profile: number;
  srtpSessionKey: Buffer;
  srtpSessionSalt: Buffer;
  srtpSessionAuthTag: Buffer;
  srtcpSessionKey: Buffer;
  srtcpSessionSalt: Buffer;
  srtcpSessionAuthTag: Buffer;
  srtpSSRCStates: Record<number, RolloverState | undefined>;
  updateRolloverCount(sequenceNumber: number, state: RolloverState): void;
}

/** werift's `SrtpSession` / `SrtcpSession`: `decrypt` is an instance property its transport calls. */
interface SessionInternals {
  remoteContext: RemoteContextInternals;
  decrypt: (packet: Buffer) => Buffer;
}

/** The DTLS transport's sessions, set once its handshake completed. */
export interface SrtpTransportInternals {
  srtp?: SessionInternals;
  srtcp?: SessionInternals;
}

const installed = new WeakSet<SessionInternals>();

/**
 * Has the native addon unprotect what `transport` receives: werift's `decrypt` of its SRTP and
 * SRTCP sessions is replaced by one that authenticates and decrypts on OpenSSL contexts kept for the
 * session, instead of a new cipher (and HMAC) object per packet. The rollover counters stay werift's.
 * A packet the addon finds not authentic goes to werift's own `decrypt`, which throws the error
 * werift's transport drops such packets on. Returns whether the addon took over (false without the
 * addon, before the handshake, or for keys it refuses); idempotent per session.
 */
export function openWithNativeAddon(transport: SrtpTransportInternals): boolean {
  const { srtp, srtcp } = transport;
  if (srtp === undefined || srtcp === undefined) return false;
  if (installed.has(srtp)) return true;
  const native = loadNativeAddon();
  if (native?.SrtpOpener === undefined) return false;
  const rtpKeys = srtp.remoteContext;
  const rtcpKeys = srtcp.remoteContext;
  let opener: SrtpOpener;
  try {
    opener = new native.SrtpOpener(rtpKeys.profile as 1 | 7, {
      srtpKey: rtpKeys.srtpSessionKey,
      srtpSalt: rtpKeys.srtpSessionSalt,
      srtpAuthKey: rtpKeys.srtpSessionAuthTag,
      srtcpKey: rtcpKeys.srtcpSessionKey,
      srtcpSalt: rtcpKeys.srtcpSessionSalt,
      srtcpAuthKey: rtcpKeys.srtcpSessionAuthTag,
    });
  } catch {
    return false;
  }
  installed.add(srtp);
  srtp.decrypt = openRtp(opener, rtpKeys, srtp.decrypt);
  srtcp.decrypt = openRtcp(opener, srtcp.decrypt);
  return true;
}

function openRtp(
  opener: SrtpOpener,
  context: RemoteContextInternals,
  weriftDecrypt: (packet: Buffer) => Buffer,
): (packet: Buffer) => Buffer {
  const tagLength = opener.tagLength;
  return (packet) => {
    const headerLength = rtpHeaderLength(packet, tagLength);
    if (headerLength < 0) return weriftDecrypt(packet);
    const ssrc = packet.readUInt32BE(8);
    const sequenceNumber = packet.readUInt16BE(2);
    const known = context.srtpSSRCStates[ssrc];
    const state = known ?? { ssrc, rolloverCounter: 0, lastSequenceNumber: 0 };
    // A packet that is not authentic must not move the rollover state (werift commits it only then).
    const { rolloverCounter, lastSequenceNumber, rolloverHasProcessed } = state;
    context.updateRolloverCount(sequenceNumber, state);
    const output = Buffer.allocUnsafe(packet.length - tagLength);
    if (opener.openRtp(packet, headerLength, state.rolloverCounter, output) < 0) {
      state.rolloverCounter = rolloverCounter;
      state.lastSequenceNumber = lastSequenceNumber;
      state.rolloverHasProcessed = rolloverHasProcessed;
      return weriftDecrypt(packet);
    }
    if (known === undefined) context.srtpSSRCStates[ssrc] = state;
    return output;
  };
}

function openRtcp(opener: SrtpOpener, weriftDecrypt: (packet: Buffer) => Buffer): (packet: Buffer) => Buffer {
  // The SRTCP index (E flag and 31 bits) and the tag.
  const trailerLength = 4 + opener.tagLength;
  return (packet) => {
    if (packet.length < 8 + trailerLength) return weriftDecrypt(packet);
    const output = Buffer.allocUnsafe(packet.length - trailerLength);
    return opener.openRtcp(packet, output) < 0 ? weriftDecrypt(packet) : output;
  };
}

/** Length of the RTP header of an SRTP packet with a `tagLength` tag, or -1 when it cannot hold one. */
function rtpHeaderLength(packet: Buffer, tagLength: number): number {
  if (packet.length < 12 + tagLength) return -1;
  const first = packet.readUInt8(0);
  let length = 12 + 4 * (first & 0x0f);
  if ((first & 0x10) !== 0) {
    if (packet.length < length + 4 + tagLength) return -1;
    length += 4 + 4 * packet.readUInt16BE(length + 2);
  }
  return length + tagLength <= packet.length ? length : -1;
}
