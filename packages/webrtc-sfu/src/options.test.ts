import { describe, expect, it } from 'vitest';
import { parseSfuOptions } from './options.js';
import { peerConfig } from './peer-factory.js';

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
      gatherServers: [],
    });
  });

  it('asks no STUN server unless one is configured, and at most one', () => {
    expect(peerConfig(parseSfuOptions(undefined).ice, 'video').iceServers).toEqual([]);
    const configured = parseSfuOptions({ ice: { gatherServers: ['stun:stun.example.org:3478'] } });
    expect(peerConfig(configured.ice, 'audio').iceServers).toEqual([{ urls: 'stun:stun.example.org:3478' }]);
    expect(() => parseSfuOptions({ ice: { gatherServers: ['turn:turn.example.org'] } })).toThrow(
      /`ice.gatherServers.0`: a stun:host:port URL/,
    );
    expect(() =>
      parseSfuOptions({ ice: { gatherServers: ['stun:a.example.org:3478', 'stun:b.example.org:3478'] } }),
    ).toThrow(/at most one STUN server/);
  });

  it('gathers only on the local addresses among onlyAddresses, and on every interface without them', () => {
    const listed = parseSfuOptions({
      ice: { hostAddresses: ['127.0.0.1'], onlyAddresses: ['127.0.0.1', '127.0.0.2', '10.0.0.5'] },
    });
    const loopbackOnly = peerConfig(listed.ice, 'video', 'subscribe', ['192.0.2.2', '10.0.0.5']);
    expect(loopbackOnly.iceAdditionalHostAddresses).toEqual(['127.0.0.1', '10.0.0.5']);
    expect(loopbackOnly.iceUseIpv4).toBe(false);
    expect(loopbackOnly.iceUseIpv6).toBe(false);
    const open = peerConfig(
      parseSfuOptions({ ice: { hostAddresses: ['127.0.0.1'] } }).ice,
      'video',
      'publish',
      ['192.0.2.2'],
    );
    expect(open.iceAdditionalHostAddresses).toEqual(['127.0.0.1']);
    expect(open.iceUseIpv4).toBe(true);
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

  it('refuses an unknown key, naming it (a typo is not silently dropped)', () => {
    expect(() => parseSfuOptions({ ice: { portRang: [40_000, 41_000] } } as never)).toThrow(
      /`ice.portRang`: unknown option/,
    );
    expect(() => parseSfuOptions({ bandwidth: { maxBitrat: 1_000_000 } } as never)).toThrow(
      /`bandwidth.maxBitrat`: unknown option/,
    );
    expect(() => parseSfuOptions({ audio: { dominantSpeaker: { hold: 1 } } } as never)).toThrow(
      /`audio.dominantSpeaker.hold`: unknown option/,
    );
    expect(() => parseSfuOptions({ limit: {} } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_options',
        details: expect.objectContaining({ option: 'limit' }),
      }),
    );
  });
});
