import { describe, expect, it } from 'vitest';
import { parseSfuOptions } from './options.js';

describe('parseSfuOptions', () => {
  it('fills every default', () => {
    const options = parseSfuOptions(undefined);
    expect(options.limits).toEqual({
      sessionsPerRouter: 100,
      subscriptionsPerSession: 50,
      sdpBytes: 65_536,
      retransmissionPackets: 512,
      keyframeRequestIntervalMs: 500,
    });
    expect(options.audio.sampleRate).toBe(16_000);
    expect(options.ice).toEqual({
      hostAddresses: [],
      onlyAddresses: [],
      announcedAddresses: [],
      useIpv6: false,
      servers: [],
    });
  });

  it('names the wrong field and what it expected', () => {
    expect(() => parseSfuOptions({ ice: { portRange: [50_000, 40_000] } })).toThrow(
      /`ice.portRange`: the first port must be lower than the second/,
    );
    expect(() => parseSfuOptions({ ice: { announcedAddresses: ['example.com'] } })).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
    expect(() => parseSfuOptions({ ice: { servers: [{ urls: 'http://turn' }] } })).toThrow(
      /a stun:, stuns:, turn: or turns: URL/,
    );
    expect(() => parseSfuOptions({ audio: { talking: { startDbov: -60, stopDbov: -50 } } })).toThrow(
      /stopDbov/,
    );
  });
});
