import {
  type CandidatePair,
  MediaStreamTrack,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  type RtpPacket,
} from 'werift';
import { DirectRtpSender } from '../../src/rtp/direct-rtp-sender.js';
import { localSdp, waitFor } from '../../src/testing/index.js';

/** Two werift peers on loopback, the first sending VP8 through a {@link DirectRtpSender}. */
export interface DirectSenderPair {
  sending: RTCPeerConnection;
  receiving: RTCPeerConnection;
  direct: DirectRtpSender;
  /** The negotiated VP8 payload type. */
  payloadType: number;
  /** Every RTP packet the receiving peer decrypted, in arrival order. */
  received: RtpPacket[];
  close(): Promise<void>;
}

/** What sets the two peers' ICE apart from the loopback defaults. */
export interface PairIce {
  /** Gather ICE-TCP candidates too (werift's `iceUseTcp`). */
  useTcp?: boolean;
  /** Only pairs this accepts are checked, on both peers. */
  acceptPair: (pair: CandidatePair) => boolean;
}

function loopbackVideoPeer(ice: PairIce): RTCPeerConnection {
  return new RTCPeerConnection({
    codecs: {
      audio: [],
      video: [new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90_000, payloadType: 96 })],
    },
    headerExtensions: { audio: [], video: [] },
    iceServers: [],
    iceUseIpv4: false,
    iceUseTcp: ice.useTcp ?? false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceFilterCandidatePair: ice.acceptPair,
  });
}

/**
 * Connects a sending and a receiving werift peer over loopback with `ice`, and wraps the sending
 * peer's video sender in a {@link DirectRtpSender} the way the SFU's consumers do. Unlike the SFU,
 * whose connections gather UDP only, this lets a test pick the kind of pair the sender sends on.
 */
export async function connectDirectSenderPair(
  ice: PairIce,
  options: { nativeSrtp: boolean },
): Promise<DirectSenderPair> {
  const sending = loopbackVideoPeer(ice);
  const receiving = loopbackVideoPeer(ice);
  const transceiver = sending.addTransceiver(new MediaStreamTrack({ kind: 'video' }), {
    direction: 'sendonly',
  });
  const received: RtpPacket[] = [];
  receiving.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((packet) => {
      received.push(packet);
    });
  });
  await receiving.setRemoteDescription({ type: 'offer', sdp: await localSdp(sending, 'offer') });
  await sending.setRemoteDescription({ type: 'answer', sdp: await localSdp(receiving, 'answer') });
  await waitFor(
    () => sending.connectionState === 'connected' && receiving.connectionState === 'connected',
    'both peers connected',
    20_000,
  );
  const codec = transceiver.sender.codec;
  if (codec === undefined) throw new Error('no codec negotiated for the video sender');
  return {
    sending,
    receiving,
    direct: new DirectRtpSender(transceiver.sender, options),
    payloadType: codec.payloadType,
    received,
    close: async () => {
      await Promise.all([sending.close(), receiving.close()]);
    },
  };
}

/** The payload of the packet numbered `sequenceNumber`: recognisable bytes, different per packet. */
export function payloadOf(sequenceNumber: number, bytes = 1_000): Buffer {
  return Buffer.from(Array.from({ length: bytes }, (_, index) => (sequenceNumber * 7 + index) % 251));
}

/**
 * Sends `count` packets numbered from `first` (modulo 2^16) in one burst, each with
 * {@link payloadOf} its number. Returns what each send returned.
 */
export function sendBurst(
  pair: DirectSenderPair,
  first: number,
  count: number,
): Array<number | undefined | null> {
  const results: Array<number | undefined | null> = [];
  for (let index = 0; index < count; index += 1) {
    const sequenceNumber = (first + index) & 0xffff;
    const fields = { sequenceNumber, timestamp: sequenceNumber * 3_000, marker: true };
    results.push(pair.direct.send(fields, pair.payloadType, payloadOf(sequenceNumber), performance.now()));
  }
  return results;
}

/** Whether every packet numbered `first` to `first + count - 1` arrived with its own payload. */
export function arrivedIntact(pair: DirectSenderPair, first: number, count: number): boolean {
  const bySequence = new Map(pair.received.map((packet) => [packet.header.sequenceNumber, packet]));
  for (let index = 0; index < count; index += 1) {
    const sequenceNumber = (first + index) & 0xffff;
    const packet = bySequence.get(sequenceNumber);
    if (packet === undefined || !packet.payload.equals(payloadOf(sequenceNumber))) return false;
  }
  return true;
}
