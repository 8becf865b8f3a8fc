import { Decoder, Encoder } from '@evan/opus';

/** Encodes 20 ms frames of mono 16-bit PCM into Opus packets; `pcm` may be reused by the caller once `encode` returns. */
export interface AudioEncoder {
  encode(pcm: Int16Array): Uint8Array;
}

/** Decodes Opus packets into mono 16-bit PCM at the decoder's rate. */
export interface AudioDecoder {
  decode(packet: Uint8Array): Int16Array;
}

/**
 * The audio codec port of the mixer: it makes one encoder per outgoing mix and one decoder per
 * speaker. {@link opusCodec} is the real one; {@link rawPcmCodec} is the in-memory one for tests of
 * mixing arithmetic.
 */
export interface AudioCodec {
  readonly name: string;
  createEncoder(options: {
    sampleRate: number;
    bitrate: number;
    complexity?: number;
    application?: OpusApplication;
  }): AudioEncoder;
  createDecoder(options: { sampleRate: number }): AudioDecoder;
}

type OpusRate = 8_000 | 12_000 | 16_000 | 24_000 | 48_000;

/**
 * How libopus encodes: `voip` lets it pick its speech mode (SILK) or its transform mode (CELT) from
 * the signal; `restricted-lowdelay` always uses the transform mode, with less delay and, at low
 * complexity, a fraction of the CPU (bench/README.md), but without SILK's speech model.
 */
export type OpusApplication = 'voip' | 'restricted-lowdelay';

/** The samples of little-endian 16-bit PCM bytes: a view when aligned (each decode gives fresh bytes), else a copy. */
function toPcm(bytes: Uint8Array): Int16Array {
  if (bytes.byteOffset % 2 === 0)
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
  const copy = new Int16Array(bytes.byteLength >> 1);
  new Uint8Array(copy.buffer).set(bytes.subarray(0, copy.byteLength));
  return copy;
}

/**
 * Opus through `@evan/opus`: libopus as a native addon shipped inside the npm package for Linux,
 * macOS and Windows (no install script, nothing downloaded), with its WebAssembly build as the
 * fallback elsewhere or when `OPUS_FORCE_WASM` is set.
 */
export const opusCodec: AudioCodec = {
  name: 'opus',
  createEncoder({ sampleRate, bitrate, complexity, application = 'voip' }) {
    const encoder = new Encoder({
      channels: 1,
      sample_rate: sampleRate as OpusRate,
      application: application === 'voip' ? 'voip' : 'restricted_lowdelay',
    });
    encoder.bitrate = bitrate;
    if (complexity !== undefined) encoder.complexity = complexity as Encoder['complexity'];
    return { encode: (pcm) => encoder.encode(pcm) };
  },
  createDecoder({ sampleRate }) {
    const decoder = new Decoder({ channels: 1, sample_rate: sampleRate as OpusRate });
    return { decode: (packet) => toPcm(decoder.decode(packet)) };
  },
};

/** A codec that "encodes" PCM as its own little-endian bytes: exact, for tests of the mixer. */
export const rawPcmCodec: AudioCodec = {
  name: 'raw-pcm',
  createEncoder() {
    return {
      encode: (pcm) => new Uint8Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength)),
    };
  },
  createDecoder() {
    return { decode: (packet) => toPcm(packet.slice()) };
  },
};
