import type { SrtpOpener } from '@collab-suite/srtp-native';
import { ProtectionProfileAeadAes128Gcm, SrtpAuthenticationError } from 'werift';
import { loadNativeAddon } from './native-addon.js';
import { ReplayWindow } from './replay-window.js';

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
  /** Bytes of tag after an SRTP packet: 16 (AES-GCM) or 10 (AES-CM), the same after an SRTCP one. */
  readonly rtpAuthTagLength: number;
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

/** Who opens each session's packets, once decided: the native addon or werift's own decryption. */
const openedBy = new WeakMap<SessionInternals, 'native' | 'werift'>();

// What werift's transport drops a packet on (it logs through `debug` only). One instance each, so
// that a flood of replays costs no stack trace per packet.
const replayedRtp = new SrtpAuthenticationError('SRTP packet replayed, or older than the replay window');
const replayedRtcp = new SrtpAuthenticationError('SRTCP packet replayed, or older than the replay window');

/**
 * Has the native addon unprotect what `transport` receives: werift's `decrypt` of its SRTP and
 * SRTCP sessions is replaced by one that authenticates and decrypts on OpenSSL contexts kept for the
 * session, instead of a new cipher (and HMAC) object per packet. The rollover counters stay werift's.
 * A packet the addon finds not authentic goes to werift's own `decrypt`, which throws the error
 * werift's transport drops such packets on; a replayed one is refused before, with the same error,
 * as {@link refuseReplaysInWerift} does. Returns whether the addon took over (false without the
 * addon, before the handshake, for keys it refuses, or once werift was left to open the session);
 * idempotent per session.
 */
export function openWithNativeAddon(transport: SrtpTransportInternals): boolean {
  const { srtp, srtcp } = transport;
  if (srtp === undefined || srtcp === undefined) return false;
  const decided = openedBy.get(srtp);
  if (decided !== undefined) return decided === 'native';
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
  openedBy.set(srtp, 'native');
  srtp.decrypt = refuseRtpReplays(rtpKeys, openRtp(opener, rtpKeys, srtp.decrypt));
  srtcp.decrypt = refuseRtcpReplays(rtpKeys, openRtcp(opener, srtcp.decrypt));
  return true;
}

/**
 * Has werift's own `decrypt` of `transport`'s SRTP and SRTCP sessions refuse a replayed packet
 * (RFC 3711 section 3.3.2, which werift 0.24 does not implement), for a transport the native addon
 * does not open: it throws the error werift's transport drops packets that are not authentic on.
 * Each SSRC gets a window of the last 1,024 packet indexes, which moves only for an authentic packet;
 * a refused packet leaves werift's rollover counter where it was. Returns whether it took over
 * (false before the handshake, or when the addon opens the session); idempotent per session.
 */
export function refuseReplaysInWerift(transport: SrtpTransportInternals): boolean {
  const { srtp, srtcp } = transport;
  if (srtp === undefined || srtcp === undefined) return false;
  const decided = openedBy.get(srtp);
  if (decided !== undefined) return decided === 'werift';
  openedBy.set(srtp, 'werift');
  srtp.decrypt = refuseRtpReplays(srtp.remoteContext, srtp.decrypt);
  srtcp.decrypt = refuseRtcpReplays(srtp.remoteContext, srtcp.decrypt);
  return true;
}

/**
 * `decrypt` (which throws on a packet that is not authentic), refusing a replayed SRTP packet
 * before it: the index is the one werift's rollover state gives the packet, and it is recorded once
 * `decrypt` returned.
 */
function refuseRtpReplays(
  context: RemoteContextInternals,
  decrypt: (packet: Buffer) => Buffer,
): (packet: Buffer) => Buffer {
  const windows = new Map<number, ReplayWindow>();
  return (packet) => {
    if (packet.length < 12) return decrypt(packet);
    const ssrc = packet.readUInt32BE(8);
    const index = packetIndex(context, ssrc, packet.readUInt16BE(2));
    const window = windows.get(ssrc);
    if (window !== undefined && !window.check(index)) throw replayedRtp;
    const output = decrypt(packet);
    accept(windows, window, ssrc, index);
    return output;
  };
}

/** As {@link refuseRtpReplays} for SRTCP: one window per sender SSRC, of the SRTCP index. */
function refuseRtcpReplays(
  context: RemoteContextInternals,
  decrypt: (packet: Buffer) => Buffer,
): (packet: Buffer) => Buffer {
  // GCM (RFC 7714): header, ciphertext, tag, E flag and index. AES-CM (RFC 3711): header,
  // ciphertext, E flag and index, tag.
  const indexFromEnd = context.profile === ProtectionProfileAeadAes128Gcm ? 4 : 4 + context.rtpAuthTagLength;
  const windows = new Map<number, ReplayWindow>();
  return (packet) => {
    if (packet.length < 8 + indexFromEnd) return decrypt(packet);
    const ssrc = packet.readUInt32BE(4);
    const index = packet.readUInt32BE(packet.length - indexFromEnd) & 0x7fff_ffff;
    const window = windows.get(ssrc);
    if (window !== undefined && !window.check(index)) throw replayedRtcp;
    const output = decrypt(packet);
    accept(windows, window, ssrc, index);
    return output;
  };
}

/**
 * The SRTP packet index (RFC 3711 section 3.3.1) of `sequenceNumber` of `ssrc` with the rollover
 * counter werift's state gives it, which is the one `decrypt` then uses; the state is left as it was.
 */
function packetIndex(context: RemoteContextInternals, ssrc: number, sequenceNumber: number): number {
  const state = context.srtpSSRCStates[ssrc];
  // A new SSRC starts at rollover counter 0.
  if (state === undefined) return sequenceNumber;
  const { rolloverCounter, lastSequenceNumber, rolloverHasProcessed } = state;
  context.updateRolloverCount(sequenceNumber, state);
  const index = state.rolloverCounter * 0x1_0000 + sequenceNumber;
  state.rolloverCounter = rolloverCounter;
  state.lastSequenceNumber = lastSequenceNumber;
  state.rolloverHasProcessed = rolloverHasProcessed;
  return index;
}

/** Records an authentic packet's index; an SSRC gets its window with its first authentic packet. */
function accept(
  windows: Map<number, ReplayWindow>,
  window: ReplayWindow | undefined,
  ssrc: number,
  index: number,
): void {
  if (window !== undefined) {
    window.accept(index);
    return;
  }
  const started = new ReplayWindow();
  started.accept(index);
  windows.set(ssrc, started);
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
