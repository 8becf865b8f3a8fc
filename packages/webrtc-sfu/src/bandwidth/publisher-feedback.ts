import { type RTCRtpReceiver, type RTCRtpTransceiver, RTP_EXTENSION_URI } from 'werift';
import { TransportFeedbackWriter } from './transport-feedback-writer.js';

type WeriftReceiverFeedback = NonNullable<RTCRtpReceiver['receiverTWCC']>;

/**
 * Sends transport-wide congestion control feedback to a publisher for everything it sends on this
 * transceiver's transport (all its simulcast layers, retransmissions and probes), when the answer negotiated it, so the publisher's
 * congestion control can grow into its layers. Returns how to stop, or `undefined` when not
 * negotiated. werift's own feedback for the receiver is replaced by a stand-in that does nothing,
 * as its reports are malformed (see {@link TransportFeedbackWriter}).
 */
export function startPublisherFeedback(transceiver: RTCRtpTransceiver): (() => void) | undefined {
  const id = transceiver.headerExtensions.find(
    (extension) => extension.uri === RTP_EXTENSION_URI.transportWideCC,
  )?.id;
  const receiver = transceiver.receiver;
  if (id === undefined || receiver.twccEnabled === undefined) return undefined;
  receiver.receiverTWCC = { handleTWCC() {}, twccRunning: false } as unknown as WeriftReceiverFeedback;
  const transport = receiver.dtlsTransport;
  if (transport === undefined) return undefined;
  const writer = new TransportFeedbackWriter(() => transport, receiver.rtcpSsrc);
  // Every packet of the connection counts, not only those werift hands to a track: a browser's
  // bandwidth probes (padding on its RTX streams) carry transport-wide numbers too, and reporting
  // them missing would read as heavy loss.
  const { unSubscribe } = transport.onRtp.subscribe((packet) => {
    for (const extension of packet.header.extensions) {
      if (extension.id !== id || extension.payload.length < 2) continue;
      writer.received(extension.payload.readUInt16BE(0), packet.header.ssrc);
      return;
    }
  });
  return () => {
    writer.stop();
    unSubscribe();
  };
}
