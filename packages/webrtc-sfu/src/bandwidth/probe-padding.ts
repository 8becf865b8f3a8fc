import { type RTCRtpTransceiver, RTP_EXTENSION_URI } from 'werift';

/**
 * Whether probe padding can go on `transceiver`: RTX and transport-cc negotiated, transport
 * connected. The padding itself goes through the consumer's direct sender
 * (`DirectRtpSender.sendPadding`), like the video it tops up.
 */
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
