import {
  ExtensionProfiles,
  ntpTime,
  type RTCRtpSender,
  RTP_EXTENSION_URI,
  RtpHeader,
  RtpPacket,
  serializeAbsSendTime,
  serializeSdesMid,
  serializeTransportWideCC,
} from 'werift';
import type { OutgoingRtpFields } from './rtp-header-writer.js';
import type { SenderInternals } from './werift-send-internals.js';

/** One packet the direct path cannot write, for {@link sendThroughWerift}. */
export interface FallbackPacket {
  fields: OutgoingRtpFields;
  payloadType: number;
  /** The payload, or with `padded` the padding (its last byte the padding count). */
  payload: Buffer;
  ssrc: number;
  padded: boolean;
}

/** What {@link sendThroughWerift} sent. */
export interface FallbackSent {
  /** The transport-wide sequence number the packet carries, `undefined` when not negotiated. */
  transportSequenceNumber: number | undefined;
  /** Bytes of its RTP header, extensions included. */
  headerBytes: number;
}

/**
 * Sends `packet` through werift's own, asynchronous send path, for what one-byte header elements
 * cannot carry (an extension id above 14, a mid over 16 bytes): the same extensions as the direct
 * path, in two-byte elements. werift's sendRtp keeps the profile it is given and writes one-byte
 * elements by default, which for id 15 a receiver stops parsing at and for higher ids do not fit
 * in a byte. Either way the transport-wide number is taken here, before anything else is sent.
 */
export function sendThroughWerift(
  sender: RTCRtpSender,
  internals: SenderInternals,
  packet: FallbackPacket,
): FallbackSent {
  const { fields, payloadType, payload, ssrc, padded } = packet;
  const dtls = internals.dtlsTransport;
  if (ssrc === internals.ssrc && !padded) {
    const header = new RtpHeader({
      ...fields,
      payloadType,
      ssrc,
      extensionProfile: ExtensionProfiles.TwoByte,
    });
    // werift's sendRtp writes the extensions and numbers the packet for transport-wide congestion
    // control before its first await.
    sender.sendRtp(new RtpPacket(header, payload)).catch(() => {});
    const transportWide = internals.headerExtensions.some(
      (extension) => extension.uri === RTP_EXTENSION_URI.transportWideCC,
    );
    return {
      transportSequenceNumber: transportWide ? dtls.transportSequenceNumber : undefined,
      headerBytes: header.serializeSize,
    };
  }
  // werift's sendRtp would put the stream's own SSRC and payload type on a retransmission or on
  // padding: its transport sends these, with the extensions written here.
  let transportSequenceNumber: number | undefined;
  const extensions: { id: number; payload: Buffer }[] = [];
  for (const { uri, id } of internals.headerExtensions) {
    if (uri === RTP_EXTENSION_URI.transportWideCC) {
      dtls.transportSequenceNumber = (dtls.transportSequenceNumber + 1) & 0xffff;
      transportSequenceNumber = dtls.transportSequenceNumber;
      extensions.push({ id, payload: serializeTransportWideCC(transportSequenceNumber) });
    } else if (uri === RTP_EXTENSION_URI.sdesMid && internals.mid) {
      extensions.push({ id, payload: serializeSdesMid(internals.mid) });
    } else if (uri === RTP_EXTENSION_URI.absSendTime) {
      extensions.push({ id, payload: serializeAbsSendTime(ntpTime()) });
    }
  }
  extensions.sort((left, right) => left.id - right.id);
  const header = new RtpHeader({
    ...fields,
    payloadType,
    ssrc,
    extensionProfile: ExtensionProfiles.TwoByte,
    extensions,
    padding: padded,
    paddingSize: padded ? payload.length : 0,
  });
  // werift's transport encrypts with the rollover state of `ssrc` the direct path shares.
  dtls.sendRtp(payload, header).catch(() => {});
  return { transportSequenceNumber, headerBytes: header.serializeSize };
}
