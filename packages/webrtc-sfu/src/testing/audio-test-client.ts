import {
  MediaStreamTrack,
  type RTCPeerConnection,
  RTP_EXTENSION_URI,
  RtpHeader,
  RtpPacket,
  useAudioLevelIndication,
  type MediaStreamTrack as WeriftTrack,
} from 'werift';
import { type AudioCodec, type AudioDecoder, opusCodec } from '../audio/opus-codec.js';
import { frameLevelDbov } from '../audio/talking-detector.js';
import { startRestartedIce } from '../peer-factory.js';
import { createLoopbackPeer, localSdp } from './loopback.js';
import { sine } from './signal.js';

const rate = 48_000;
const frameSamples = 960;

/** Options of an {@link AudioTestClient}. */
export interface AudioTestClientOptions {
  /** Offer RFC 6464's audio level extension and state each sent frame's level, as browsers do. */
  statesLevel?: boolean;
}

/**
 * A werift client of the audio bridge: it offers send-receive Opus audio, can send a tone every
 * 20 ms, and decodes what it receives (48 kHz mono) for measurements.
 */
export class AudioTestClient {
  /** The client's connection. */
  readonly peer: RTCPeerConnection;
  /** Decoded received frames, in arrival order. */
  readonly received: Int16Array[] = [];
  /** RTP packets received. */
  packetsReceived = 0;
  readonly #track: WeriftTrack = new MediaStreamTrack({ kind: 'audio' });
  readonly #codec: AudioCodec;
  readonly #decoder: AudioDecoder;
  #timer: NodeJS.Timeout | undefined;
  #sequenceNumber = 1;
  #frame = 0;
  /** The negotiated id of the audio level extension, when both sides agreed on it. */
  #levelId: number | undefined;

  constructor(codec: AudioCodec = opusCodec, options: AudioTestClientOptions = {}) {
    this.peer = createLoopbackPeer('audio', 96, {
      headerExtensions: options.statesLevel === true ? [useAudioLevelIndication()] : [],
    });
    this.#codec = codec;
    this.#decoder = codec.createDecoder({ sampleRate: rate });
    this.peer.addTransceiver(this.#track, { direction: 'sendrecv' });
    this.peer.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((packet) => {
        this.packetsReceived += 1;
        this.received.push(this.#decoder.decode(packet.payload));
      });
    });
  }

  /** The offer to send to the SFU. */
  createOffer(): Promise<string> {
    return localSdp(this.peer, 'offer');
  }

  /** Applies the SFU's answer. */
  async acceptAnswer(sdp: string): Promise<void> {
    await this.peer.setRemoteDescription({ type: 'answer', sdp });
    // The id both sides agreed on for the level, once, rather than per sent frame.
    this.#levelId = this.peer
      .getTransceivers()[0]
      ?.headerExtensions.find((extension) => extension.uri === RTP_EXTENSION_URI.audioLevelIndication)?.id;
    startRestartedIce(this.peer);
  }

  /** Sends a sine tone until {@link AudioTestClient.stopTone}; amplitude in 16-bit units. */
  startTone(frequency: number, amplitude = 8_000): void {
    this.stopTone();
    const encoder = this.#codec.createEncoder({ sampleRate: rate, bitrate: 32_000 });
    this.#timer = setInterval(() => {
      const pcm = sine(frameSamples, frequency, rate, amplitude, this.#frame * frameSamples);
      const header = new RtpHeader({
        payloadType: 96,
        sequenceNumber: this.#sequenceNumber,
        timestamp: this.#frame * frameSamples,
        marker: this.#frame === 0,
      });
      const levelId = this.#levelId;
      if (levelId !== undefined)
        header.extensions = [
          { id: levelId, payload: Buffer.from([Math.min(127, Math.round(-frameLevelDbov(pcm)))]) },
        ];
      this.#sequenceNumber = (this.#sequenceNumber + 1) % 0x1_0000;
      this.#frame += 1;
      this.#track.writeRtp(new RtpPacket(header, Buffer.from(encoder.encode(pcm))));
    }, 20);
  }

  /** Stops sending. */
  stopTone(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The decoded frames received since frame `from`, joined. */
  samplesSince(from: number): Int16Array {
    const frames = this.received.slice(from);
    const joined = new Int16Array(frames.reduce((total, frame) => total + frame.length, 0));
    let offset = 0;
    for (const frame of frames) {
      joined.set(frame, offset);
      offset += frame.length;
    }
    return joined;
  }

  /** Stops sending and closes the connection. */
  async close(): Promise<void> {
    this.stopTone();
    await this.peer.close();
  }
}
