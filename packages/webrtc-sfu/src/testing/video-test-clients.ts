import {
  GenericNack,
  MediaStreamTrack,
  ReceiverEstimatedMaxBitrate,
  type RTCPeerConnection,
  RTP_EXTENSION_URI,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
  RtpHeader,
  RtpPacket,
  useTransportWideCC,
} from 'werift';
import { startRestartedIce } from '../peer-factory.js';
import { createLoopbackPeer, localSdp } from './loopback.js';
import { syntheticVp8Frame } from './synthetic-vp8.js';
import { TransportFeedbackSender } from './transport-feedback-sender.js';

/** How a {@link VideoTestPublisher} sends. */
export interface PublishRate {
  /** Bits per second of payload. @default 1_000_000 */
  bitrate?: number;
  /** Frames per second. @default 30 */
  framesPerSecond?: number;
  /** A keyframe every this many frames, besides those asked for by PLI. @default 300 */
  keyframeInterval?: number;
}

/** The sender's wall clock in ms, comparable across processes on one machine. */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A werift client that publishes synthetic VP8 (see {@link syntheticVp8Frame}) and answers keyframe
 * requests (PLI) with a keyframe on the next frame.
 */
export class VideoTestPublisher {
  readonly peer: RTCPeerConnection;
  /** PLIs received from the SFU. */
  keyframeRequests = 0;
  framesSent = 0;
  packetsSent = 0;
  /** Called after each frame with its send time and number of packets. */
  onFrame: ((sentAtMs: number, packets: number) => void) | undefined;
  readonly #track = new MediaStreamTrack({ kind: 'video' });
  #sequenceNumber = 1000;
  #keyframeWanted = true;
  #timer: NodeJS.Timeout | undefined;

  /**
   * `payloadType` is VP8's payload type in the publisher's offer; `ownAddresses` as in
   * `LoopbackPeerOptions`; `firstSequenceNumber` is the first packet's (1000 unless given).
   */
  constructor(options: { payloadType?: number; ownAddresses?: string[]; firstSequenceNumber?: number } = {}) {
    this.#sequenceNumber = options.firstSequenceNumber ?? 1000;
    this.peer = createLoopbackPeer('video', options.payloadType, { ownAddresses: options.ownAddresses });
    const transceiver = this.peer.addTransceiver(this.#track, { direction: 'sendonly' });
    transceiver.sender.onPictureLossIndication.subscribe(() => {
      this.keyframeRequests += 1;
      this.#keyframeWanted = true;
    });
  }

  createOffer(): Promise<string> {
    return localSdp(this.peer, 'offer');
  }

  async acceptAnswer(sdp: string): Promise<void> {
    await this.peer.setRemoteDescription({ type: 'answer', sdp });
    startRestartedIce(this.peer);
  }

  /** Sends frames until {@link VideoTestPublisher.stop}. */
  start(rate: PublishRate = {}): void {
    this.stop();
    const { bitrate = 1_000_000, framesPerSecond = 30, keyframeInterval = 300 } = rate;
    const frameBytes = Math.round(bitrate / 8 / framesPerSecond);
    this.#timer = setInterval(() => {
      const keyframe = this.#keyframeWanted || this.framesSent % keyframeInterval === 0;
      this.#keyframeWanted = false;
      this.sendFrame(keyframe, frameBytes);
    }, 1000 / framesPerSecond);
  }

  /** Sends one frame now. */
  sendFrame(keyframe: boolean, frameBytes = 4_000): void {
    const sentAtMs = wallClockMs();
    const payloads = syntheticVp8Frame({
      keyframe,
      frameNumber: this.framesSent,
      frameBytes,
      maxPacketBytes: 1_100,
      sentAtMs,
    });
    const timestamp = (this.framesSent * 3_000) % 0x1_0000_0000;
    payloads.forEach((payload, index) => {
      const sequenceNumber = this.#sequenceNumber;
      this.#sequenceNumber = (this.#sequenceNumber + 1) % 0x1_0000;
      const header = new RtpHeader({
        payloadType: 96,
        sequenceNumber,
        timestamp,
        marker: index === payloads.length - 1,
      });
      this.packetsSent += 1;
      this.#track.writeRtp(new RtpPacket(header, payload));
    });
    this.framesSent += 1;
    this.onFrame?.(sentAtMs, payloads.length);
  }

  /** Stops sending frames. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async close(): Promise<void> {
    this.stop();
    await this.peer.close();
  }
}

/** One received RTP packet of a {@link VideoTestSubscriber}. */
export interface ReceivedPacket {
  mid: string;
  packet: RtpPacket;
  receivedAtMs: number;
}

/** A werift client that answers the SFU's subscription offers and records what arrives per mid. */
export class VideoTestSubscriber {
  readonly peer: RTCPeerConnection;
  /** Every packet received, unless {@link VideoTestSubscriber.keepPackets} is false. */
  readonly packets: ReceivedPacket[] = [];
  /** Packets received per mid. */
  readonly counts = new Map<string, number>();
  keepPackets = true;
  onPacket: ((received: ReceivedPacket) => void) | undefined;
  /** Sends TWCC feedback when constructed with `transportCc`. */
  readonly transportFeedback: TransportFeedbackSender | undefined;
  /** Arrival times (wall clock, ms) of padding-only packets, such as the SFU's bandwidth probes. */
  readonly paddingArrivals: number[] = [];
  /**
   * Called with every RTP packet the connection decrypted, in arrival order: the video's, its RTX
   * retransmissions and padding-only packets (which no track sees) alike.
   */
  onTransportPacket: ((packet: RtpPacket) => void) | undefined;
  #listening = false;

