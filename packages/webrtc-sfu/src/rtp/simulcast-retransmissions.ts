import {
  type RTCRtpCodecParameters,
  type RTCRtpTransceiver,
  RTP_EXTENSION_URI,
  type RtpPacket,
  rtpHeaderExtensionsParser,
  unwrapRtx,
} from 'werift';

/** The RTX streams a publisher may have in use at once: one per layer, and room for new SSRCs. */
const maxRetransmissionStreams = 8;

/** What this file reads of werift 0.24's receiver beyond its type declarations. */
interface ReceiverRtxInternals {
  /** RTX SSRC to media SSRC, for the RTX streams werift learnt from `a=ssrc-group:FID` lines. */
  ssrcByRtx: Record<number, number>;
}

/** Each RTX payload type of `codecs` with the media payload type its `apt` names. Pure. */
export function retransmissionPayloadTypes(codecs: readonly RTCRtpCodecParameters[]): Map<number, number> {
  const result = new Map<number, number>();
  for (const codec of codecs) {
    if (codec.name.toLowerCase() !== 'rtx' || codec.payloadType === undefined) continue;
    const apt = (codec.parameters ?? '')
      .split(';')
      .map((parameter) => parameter.trim().split('='))
      .find(([name]) => name === 'apt')?.[1];
    const mediaPayloadType = Number(apt);
    if (apt !== undefined && Number.isInteger(mediaPayloadType))
      result.set(codec.payloadType, mediaPayloadType);
  }
  return result;
}

/**
 * Lets the retransmissions of a simulcast publisher's layers on `transceiver` (a receiving
 * transceiver of a negotiated connection) reach their layer; the losses are asked for per layer by
 * `trackLossesPerStream`.
 *
 * werift 0.24 routes a packet by its SSRC or its RID header extension only. A simulcast sender's
 * RTX streams are listed nowhere (no SSRCs in a simulcast offer) and their packets carry the
 * repaired RID instead (RFC 8852), so werift dropped every retransmission and a lost packet cost
 * the layer a keyframe. Here an RTX packet (an RTX payload type on an SSRC werift does not know)
 * is taken to the layer its repaired RID names, or that its SSRC earlier named, unwrapped (RFC
 * 4588: original sequence number, then the original payload) onto the layer's SSRC and the
 * payload type its `apt` names, and handed to werift's receiver like a packet of the layer: it
 * settles the loss in the NACK handler and reaches the layer's track, and so the producer.
 * Padding-only RTX packets (bandwidth probes) are left alone. `onRetransmission` is told the RID
 * of the layer each unwrapped packet was taken to.
 *
 * Returns how to stop, or `undefined` when the transceiver receives no simulcast.
 */
export function repairSimulcastLayers(
  transceiver: RTCRtpTransceiver,
  onRetransmission?: (rid: string) => void,
): (() => void) | undefined {
  const receiver = transceiver.receiver;
  const transport = receiver.dtlsTransport;
  if (transport === undefined || Object.keys(receiver.trackByRID).length === 0) return undefined;
  const mediaPayloadTypes = retransmissionPayloadTypes(transceiver.codecs);
  const negotiated = new Set(transceiver.headerExtensions.map((extension) => extension.uri));
  if (mediaPayloadTypes.size === 0 || !negotiated.has(RTP_EXTENSION_URI.repairedRtpStreamId)) {
    return undefined;
  }
  const extensionUris = Object.fromEntries(
    transceiver.headerExtensions.map((extension) => [extension.id, extension.uri]),
  );
  const knownRtx = (receiver as unknown as ReceiverRtxInternals).ssrcByRtx;
  const mediaSsrcByRid = new Map<string, number>();
  const ridByRtxSsrc = new Map<number, string>();
  const layerSsrcs = new Set<number>();
  const { unSubscribe } = transport.onRtp.subscribe((packet: RtpPacket) => {
    const { ssrc, payloadType } = packet.header;
    const mediaPayloadType = mediaPayloadTypes.get(payloadType);
    if (mediaPayloadType === undefined) {
      // A layer's media packet: its RID names the SSRC that layer's retransmissions restore.
      if (layerSsrcs.has(ssrc) || packet.header.extensions.length === 0) return;
      const extensions = rtpHeaderExtensionsParser(packet.header.extensions, extensionUris);
      const rid = extensions[RTP_EXTENSION_URI.sdesRTPStreamID];
      if (!isOwnPacket(extensions, transceiver.mid) || typeof rid !== 'string') return;
      if (receiver.trackByRID[rid] === undefined) return;
      mediaSsrcByRid.set(rid, ssrc);
      layerSsrcs.add(ssrc);
      return;
    }
    // An SSRC werift knows, RTX included, is werift's to route.
    if (receiver.trackBySSRC[ssrc] !== undefined || knownRtx?.[ssrc] !== undefined) return;
    const extensions = rtpHeaderExtensionsParser(packet.header.extensions, extensionUris);
    if (!isOwnPacket(extensions, transceiver.mid)) return;
    const repairedRid = extensions[RTP_EXTENSION_URI.repairedRtpStreamId];
    const rid = typeof repairedRid === 'string' ? repairedRid : ridByRtxSsrc.get(ssrc);
    if (rid === undefined) return;
    if (typeof repairedRid === 'string') remember(ridByRtxSsrc, ssrc, repairedRid);
    const mediaSsrc = mediaSsrcByRid.get(rid);
    if (mediaSsrc === undefined || packet.payload.length < 2) return;
    onRetransmission?.(rid);
    receiver.handleRtpBySsrc(unwrapRtx(packet, mediaPayloadType, mediaSsrc), extensions);
  });
  return unSubscribe;
}

/** Whether a packet belongs to the transceiver of `mid`: it says so, or says nothing (bundled, after its first packets). */
function isOwnPacket(extensions: Record<string, unknown>, mid: string | null): boolean {
  const packetMid = extensions[RTP_EXTENSION_URI.sdesMid];
  return typeof packetMid !== 'string' || packetMid === mid;
}

function remember(ridByRtxSsrc: Map<number, string>, ssrc: number, rid: string): void {
  if (ridByRtxSsrc.get(ssrc) === rid) return;
  ridByRtxSsrc.delete(ssrc);
  if (ridByRtxSsrc.size >= maxRetransmissionStreams) {
    const oldest = ridByRtxSsrc.keys().next().value;
    if (oldest !== undefined) ridByRtxSsrc.delete(oldest);
  }
  ridByRtxSsrc.set(ssrc, rid);
}
