import {
  GenericNack,
  MediaStreamTrack,
  PictureLossIndication,
  type RTCPeerConnection,
  RTP_EXTENSION_URI,
  RtcpPayloadSpecificFeedback,
  RtcpRrPacket,
  RtcpTransportLayerFeedback,
  RtpHeader,
  serializeRepairedRtpStreamId,
  serializeSdesMid,
  serializeSdesRTPStreamID,
  TransportWideCC,
  useRepairedRtpStreamId,
  useSdesMid,
  useSdesRTPStreamId,
} from 'werift';
import { transportFeedbackResults } from '../bandwidth/transport-feedback.js';
import { createLoopbackPeer, localSdp } from './loopback.js';
import { SentPacketHistory } from './sent-packet-history.js';
import { syntheticVp8Frame } from './synthetic-vp8.js';
import { wallClockMs } from './video-test-clients.js';

/** One layer of a {@link SimulcastTestPublisher}. */
export interface SimulcastTestLayer {
  rid: string;
  /** Payload bit/s. */
  bitrate: number;
  /** Frame width its keyframes state (height: 3/4 of it). @default 320 times 2 to the layer's index */
  width?: number;
}

/** Frame numbers of layer `index` start at `index * layerFrameBase`, so receivers can tell layers apart. */
export const layerFrameBase = 1_000_000;

interface LayerState extends SimulcastTestLayer {
  index: number;
  ssrc: number;
  sequenceNumber: number;
  pictureId: number;
  frames: number;
  keyframeWanted: boolean;
  keyframeRequests: number;
  keyframesSent: number;
  /** Whether a receiver report of the SFU named this layer's SSRC. */
  acknowledged: boolean;
  rtxSsrc: number;
  rtxSequenceNumber: number;
  /** Packets of this layer sent (or dropped), for retransmission. */
  history: SentPacketHistory;
  retransmissionsSent: number;
  /** Sequence numbers the SFU asked for. */
  nacked: number[];
}

/**
 * How a {@link SimulcastTestPublisher} signals its layers. `chromium`: the offer lists no SSRCs
 * and every packet carries the MID and RID header extensions. `firefox`: the offer lists each
 * layer's SSRC (`a=ssrc` lines), and a layer's packets stop carrying MID and RID once a receiver
 * report of the SFU names its SSRC, as libwebrtc senders do.
 */
export type SimulcastSignalling = 'chromium' | 'firefox';

/**
 * A werift client that publishes synthetic VP8 with simulcast the way Chromium does (its offer
 * carries `a=rid` and `a=simulcast:send` and no SSRCs, and every packet carries the MID and RID
 * header extensions) or the way Firefox does (see {@link SimulcastSignalling}). werift cannot send simulcast itself, so this writes each layer's RTP (own
 * SSRC, sequence numbers, 15-bit picture ids and TL0PICIDX) straight to the DTLS transport, and
 * answers PLIs for a layer's SSRC with a keyframe of that layer.
 */
export class SimulcastTestPublisher {
  readonly peer: RTCPeerConnection;
  /** Frame number of each layer's last keyframe. */
  readonly #layers: LayerState[];
  #timer: NodeJS.Timeout | undefined;
  #mid = '0';
  #transportSequenceNumber = 0;
  readonly #signalling: SimulcastSignalling;
  /** TWCC reports received from the SFU (with `transportCc`). */
  transportFeedbackReports = 0;
  /** Packets those reports say arrived. */
  packetsReportedReceived = 0;
  /**
   * Decides, for each packet about to be sent, whether the uplink loses it (it is kept for
   * retransmission all the same), to test how the SFU repairs losses.
   */
  dropFilter: ((rid: string, sequenceNumber: number) => boolean) | undefined;
  /** The packets {@link SimulcastTestPublisher.dropFilter} dropped. */
  readonly droppedPackets: Array<{ rid: string; sequenceNumber: number }> = [];
  readonly #retransmissions: boolean;