  /**
   * `transportCc` negotiates transport-wide sequence numbers and sends TWCC feedback on what
   * arrives (see {@link TransportFeedbackSender}, which can also pretend a bitrate limit);
   * `ownAddresses` as in `LoopbackPeerOptions`.
   */
  constructor(options: { transportCc?: boolean; ownAddresses?: string[] } = {}) {
    const transportCc = options.transportCc === true;
    this.peer = createLoopbackPeer('video', 96, {
      headerExtensions: transportCc ? [useTransportWideCC()] : [],
      ownAddresses: options.ownAddresses,
    });
    this.transportFeedback = transportCc
      ? new TransportFeedbackSender(
          () => this.peer.getTransceivers()[0]?.receiver.dtlsTransport,
          Math.floor(Math.random() * 0xffff_ffff),
        )
      : undefined;
    this.peer.onTrack.subscribe((track) => {
      const transceiver = this.peer
        .getTransceivers()
        .find((candidate) => candidate.receiver.tracks.includes(track));
      track.onReceiveRtp.subscribe((packet) => {
        const received = { mid: transceiver?.mid ?? '', packet, receivedAtMs: wallClockMs() };
        this.counts.set(received.mid, (this.counts.get(received.mid) ?? 0) + 1);
        if (this.keepPackets) this.packets.push(received);
        this.onPacket?.(received);
      });
    });
  }

  /**
   * Feeds every RTP packet of the transport to the TWCC feedback, padding-only packets on an RTX
   * SSRC too (werift's receiver drops those before any track sees them), and notes the padding.
   */
  #listenToTransport(): void {
    const transceiver = this.peer.getTransceivers()[0];
    const transport = transceiver?.receiver.dtlsTransport;
    if (this.#listening || transceiver === undefined || transport === undefined) return;
    this.#listening = true;
    transport.onRtp.subscribe((packet) => {
      this.onTransportPacket?.(packet);
      if (packet.payload.length === 0 && packet.header.padding) this.paddingArrivals.push(wallClockMs());
      if (this.transportFeedback === undefined) return;
      const id = transceiver.headerExtensions.find(
        (extension) => extension.uri === RTP_EXTENSION_URI.transportWideCC,
      )?.id;
      const extension = packet.header.extensions.find((candidate) => candidate.id === id);
      if (extension !== undefined && extension.payload.length >= 2) {
        this.transportFeedback.received(
          extension.payload.readUInt16BE(0),
          packet.header.serializeSize + packet.payload.length + packet.header.paddingSize,
          packet.header.ssrc,
        );
      }
    });
  }

  /** Applies the SFU's offer and returns the answer. */
  async answer(offer: string): Promise<string> {
    await this.peer.setRemoteDescription({ type: 'offer', sdp: offer });
    this.#listenToTransport();
    const answer = await localSdp(this.peer, 'answer');
    startRestartedIce(this.peer);
    return answer;
  }

  /** Packets received on `mid`. */
  count(mid: string): number {
    return this.counts.get(mid) ?? 0;
  }

  /** Sends a NACK for `lost` sequence numbers of the stream on `mid`, as a receiver that lost them would. */
  async sendNack(mid: string, lost: number[]): Promise<void> {
    const transceiver = this.peer.getTransceivers().find((candidate) => candidate.mid === mid);
    const mediaSourceSsrc = this.packets.find((received) => received.mid === mid)?.packet.header.ssrc;
    if (transceiver === undefined || mediaSourceSsrc === undefined)
      throw new Error(`nothing received on mid ${mid}`);
    const feedback = new GenericNack({ senderSsrc: transceiver.receiver.rtcpSsrc, mediaSourceSsrc, lost });
    await transceiver.receiver.dtlsTransport.sendRtcp([new RtcpTransportLayerFeedback({ feedback })]);
  }

  /**
   * Sends a REMB saying the client can receive `bitrate` bit/s on every stream it has received, as
   * a browser without transport-wide congestion control does.
   */
  async sendRemb(bitrate: number): Promise<void> {
    const transceiver = this.peer.getTransceivers()[0];
    if (transceiver === undefined) throw new Error('no transceiver to send a REMB on');
    const ssrcFeedbacks = [...new Set(this.packets.map((received) => received.packet.header.ssrc))];
    let mantissa = Math.round(bitrate);
    let exponent = 0;
    while (mantissa >= 0x4_0000) {
      mantissa = Math.floor(mantissa / 2);
      exponent += 1;
    }
    const feedback = new ReceiverEstimatedMaxBitrate({
      senderSsrc: transceiver.receiver.rtcpSsrc,
      mediaSsrc: 0,
      ssrcNum: ssrcFeedbacks.length,
      brExp: exponent,
      brMantissa: mantissa,
      bitrate: BigInt(mantissa) << BigInt(exponent),
      ssrcFeedbacks,
    });
    await transceiver.receiver.dtlsTransport.sendRtcp([new RtcpPayloadSpecificFeedback({ feedback })]);
  }

  async close(): Promise<void> {
    this.transportFeedback?.stop();
    await this.peer.close();
  }
}
