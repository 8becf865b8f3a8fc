import { type RTCPeerConnection, type RTCRtpTransceiver, RTP_EXTENSION_URI } from 'werift';
import type { AudioMixer } from './audio/audio-mixer.js';
import { SfuError } from './errors.js';
import type { SfuOptions } from './options.js';
import { answerIceRestart, createPeer, negotiate, setLocalDescriptionQuietly } from './peer-factory.js';
import { DirectRtpSender } from './rtp/direct-rtp-sender.js';
import { announceAddresses } from './sdp/announce-addresses.js';
import { isIceRestartOffer } from './sdp/ice-restart.js';
import type { SdpDirection } from './sdp/parse-sdp.js';
import type { SfuTotals } from './sfu-stats.js';

const samplesPerFrame = 960;

/**
 * The level a packet's sender states (RFC 6464: the low 7 bits are minus its level in dBov), when
 * the extension was negotiated and the packet carries it. Pure.
 */
export function statedLevelDbov(
  extensions: ReadonlyArray<{ id: number; payload: Buffer }>,
  levelId: number | undefined,
): number | undefined {
  if (levelId === undefined) return undefined;
  for (const extension of extensions)
    if (extension.id === levelId && extension.payload.length > 0)
      return -((extension.payload[0] as number) & 0x7f);
  return undefined;
}
/** Counted in the totals as werift counted it: the fixed header, without extensions. */
const rtpHeaderSize = 12;

/**
 * One participant's audio connection: the client offers, the SFU answers; the participant's
 * microphone goes into the router's mixer and the mix of everyone else comes back on the same
 * transceiver.
 */
export class AudioConnection {
  readonly #participantId: string;
  readonly #nativeSrtp: boolean;
  readonly #mixer: AudioMixer;
  readonly #peer: RTCPeerConnection;
  readonly #totals: SfuTotals;
  #transceiver: RTCRtpTransceiver | undefined;
  #direct: DirectRtpSender | undefined;
  #sequenceNumber = Math.floor(Math.random() * 0x1_0000);
  readonly #timestampBase = Math.floor(Math.random() * 0x1_0000_0000);
  #lastFrameIndex = -2;
  #closed = false;
  /** The negotiated id of the audio level header extension, if the client sends it. */
  #levelId: number | undefined;

  constructor(
    participantId: string,
    mixer: AudioMixer,
    ice: SfuOptions['ice'],
    totals: SfuTotals,
    srtp: SfuOptions['srtp'],
  ) {
    this.#nativeSrtp = srtp.native;
    this.#participantId = participantId;
    this.#totals = totals;
    this.#mixer = mixer;
    this.#peer = createPeer(ice, 'audio', 'publish', srtp.native);
    this.#peer.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((packet) => {
        if (this.#closed) return;
        const { sequenceNumber, extensions } = packet.header;
        mixer.push(participantId, sequenceNumber, packet.payload, statedLevelDbov(extensions, this.#levelId));
      });
    });
  }

  /** The werift connection, for state and statistics. */
  get peer(): RTCPeerConnection {
    return this.#peer;
  }

  /** Applies the client's offer and returns the SFU's answer. */
  async answer(offer: string, offeredDirection: SdpDirection, ice: SfuOptions['ice']): Promise<string> {
    const peer = this.#peer;
    await negotiate('apply the audio offer', () => peer.setRemoteDescription({ type: 'offer', sdp: offer }));
    const transceiver = peer.getTransceivers().find((candidate) => candidate.kind === 'audio');
    if (transceiver === undefined)
      throw new SfuError('negotiation_failed', 'the audio offer produced no audio transceiver');
    transceiver.setDirection(
      offeredDirection === 'sendonly'
        ? 'recvonly'
        : offeredDirection === 'recvonly'
          ? 'sendonly'
          : 'sendrecv',
    );
    this.#transceiver = transceiver;
    this.#levelId = transceiver.headerExtensions.find(
      (extension) => extension.uri === RTP_EXTENSION_URI.audioLevelIndication,
    )?.id;
    const sdp = await negotiate('answer the audio offer', async () => {
      await setLocalDescriptionQuietly(peer, ice, await peer.createAnswer());
      return peer.localDescription?.sdp ?? '';
    });
    this.#mixer.add(
      this.#participantId,
      offeredDirection === 'sendonly' ? undefined : (payload, index) => this.#send(payload, index),
    );
    return announceAddresses(sdp, ice.announcedAddresses);
  }

  /** Whether `offer` restarts ICE on this connection rather than replacing it. */
  restartsIce(offer: string): boolean {
    return !this.#closed && isIceRestartOffer(this.#peer.remoteDescription?.sdp, offer);
  }

  /** Answers an offer that restarts ICE (see {@link AudioConnection.restartsIce}); the mix keeps flowing once it reconnects. */
  async answerIceRestart(offer: string, ice: SfuOptions['ice']): Promise<string> {
    const sdp = await answerIceRestart(this.#peer, ice, offer);
    return announceAddresses(sdp, ice.announcedAddresses);
  }

  /** Closes the connection and leaves the mix. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#peer.close().catch(() => {});
  }

  #send(payload: Uint8Array, frameIndex: number): void {
    const sender = this.#transceiver?.sender;
    if (this.#closed || sender?.codec === undefined) return;
    this.#direct ??= new DirectRtpSender(sender, { nativeSrtp: this.#nativeSrtp });
    this.#sequenceNumber = (this.#sequenceNumber + 1) % 0x1_0000;
    const fields = {
      sequenceNumber: this.#sequenceNumber,
      timestamp: (this.#timestampBase + frameIndex * samplesPerFrame) % 0x1_0000_0000,
      marker: frameIndex !== this.#lastFrameIndex + 1,
    };
    this.#lastFrameIndex = frameIndex;
    const body = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    if (this.#direct.send(fields, sender.codec.payloadType, body, performance.now()) === null) return;
    this.#totals.audioPacketsSent += 1;
    this.#totals.audioBytesSent += rtpHeaderSize + body.length;
  }
}