  /**
   * `transportCc` numbers every packet transport-wide and reads the SFU's TWCC reports;
   * `signalling` is `chromium` unless given; `retransmissions` negotiates the repaired RID header
   * extension and answers NACKs with RTX packets carrying it (on one RTX SSRC per layer), as
   * Chromium does.
   */
  constructor(
    layers: SimulcastTestLayer[] = [
      { rid: 'l', bitrate: 100_000 },
      { rid: 'm', bitrate: 300_000 },
      { rid: 'h', bitrate: 900_000 },
    ],
    options: { transportCc?: boolean; signalling?: SimulcastSignalling; retransmissions?: boolean } = {},
  ) {
    this.#signalling = options.signalling ?? 'chromium';
    this.#retransmissions = options.retransmissions === true;
    const repairedRid = this.#retransmissions ? [useRepairedRtpStreamId()] : [];
    this.peer = createLoopbackPeer('video', 96, {
      headerExtensions: [useSdesMid(), useSdesRTPStreamId(), ...repairedRid],
      transportCc: options.transportCc === true,
      retransmissionApt: this.#retransmissions,
    });
    this.peer.addTransceiver(new MediaStreamTrack({ kind: 'video' }), { direction: 'sendonly' });
    this.#layers = layers.map((layer, index) => ({
      ...layer,
      index,
      ssrc: 0x1000_0000 + index * 0x100 + Math.floor(Math.random() * 0xff),
      sequenceNumber: 1000 * (index + 1),
      pictureId: 100 * (index + 1),
      frames: 0,
      keyframeWanted: true,
      keyframeRequests: 0,
      keyframesSent: 0,
      acknowledged: false,
      rtxSsrc: 0x2000_0000 + index * 0x100 + Math.floor(Math.random() * 0xff),
      rtxSequenceNumber: 5000 * (index + 1),
      history: new SentPacketHistory(512),
      retransmissionsSent: 0,
      nacked: [],
    }));
  }

  /** PLIs received per rid. */
  keyframeRequests(rid: string): number {
    return this.#layers.find((layer) => layer.rid === rid)?.keyframeRequests ?? 0;
  }

  /** Keyframes sent per rid. */
  keyframesSent(rid: string): number {
    return this.#layers.find((layer) => layer.rid === rid)?.keyframesSent ?? 0;
  }

  /** RTX packets sent per rid, in answer to NACKs. */
  retransmissionsSent(rid: string): number {
    return this.#layers.find((layer) => layer.rid === rid)?.retransmissionsSent ?? 0;
  }

  /** Sequence numbers the SFU asked for per rid (NACK), repeats included. */
  nackedSequenceNumbers(rid: string): readonly number[] {
    return this.#layers.find((layer) => layer.rid === rid)?.nacked ?? [];
  }

  /** Layers whose SSRC a receiver report of the SFU named. */
  acknowledgedLayers(): string[] {
    return this.#layers.filter((layer) => layer.acknowledged).map((layer) => layer.rid);
  }

  /** The offer, with simulcast attributes added and werift's SSRC lines replaced by the layers' (`firefox`) or removed. */
  async createOffer(): Promise<string> {
    const sdp = await localSdp(this.peer, 'offer');
    const rids = this.#layers.map((layer) => layer.rid);
    const lines = sdp
      .split('\r\n')
      .filter((line) => !line.startsWith('a=ssrc'))
      .filter((line) => line !== '');
    const videoStart = lines.findIndex((line) => line.startsWith('m=video'));
    lines.splice(
      videoStart + 1,
      0,
      ...rids.map((rid) => `a=rid:${rid} send`),
      `a=simulcast:send ${rids.join(';')}`,
      ...(this.#signalling === 'firefox'
        ? this.#layers.map((layer) => `a=ssrc:${layer.ssrc} cname:{simulcast-test-publisher}`)
        : []),
    );
    return `${lines.join('\r\n')}\r\n`;
  }

  async acceptAnswer(sdp: string): Promise<void> {
    await this.peer.setRemoteDescription({ type: 'answer', sdp });
    this.#mid = this.peer.getTransceivers()[0]?.mid ?? '0';
    const transport = this.peer.getTransceivers()[0]?.sender.dtlsTransport;
    transport?.onRtcp.subscribe((packet) => {
      if (packet instanceof RtcpRrPacket) {
        for (const report of packet.reports) {
          const layer = this.#layers.find((candidate) => candidate.ssrc === report.ssrc);
          if (layer !== undefined) layer.acknowledged = true;
        }
        return;
      }
      if (packet instanceof RtcpTransportLayerFeedback && packet.feedback instanceof TransportWideCC) {
        this.transportFeedbackReports += 1;
        this.packetsReportedReceived += transportFeedbackResults(packet.feedback).filter(
          (result) => result.received,
        ).length;
        return;
      }
      if (packet instanceof RtcpTransportLayerFeedback && packet.feedback instanceof GenericNack) {
        this.#retransmit(packet.feedback);
        return;
      }
      if (!(packet instanceof RtcpPayloadSpecificFeedback)) return;
      if (!(packet.feedback instanceof PictureLossIndication)) return;
      const { mediaSsrc } = packet.feedback;
      const layer = this.#layers.find((candidate) => candidate.ssrc === mediaSsrc);
      if (layer === undefined) return;
      layer.keyframeRequests += 1;
      layer.keyframeWanted = true;
    });
  }

  /** Sends every layer at 30 frames/s until {@link SimulcastTestPublisher.stop}. */
  start(options: { keyframeInterval?: number } = {}): void {
    this.stop();
    const { keyframeInterval = 100_000 } = options;
    this.#timer = setInterval(() => {
      for (const layer of this.#layers) {
        const keyframe = layer.keyframeWanted || layer.frames % keyframeInterval === 0;
        layer.keyframeWanted = false;
        this.#sendFrame(layer, keyframe);
      }
    }, 1000 / 30);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async close(): Promise<void> {
    this.stop();
    await this.peer.close();
  }

  #sendFrame(layer: LayerState, keyframe: boolean): void {
    const transceiver = this.peer.getTransceivers()[0];
    const transport = transceiver?.sender.dtlsTransport;
    if (transceiver === undefined || transport?.state !== 'connected') return;
    const extensionId = (uri: string) =>
      transceiver.headerExtensions.find((extension) => extension.uri === uri)?.id;
    const midId = extensionId(RTP_EXTENSION_URI.sdesMid);
    const ridId = extensionId(RTP_EXTENSION_URI.sdesRTPStreamID);
    const transportCcId = extensionId(RTP_EXTENSION_URI.transportWideCC);
    if (midId === undefined || ridId === undefined) return;
    const payloads = syntheticVp8Frame({
      keyframe,
      frameNumber: layer.index * layerFrameBase + layer.frames,
      frameBytes: Math.round(layer.bitrate / 8 / 30),
      maxPacketBytes: 1_100,
      sentAtMs: wallClockMs(),
      pictureId: layer.pictureId,
      tl0PicIdx: layer.frames,
      width: layer.width ?? 320 * 2 ** layer.index,
      height: ((layer.width ?? 320 * 2 ** layer.index) * 3) / 4,
    });
    if (keyframe) layer.keyframesSent += 1;
    const timestamp = (layer.index * 7_777_777 + layer.frames * 3_000) % 0x1_0000_0000;
    payloads.forEach((payload, index) => {
      const header = new RtpHeader({
        payloadType: 96,
        ssrc: layer.ssrc,
        sequenceNumber: layer.sequenceNumber,
        timestamp,
        marker: index === payloads.length - 1,
      });
      header.extensions =
        this.#signalling === 'firefox' && layer.acknowledged
          ? []
          : [
              { id: midId, payload: serializeSdesMid(this.#mid) },
              { id: ridId, payload: serializeSdesRTPStreamID(layer.rid) },
            ];
      this.#addTransportSequenceNumber(header, transportCcId);
      layer.sequenceNumber = (layer.sequenceNumber + 1) % 0x1_0000;
      if (this.#retransmissions)
        layer.history.store(header.sequenceNumber, timestamp, header.marker, payload);
      if (this.dropFilter?.(layer.rid, header.sequenceNumber) === true) {
        this.droppedPackets.push({ rid: layer.rid, sequenceNumber: header.sequenceNumber });
        return;
      }
      transport.sendRtp(payload, header).catch(() => {});
    });
    layer.frames += 1;
    layer.pictureId = (layer.pictureId + 1) % 0x8000;
  }

  #addTransportSequenceNumber(header: RtpHeader, transportCcId: number | undefined): void {
    if (transportCcId === undefined) return;
    this.#transportSequenceNumber = (this.#transportSequenceNumber + 1) % 0x1_0000;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(this.#transportSequenceNumber);
    header.extensions.push({ id: transportCcId, payload });
  }

  /**
   * Sends RTX copies of the last `count` packets of layer `rid` that the SFU did receive, as
   * libwebrtc pads its bandwidth probes (needs `retransmissions`). Returns their sequence numbers.
   */
  repeatLastPackets(rid: string, count: number): number[] {
    const layer = this.#layers.find((candidate) => candidate.rid === rid);
    if (layer === undefined) return [];
    const dropped = new Set(
      this.droppedPackets.filter((packet) => packet.rid === rid).map((packet) => packet.sequenceNumber),
    );
    const repeated: number[] = [];
    for (let back = 1; repeated.length < count && back <= 512; back += 1) {
      const sequenceNumber = (layer.sequenceNumber - back + 0x1_0000) % 0x1_0000;
      if (dropped.has(sequenceNumber) || !this.#sendRetransmission(layer, sequenceNumber)) continue;
      repeated.push(sequenceNumber);
    }
    return repeated;
  }

  /** Answers a NACK of the SFU with an RTX packet (RFC 4588) for each asked packet still kept. */
  #retransmit(nack: GenericNack): void {
    const layer = this.#layers.find((candidate) => candidate.ssrc === nack.mediaSourceSsrc);
    if (layer === undefined) return;
    layer.nacked.push(...nack.lost);
    if (!this.#retransmissions) return;
    for (const sequenceNumber of nack.lost) this.#sendRetransmission(layer, sequenceNumber);
  }

  /** Sends one kept packet of `layer` again as RTX; false when it is not kept or nothing can be sent. */
  #sendRetransmission(layer: LayerState, sequenceNumber: number): boolean {
    const transceiver = this.peer.getTransceivers()[0];
    const transport = transceiver?.sender.dtlsTransport;
    const sent = layer.history.get(sequenceNumber);
    if (transceiver === undefined || transport?.state !== 'connected' || sent === undefined) return false;
    const extensionId = (uri: string) =>
      transceiver.headerExtensions.find((extension) => extension.uri === uri)?.id;
    const midId = extensionId(RTP_EXTENSION_URI.sdesMid);
    const repairedRidId = extensionId(RTP_EXTENSION_URI.repairedRtpStreamId);
    const rtxPayloadType =
      transceiver.codecs.find((codec) => codec.name.toLowerCase() === 'rtx')?.payloadType ?? 97;
    const header = new RtpHeader({
      payloadType: rtxPayloadType,
      ssrc: layer.rtxSsrc,
      sequenceNumber: layer.rtxSequenceNumber,
      timestamp: sent.timestamp,
      marker: sent.marker,
    });
    // Like Chromium: the MID and the repaired RID name the stream, there is no RID.
    if (midId !== undefined) header.extensions.push({ id: midId, payload: serializeSdesMid(this.#mid) });
    if (repairedRidId !== undefined) {
      header.extensions.push({ id: repairedRidId, payload: serializeRepairedRtpStreamId(layer.rid) });
    }
    this.#addTransportSequenceNumber(header, extensionId(RTP_EXTENSION_URI.transportWideCC));
    layer.rtxSequenceNumber = (layer.rtxSequenceNumber + 1) % 0x1_0000;
    layer.retransmissionsSent += 1;
    const original = Buffer.alloc(2);
    original.writeUInt16BE(sequenceNumber);
    transport.sendRtp(Buffer.concat([original, sent.payload]), header).catch(() => {});
    return true;
  }
}
