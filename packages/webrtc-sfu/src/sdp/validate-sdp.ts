import { SfuError } from '../errors.js';
import { parseSdp, type SdpCodec, type SdpMediaSection, type SdpSummary } from './parse-sdp.js';

/** What a description is for: it decides which media and directions are acceptable. */
export type SdpPurpose = 'audio-offer' | 'publish-offer' | 'subscribe-answer';

/** The codec the SFU will use for one media section, with its retransmission codec if offered. */
export interface ChosenCodec {
  codec: SdpCodec;
  rtx: SdpCodec | undefined;
}

/** A validated description with the codec chosen for each active media section. */
export interface ValidatedSdp {
  summary: SdpSummary;
  /** One entry per media section, `undefined` for rejected (port 0) sections. */
  codecs: Array<ChosenCodec | undefined>;
}

const requirements = {
  'audio-offer': {
    kind: 'audio',
    codec: 'opus',
    clockRate: 48_000,
    directions: ['sendrecv', 'sendonly', 'recvonly'],
  },
  'publish-offer': { kind: 'video', codec: 'VP8', clockRate: 90_000, directions: ['sendrecv', 'sendonly'] },
  'subscribe-answer': {
    kind: 'video',
    codec: 'VP8',
    clockRate: 90_000,
    directions: ['recvonly', 'inactive'],
  },
} as const;

function unsupported(message: string, details?: Record<string, unknown>): SfuError {
  return new SfuError('unsupported_media', message, details === undefined ? {} : { details });
}

/** Picks `name/clockRate` among the section's codecs, and the rtx codec pointing at it. Pure. */
export function chooseCodec(
  section: SdpMediaSection,
  name: string,
  clockRate: number,
): ChosenCodec | undefined {
  const codec = section.codecs.find(
    (candidate) => candidate.name.toLowerCase() === name.toLowerCase() && candidate.clockRate === clockRate,
  );
  if (codec === undefined) return undefined;
  const rtx = section.codecs.find(
    (candidate) =>
      candidate.name.toLowerCase() === 'rtx' &&
      candidate.parameters?.split(';').includes(`apt=${codec.payloadType}`),
  );
  return { codec, rtx };
}

function checkSection(section: SdpMediaSection, index: number, purpose: SdpPurpose): ChosenCodec {
  const rule = requirements[purpose];
  const where = `media section ${index + 1}`;
  if (section.kind !== rule.kind) {
    throw unsupported(`expected ${where} to be ${rule.kind} for a ${purpose} but received ${section.kind}`);
  }
  if (!/SAVPF?$/.test(section.protocol)) {
    throw unsupported(
      `expected ${where} to use DTLS-SRTP (UDP/TLS/RTP/SAVPF) but received ${section.protocol}`,
    );
  }
  if (!(rule.directions as readonly string[]).includes(section.direction)) {
    throw unsupported(
      `expected ${where} of a ${purpose} to be ${rule.directions.join(' or ')} but received ${section.direction}`,
    );
  }
  const chosen = chooseCodec(section, rule.codec, rule.clockRate);
  if (chosen === undefined) {
    const offered = section.codecs.map((codec) => `${codec.name}/${codec.clockRate}`).join(', ') || 'none';
    throw unsupported(`expected ${where} to offer ${rule.codec}/${rule.clockRate} but it offers ${offered}`, {
      offered: section.codecs.map((codec) => codec.name),
    });
  }
  return chosen;
}

/**
 * Parses and validates a description for its purpose: an audio offer has one Opus audio section,
 * a publish offer one VP8 video section the client sends, a subscription answer as many sections as
 * the SFU offered. Pure.
 * @throws SfuError `invalid_sdp` for malformed text or missing ICE credentials or fingerprint,
 *   `unsupported_media` for the wrong kind, direction, protocol or codec.
 */
export function validateSdp(
  text: unknown,
  purpose: SdpPurpose,
  options: { maxBytes: number; expectedSections?: number },
): ValidatedSdp {
  const summary = parseSdp(text, options.maxBytes);
  if (!summary.hasIceCredentials) {
    throw new SfuError(
      'invalid_sdp',
      'expected a=ice-ufrag and a=ice-pwd for every media section but some are missing',
    );
  }
  if (!summary.hasFingerprint) {
    throw new SfuError(
      'invalid_sdp',
      'expected a=fingerprint (DTLS) for every media section but some are missing',
    );
  }
  const expected = options.expectedSections ?? 1;
  if (summary.media.length !== expected) {
    throw unsupported(
      `expected ${expected} media section${expected === 1 ? '' : 's'} in a ${purpose} but received ${summary.media.length}`,
    );
  }
  const codecs = summary.media.map((section, index) =>
    section.port === 0 && purpose === 'subscribe-answer' ? undefined : checkSection(section, index, purpose),
  );
  return { summary, codecs };
}
