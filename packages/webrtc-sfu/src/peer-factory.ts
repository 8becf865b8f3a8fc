import { networkInterfaces } from 'node:os';
import {
  RTCPeerConnection,
  type RTCPeerConnectionConfig,
  RTCRtpCodecParameters,
  type RTCRtpHeaderExtensionParameters,
  useAudioLevelIndication,
  useNACK,
  usePLI,
  useREMB,
  useRepairedRtpStreamId,
  useSdesMid,
  useSdesRTPStreamId,
  useTransportWideCC,
  useTWCC,
} from 'werift';
import { SfuError } from './errors.js';
import type { SfuOptions } from './options.js';
import {
  openWithNativeAddon,
  refuseReplaysInWerift,
  type SrtpTransportInternals,
} from './rtp/srtp-opening.js';

/** Opus as the SFU negotiates it: 48 kHz, two channels in SDP (RFC 7587), in-band FEC accepted. */
export function opusCodec(): RTCRtpCodecParameters {
  return new RTCRtpCodecParameters({
    mimeType: 'audio/opus',
    clockRate: 48_000,
    channels: 2,
    parameters: 'minptime=10;useinbandfec=1',
  });
}

/**
 * VP8 with NACK, PLI, REMB and transport-wide congestion control feedback, followed by its RTX
 * retransmission codec.
 */
export function vp8Codecs(): RTCRtpCodecParameters[] {
  return [
    new RTCRtpCodecParameters({
      mimeType: 'video/VP8',
      clockRate: 90_000,
      rtcpFeedback: [useNACK(), usePLI(), useREMB(), useTWCC()],
    }),
    new RTCRtpCodecParameters({ mimeType: 'video/rtx', clockRate: 90_000 }),
  ];
}

/** What a video connection is for: it decides the RTP header extensions it negotiates. */
export type VideoRole = 'publish' | 'subscribe';

/**
 * RTP header extensions of a video connection. Publishing: the MID and RID (and repaired RID)
 * that identify simulcast layers, and transport-wide sequence numbers so the SFU's feedback lets
 * the publisher's own congestion control find room for its layers. Subscribing: transport-wide
 * sequence numbers only, for the subscriber's feedback (SSRCs identify the streams). Pure.
 */
export function videoHeaderExtensions(role: VideoRole): RTCRtpHeaderExtensionParameters[] {
  return role === 'publish'
    ? [useSdesMid(), useSdesRTPStreamId(), useRepairedRtpStreamId(), useTransportWideCC()]
    : [useTransportWideCC()];
}

/** This host's non-internal interface addresses (what werift gathers on by itself). */
export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).filter((entry) => !entry.internal).map((entry) => entry.address),
  );
}

/**
 * werift settings for one SFU connection, from the parsed ICE options. With `onlyAddresses`, it
 * gathers only on the local ones among them (`hostAddresses` and `localAddresses`): a candidate on
 * any other address could never be part of a pair, and werift opens a socket per gathered address,
 * so the interfaces' other addresses would multiply the sockets, candidates and checks of every
 * connection. Pure.
 */
export function peerConfig(
  ice: SfuOptions['ice'],
  kind: 'audio' | 'video',
  role: VideoRole = 'publish',
  localAddresses: readonly string[] = interfaceAddresses(),
): RTCPeerConnectionConfig {
  const only = new Set(ice.onlyAddresses);
  const listedLocal = [...new Set([...ice.hostAddresses, ...localAddresses])].filter((address) =>
    only.has(address),
  );
  const gatherOnlyListed = listedLocal.length > 0;
  const extraAddresses = gatherOnlyListed ? listedLocal : [...ice.hostAddresses];
  return {
    codecs: kind === 'audio' ? { audio: [opusCodec()], video: [] } : { audio: [], video: vp8Codecs() },
    headerExtensions: {
      // The level each sender states lets the mixer skip decoding those it leaves out (AudioMixer.push).
      audio: kind === 'audio' ? [useAudioLevelIndication()] : [],
      video: kind === 'video' ? videoHeaderExtensions(role) : [],
    },
    // werift gathers the interfaces' addresses of the enabled families, then the additional ones.
    iceUseIpv4: !gatherOnlyListed,
    iceAdditionalHostAddresses: extraAddresses.length > 0 ? extraAddresses : undefined,
    iceFilterCandidatePair:
      only.size > 0
        ? (pair) => only.has(pair.localCandidate.host) && only.has(pair.remoteCandidate.host)
        : undefined,
    icePortRange: ice.portRange === undefined ? undefined : [ice.portRange[0], ice.portRange[1]],
    iceUseIpv6: ice.useIpv6 && !gatherOnlyListed,
    iceServers: ice.gatherServers.map((url) => ({ urls: url })),
    bundlePolicy: 'max-bundle',
  };
}

