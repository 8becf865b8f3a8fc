import { describe, expect, it } from 'vitest';
import { isSfuError } from '../errors.js';
import { announceAddresses } from './announce-addresses.js';
import { parseSdp } from './parse-sdp.js';
import { withoutSimulcastSsrcs } from './simulcast-ssrcs.js';
import { validateSdp } from './validate-sdp.js';

const videoOffer = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=fingerprint:sha-256 AA:BB',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97 102',
  'a=candidate:1 1 udp 2113937151 10.0.0.5 50000 typ host generation 0',
  'a=candidate:2 1 udp 2113937151 fd00::5 50001 typ host generation 0',
  'a=ice-ufrag:abcd',
  'a=ice-pwd:secretsecretsecret',
  'a=mid:0',
  'a=sendonly',
  'a=rtpmap:96 VP8/90000',
  'a=rtpmap:97 rtx/90000',
  'a=fmtp:97 apt=96',
  'a=rtpmap:102 H264/90000',
  '',
].join('\r\n');

function errorOf(action: () => unknown): { code?: string; message?: string } {
  try {
    action();
  } catch (error) {
    if (isSfuError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an error');
}

describe('parseSdp', () => {
  it('reads media sections, codecs with fmtp, direction and mid', () => {
    const summary = parseSdp(videoOffer, 65_536);
    expect(summary.hasIceCredentials && summary.hasFingerprint).toBe(true);
    expect(summary.media).toHaveLength(1);
    expect(summary.media[0]).toMatchObject({ kind: 'video', mid: '0', direction: 'sendonly', port: 9 });
    expect(
      summary.media[0]?.codecs.map((codec) => [codec.name, codec.payloadType, codec.parameters]),
    ).toEqual([
      ['VP8', 96, undefined],
      ['rtx', 97, 'apt=96'],
      ['H264', 102, undefined],
    ]);
  });

  it('says which line is wrong', () => {
    expect(errorOf(() => parseSdp('v=0\nm=video 9 X 96\nnot a line', 65_536)).message).toMatch(
      /expected line 3 like "x=..." but received "not a line"/,
    );
    expect(errorOf(() => parseSdp(42, 65_536)).message).toMatch(/but received number/);
  });
});

describe('validateSdp', () => {
  it('chooses VP8 and its RTX codec for a publish offer', () => {
    const { codecs } = validateSdp(videoOffer, 'publish-offer', { maxBytes: 65_536 });
    expect(codecs[0]?.codec.payloadType).toBe(96);
    expect(codecs[0]?.rtx?.payloadType).toBe(97);
  });

  it('refuses offers without VP8, without ICE credentials, receive-only, or with two sections', () => {
    const h264Only = videoOffer.replace('a=rtpmap:96 VP8/90000\r\n', '');
    expect(errorOf(() => validateSdp(h264Only, 'publish-offer', { maxBytes: 65_536 }))).toMatchObject({
      code: 'unsupported_media',
      message: expect.stringMatching(/to offer VP8\/90000 but it offers rtx\/90000, H264\/90000/),
    });
    const noIce = videoOffer.replace('a=ice-pwd:secretsecretsecret\r\n', '');
    expect(errorOf(() => validateSdp(noIce, 'publish-offer', { maxBytes: 65_536 })).code).toBe('invalid_sdp');
    const receiveOnly = videoOffer.replace('a=sendonly', 'a=recvonly');
    expect(errorOf(() => validateSdp(receiveOnly, 'publish-offer', { maxBytes: 65_536 })).message).toMatch(
      /sendrecv or sendonly but received recvonly/,
    );
    const twoSections = `${videoOffer}m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=ice-ufrag:x\r\na=ice-pwd:y\r\na=rtpmap:96 VP8/90000\r\n`;
    expect(errorOf(() => validateSdp(twoSections, 'publish-offer', { maxBytes: 65_536 })).message).toMatch(
      /expected 1 media section in a publish-offer but received 2/,
    );
    const plainRtp = videoOffer.replace('UDP/TLS/RTP/SAVPF', 'RTP/AVP');
    expect(errorOf(() => validateSdp(plainRtp, 'publish-offer', { maxBytes: 65_536 })).message).toMatch(
      /DTLS-SRTP/,
    );
  });
});

describe('announceAddresses', () => {
  it('adds a candidate per announced address of the same family, with the gathered port', () => {
    const announced = announceAddresses(videoOffer, ['203.0.113.7', '2001:db8::7']);
    expect(announced).toContain('a=candidate:1a0 1 udp 2113937150 203.0.113.7 50000 typ host generation 0');
    expect(announced).toContain('a=candidate:2a0 1 udp 2113937150 2001:db8::7 50001 typ host generation 0');
    expect(announced.match(/a=candidate/g)).toHaveLength(4);
    expect(announceAddresses(videoOffer, [])).toBe(videoOffer);
  });
});

describe('withoutSimulcastSsrcs', () => {
  const ssrcLines = [
    'a=ssrc:1111 cname:{firefox}',
    'a=ssrc:2222 cname:{firefox}',
    'a=ssrc:3333 cname:{firefox}',
    'a=ssrc:4444 cname:{firefox}',
    'a=ssrc-group:FID 1111 4444',
  ];
  const firefoxOffer = [
    ...videoOffer.split('\r\n').slice(0, -1),
    'a=rid:l send',
    'a=rid:m send',
    'a=rid:h send',
    'a=simulcast:send l;m;h',
    ...ssrcLines,
    'm=audio 9 UDP/TLS/RTP/SAVPF 109',
    'a=mid:1',
    'a=ssrc:5555 cname:{firefox}',
    '',
  ].join('\r\n');

  it('drops the SSRC lines of a simulcast section (Firefox lists them) and keeps every other line', () => {
    const stripped = withoutSimulcastSsrcs(firefoxOffer);
    expect(stripped).not.toMatch(/a=ssrc:(1111|2222|3333|4444)|a=ssrc-group/);
    expect(stripped).toContain('a=ssrc:5555 cname:{firefox}\r\n');
    expect(stripped).toBe(firefoxOffer.replace(`${ssrcLines.join('\r\n')}\r\n`, ''));
  });

  it('leaves a description without simulcast as it is', () => {
    const single = `${videoOffer}a=ssrc:1111 cname:{firefox}\r\n`;
    expect(withoutSimulcastSsrcs(single)).toBe(single);
    expect(withoutSimulcastSsrcs(videoOffer.replaceAll('\r\n', '\n'))).toBe(
      videoOffer.replaceAll('\r\n', '\n'),
    );
  });
});
