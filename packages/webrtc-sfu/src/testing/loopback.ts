import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  type RTCRtpHeaderExtensionParameters,
  useNACK,
  usePLI,
  useTransportWideCC,
  useTWCC,
} from 'werift';
import type { SfuOptionsInput } from '../options.js';

/** SFU options that keep every connection on 127.0.0.1, for tests and benchmarks on one machine. */
export const loopbackSfuOptions = {
  ice: { hostAddresses: ['127.0.0.1'], onlyAddresses: ['127.0.0.1'] },
} satisfies SfuOptionsInput;

/** Extras of a {@link createLoopbackPeer} connection. */
export interface LoopbackPeerOptions {
  /** RTP header extensions to negotiate (none by default). */
  headerExtensions?: RTCRtpHeaderExtensionParameters[];
  /** Negotiate transport-wide congestion control: werift then sends TWCC feedback on what it receives. */
  transportCc?: boolean;
  /**
   * This host's own addresses that candidate pairs may use besides 127.0.0.1, for a server that does
   * not gather on loopback (Janus in the benchmark). Packets to one's own address stay on the host.
   * werift reads the pair filter when it creates a transport, so this cannot be changed afterwards.
   * @default []
   */
  ownAddresses?: string[];
  /**
   * Write `apt=` on the RTX codec, as browsers do: werift's answer keeps an offered RTX codec only
   * with it, so without it the connection negotiates no RTX at all. @default false
   */
  retransmissionApt?: boolean;
}

/**
 * A werift client connection on loopback, with Opus or VP8 (+RTX) like a browser would offer;
 * `videoPayloadType` picks VP8's payload type (RTX takes the next one), as browsers differ there.
 */
export function createLoopbackPeer(
  kind: 'audio' | 'video',
  videoPayloadType = 96,
  options: LoopbackPeerOptions = {},
): RTCPeerConnection {
  const headerExtensions = [...(options.headerExtensions ?? [])];
  const allowed = new Set(['127.0.0.1', ...(options.ownAddresses ?? [])]);
  if (options.transportCc === true) headerExtensions.push(useTransportWideCC());
  return new RTCPeerConnection({
    headerExtensions: {
      audio: kind === 'audio' ? headerExtensions : [],
      video: kind === 'video' ? headerExtensions : [],
    },
    codecs:
      kind === 'audio'
        ? {
            audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 })],
            video: [],
          }
        : {
            audio: [],
            video: [
              new RTCRtpCodecParameters({
                mimeType: 'video/VP8',
                clockRate: 90_000,
                payloadType: videoPayloadType,
                rtcpFeedback:
                  options.transportCc === true ? [useNACK(), usePLI(), useTWCC()] : [useNACK(), usePLI()],
              }),
              new RTCRtpCodecParameters({
                mimeType: 'video/rtx',
                clockRate: 90_000,
                payloadType: videoPayloadType + 1,
                parameters: options.retransmissionApt === true ? `apt=${videoPayloadType}` : undefined,
              }),
            ],
          },
    // Ask no STUN server: test and benchmark peers never send anything beyond loopback.
    iceServers: [],
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceFilterCandidatePair: (pair) =>
      allowed.has(pair.localCandidate.host) && allowed.has(pair.remoteCandidate.host),
  });
}

/** Resolves when `predicate` holds, polling every 20 ms; rejects with `message` after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, message: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves with `count()` once it has stayed the same for `quietMs` (a stream that stopped, its
 * packets in flight delivered however long a loaded machine took); rejects with `message` when it
 * is still changing after `timeoutMs`. For asserting that something stopped, without a fixed sleep.
 */
export async function waitForQuiet(
  count: () => number,
  message: string,
  options: { quietMs?: number; timeoutMs?: number } = {},
): Promise<number> {
  const quietMs = options.quietMs ?? 400;
  const deadline = performance.now() + (options.timeoutMs ?? 20_000);
  let last = count();
  let since = performance.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = performance.now();
    const current = count();
    if (current !== last) {
      last = current;
      since = now;
    } else if (now - since >= quietMs) {
      return current;
    }
    if (now > deadline) throw new Error(`timed out waiting for ${message} to stop (still changing)`);
  }
}

/** The local description after gathering, as the SDP text a client would send. */
export async function localSdp(peer: RTCPeerConnection, type: 'offer' | 'answer'): Promise<string> {
  const description = type === 'offer' ? await peer.createOffer() : await peer.createAnswer();
  // An unpatched werift asks a public STUN server even with `iceServers: []` (upstream issue #691).
  for (const transport of peer.iceTransports) transport.connection.stunServer = undefined;
  await peer.setLocalDescription(description);
  return peer.localDescription?.sdp ?? '';
}
