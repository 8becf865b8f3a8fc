import {
  type RTCDtlsTransport,
  type RTCRtpTransceiver,
  RTP_EXTENSION_URI,
  RtpHeader,
  serializeTransportWideCC,
} from 'werift';

/** Where a subscriber's probe padding goes: its RTX stream of one video transceiver. */
export interface PaddingStream {
  transport: RTCDtlsTransport;
  /** The RTX SSRC and payload type negotiated for the transceiver. */
  ssrc: number;
  payloadType: number;
  /** The negotiated id of the transport-wide sequence number header extension. */
  transportCcId: number;
}

/**
 * Sends one padding-only RTP packet (no payload, `paddingBytes` of padding, 1 to 255) on `stream`
 * with the next transport-wide sequence number of its DTLS transport, the counter werift's own
 * senders number their packets with, so transport-wide feedback reports it with the video. Returns
 * that number and the packet's size (RTP header and padding, before SRTP). The one place probe
 * packets are sent.
 */
export function sendPaddingPacket(
  stream: PaddingStream,
  sequenceNumber: number,
  timestamp: number,
  paddingBytes: number,
): { transportSequenceNumber: number; bytes: number } {
  const transport = stream.transport;
  transport.transportSequenceNumber = (transport.transportSequenceNumber + 1) & 0xffff;
  const transportSequenceNumber = transport.transportSequenceNumber;
  const size = Math.max(1, Math.min(255, Math.floor(paddingBytes)));
  const header = new RtpHeader({
    payloadType: stream.payloadType,
    ssrc: stream.ssrc,
    sequenceNumber,
    timestamp,
    padding: true,
    paddingSize: size,
    extensions: [{ id: stream.transportCcId, payload: serializeTransportWideCC(transportSequenceNumber) }],
  });
  // SRTP encrypts what follows the header as one; with the P bit set its last byte counts the padding.
  const padding = Buffer.alloc(size);
  padding.writeUInt8(size, size - 1);
  transport.sendRtp(padding, header).catch(() => {});
  return { transportSequenceNumber, bytes: header.serializeSize + size };
}

/** Whether probe padding can go on `transceiver`: RTX and transport-cc negotiated, transport connected. */
export function paddingPossible(transceiver: RTCRtpTransceiver): boolean {
  const main = transceiver.sender.codec?.payloadType;
  return (
    main !== undefined &&
    transceiver.sender.dtlsTransport?.state === 'connected' &&
    transceiver.headerExtensions.some((extension) => extension.uri === RTP_EXTENSION_URI.transportWideCC) &&
    transceiver.codecs.some(
      (codec) =>
        codec.name.toLowerCase() === 'rtx' && (codec.parameters ?? '').split(';').includes(`apt=${main}`),
    )
  );
}
