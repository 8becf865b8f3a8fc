import { SfuError } from '../errors.js';

// A small parser of our own beside werift's: it reads only what the SFU decides on (media sections,
// codecs, directions, mids) from an untrusted client's description, and refuses malformed or
// unsupported input with SfuError codes the API maps to 400, before werift sees the description.

/** A codec offered in one media section (`a=rtpmap` plus its `a=fmtp`). */
export interface SdpCodec {
  payloadType: number;
  /** Codec name as written, e.g. `VP8`, `opus`, `rtx`. */
  name: string;
  clockRate: number;
  channels: number | undefined;
  /** The `a=fmtp` parameters, e.g. `apt=96`. */
  parameters: string | undefined;
}

/** The direction attribute of a media section. */
export type SdpDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

/** What the SFU needs to know about one `m=` section. */
export interface SdpMediaSection {
  kind: string;
  port: number;
  protocol: string;
  mid: string | undefined;
  direction: SdpDirection;
  codecs: SdpCodec[];
}

/** What the SFU needs to know about a session description. */
export interface SdpSummary {
  media: SdpMediaSection[];
  /** Every section (or the session level) carries `a=ice-ufrag` and `a=ice-pwd`. */
  hasIceCredentials: boolean;
  /** Every section (or the session level) carries `a=fingerprint`. */
  hasFingerprint: boolean;
}

const lineShape = /^[a-z]=/;
const directions = new Set<string>(['sendrecv', 'sendonly', 'recvonly', 'inactive']);

function invalid(message: string, details?: Record<string, unknown>): SfuError {
  return new SfuError('invalid_sdp', message, details === undefined ? {} : { details });
}

function preview(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

function parseMediaLine(line: string, lineNumber: number): SdpMediaSection {
  const match = /^m=(\S+) (\d+)(?:\/\d+)? (\S+)((?: \S+)*)$/.exec(line);
  if (match === null) {
    throw invalid(
      `expected line ${lineNumber} like "m=video 9 UDP/TLS/RTP/SAVPF 96" but received ${preview(line)}`,
    );
  }
  return {
    kind: match[1] ?? '',
    port: Number(match[2]),
    protocol: match[3] ?? '',
    mid: undefined,
    direction: 'sendrecv',
    codecs: [],
  };
}

function applyAttribute(section: SdpMediaSection, attribute: string, lineNumber: number): void {
  if (directions.has(attribute)) {
    section.direction = attribute as SdpDirection;
  } else if (attribute.startsWith('mid:')) {
    section.mid = attribute.slice(4).trim();
  } else if (attribute.startsWith('rtpmap:')) {
    const match = /^rtpmap:(\d+) ([^/\s]+)\/(\d+)(?:\/(\d+))?$/.exec(attribute.trim());
    if (match === null) {
      throw invalid(
        `expected line ${lineNumber} like "a=rtpmap:96 VP8/90000" but received ${preview(attribute)}`,
      );
    }
    section.codecs.push({
      payloadType: Number(match[1]),
      name: match[2] ?? '',
      clockRate: Number(match[3]),
      channels: match[4] === undefined ? undefined : Number(match[4]),
      parameters: undefined,
    });
  }
}

function applyFormatParameters(
  sections: SdpMediaSection[],
  fmtp: Map<SdpMediaSection, Map<number, string>>,
): void {
  for (const section of sections) {
    const parameters = fmtp.get(section);
    for (const codec of section.codecs) codec.parameters = parameters?.get(codec.payloadType);
  }
}

/**
 * Reads the parts of a session description that the SFU decides on: media sections, codecs,
 * directions and whether ICE credentials and DTLS fingerprints are present. Pure.
 * @throws SfuError `invalid_sdp` when the text is empty, too long, not line-structured SDP, or has no media.
 */
export function parseSdp(text: unknown, maxBytes: number): SdpSummary {
  if (typeof text !== 'string' || text.trim() === '') {
    throw invalid(
      `expected an SDP string starting with "v=0" but received ${typeof text === 'string' ? 'an empty string' : typeof text}`,
    );
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes)
    throw invalid(`expected an SDP of at most ${maxBytes} bytes but received ${bytes}`, { maxBytes, bytes });
  const lines = text.split(/\r?\n/).filter((line) => line !== '');
  if (lines[0] !== 'v=0')
    throw invalid(`expected the SDP to start with "v=0" but received ${preview(lines[0] ?? '')}`);
  const media: SdpMediaSection[] = [];
  const fmtp = new Map<SdpMediaSection, Map<number, string>>();
  const sessionIce = { ufrag: false, pwd: false, fingerprint: false };
  const mediaIce = new Map<SdpMediaSection, typeof sessionIce>();
  lines.forEach((line, index) => {
    if (!lineShape.test(line))
      throw invalid(`expected line ${index + 1} like "x=..." but received ${preview(line)}`);
    const current = media.at(-1);
    if (line.startsWith('m=')) {
      const section = parseMediaLine(line, index + 1);
      media.push(section);
      mediaIce.set(section, { ufrag: false, pwd: false, fingerprint: false });
      return;
    }
    if (!line.startsWith('a=')) return;
    const attribute = line.slice(2);
    const ice = current === undefined ? sessionIce : (mediaIce.get(current) ?? sessionIce);
    if (attribute.startsWith('ice-ufrag:')) ice.ufrag = true;
    else if (attribute.startsWith('ice-pwd:')) ice.pwd = true;
    else if (attribute.startsWith('fingerprint:')) ice.fingerprint = true;
    if (current === undefined) return;
    applyAttribute(current, attribute, index + 1);
    const format = /^fmtp:(\d+) (.*)$/.exec(attribute);
    if (format !== null) {
      const parameters = fmtp.get(current) ?? new Map<number, string>();
      parameters.set(Number(format[1]), format[2] ?? '');
      fmtp.set(current, parameters);
    }
  });
  if (media.length === 0) throw invalid('expected at least one "m=" media section but the SDP has none');
  applyFormatParameters(media, fmtp);
  const active = media.filter((section) => section.port !== 0);
  return {
    media,
    hasIceCredentials: active.every((section) => {
      const ice = mediaIce.get(section);
      return (sessionIce.ufrag || ice?.ufrag === true) && (sessionIce.pwd || ice?.pwd === true);
    }),
    hasFingerprint: active.every(
      (section) => sessionIce.fingerprint || mediaIce.get(section)?.fingerprint === true,
    ),
  };
}