/**
 * A new werift connection for the SFU side. Once connected, it refuses replayed SRTP and SRTCP
 * packets; with `nativeSrtp` (the SFU's `srtp.native`), what it receives is unprotected by the
 * optional native addon when the addon is installed, by werift otherwise.
 */
export function createPeer(
  ice: SfuOptions['ice'],
  kind: 'audio' | 'video',
  role: VideoRole,
  nativeSrtp: boolean,
): RTCPeerConnection {
  const peer = new RTCPeerConnection(peerConfig(ice, kind, role));
  // werift starts SRTP as DTLS connects, just before the connection reports `connected`.
  peer.connectionStateChange.subscribe((state) => {
    if (state !== 'connected') return;
    for (const transport of peer.dtlsTransports) {
      const internals = transport as unknown as SrtpTransportInternals;
      if (!nativeSrtp || !openWithNativeAddon(internals)) refuseReplaysInWerift(internals);
    }
  });
  return peer;
}

/**
 * Sets the local description after making sure no STUN server is asked unless `ice.gatherServers`
 * names one. werift 0.24 falls back to a public STUN server when none is configured (upstream issue
 * #691); this workspace patches that out, and this guard keeps the promise for an installation whose
 * werift is not patched.
 */
export async function setLocalDescriptionQuietly(
  peer: RTCPeerConnection,
  ice: SfuOptions['ice'],
  description: Parameters<RTCPeerConnection['setLocalDescription']>[0],
): Promise<void> {
  if (ice.gatherServers.length === 0) {
    for (const transport of peer.iceTransports) transport.connection.stunServer = undefined;
  }
  await peer.setLocalDescription(description);
}

/** Runs a werift negotiation step, turning its failures into `negotiation_failed`. */
export async function negotiate<T>(step: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof SfuError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new SfuError('negotiation_failed', `the WebRTC stack refused to ${step}: ${reason}`, {
      cause: error,
    });
  }
}

/**
 * Answers an offer that restarts ICE on `peer`, an answering connection that is already set up
 * (see `isIceRestartOffer`): werift sees the new credentials, gathers again and checks the new
 * candidate pairs, while the DTLS session, the transceivers and what they carry stay as they are.
 * Returns the answer with the new credentials and candidates.
 */
export async function answerIceRestart(
  peer: RTCPeerConnection,
  ice: SfuOptions['ice'],
  offer: string,
): Promise<string> {
  await negotiate('apply the ICE restart offer', () =>
    peer.setRemoteDescription({ type: 'offer', sdp: offer }),
  );
  const answer = await negotiate('answer the ICE restart offer', async () => {
    await setLocalDescriptionQuietly(peer, ice, await peer.createAnswer());
    return peer.localDescription?.sdp ?? '';
  });
  startRestartedIce(peer);
  return answer;
}

/**
 * Starts the connectivity checks of ICE transports that were restarted under a DTLS session that
 * is still up. werift 0.24 restarts ICE on new credentials but, once both sides are described,
 * skips starting a transport whose DTLS is connected, so nothing would check the new candidates.
 * Call it after the description that completes a restart (the local answer, or the remote answer
 * to an offer made with `iceRestart`); anything else is left alone.
 */
export function startRestartedIce(peer: RTCPeerConnection): void {
  for (const dtls of peer.dtlsTransports) {
    const transport = dtls.iceTransport;
    const connection = transport.connection;
    // A restarted transport has no nominated pair and nobody checking; a closed one is left alone.
    if (dtls.state !== 'connected' || connection.nominated !== undefined) continue;
    // `waitStart` (private in werift's types) is set while a start() runs.
    const starting = (transport as unknown as { waitStart?: unknown }).waitStart !== undefined;
    if (transport.state === 'closed' || starting) continue;
    if (!connection.remoteUsername || !connection.remotePassword) continue;
    transport.start().catch(() => {
      // The connection state reports the failure; the client may restart again.
    });
  }
}
