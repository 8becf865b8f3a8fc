import { describeMediaServerConformance } from '@collab-suite/chat-domain/testing/vitest';
import { createSfu } from '@collab-suite/webrtc-sfu';
import { loopbackSfuOptions } from '@collab-suite/webrtc-sfu/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createSfuMediaServer } from '../../src/meetings/sfu-media-server.js';
import { mediaTestPeers } from './meeting-test-support.js';

describeMediaServerConformance(
  'in-process SFU',
  async () => createSfuMediaServer(createSfu(loopbackSfuOptions)),
  mediaTestPeers,
);

describe('meeting ICE configuration', () => {
  it('reads announced addresses, the port range and ICE servers, and hands the servers to clients', () => {
    const config = loadConfig({
      MEETING_ICE_ANNOUNCED_ADDRESSES: '203.0.113.7, 2001:db8::1',
      MEETING_ICE_PORT_RANGE: '40000-40999',
      MEETING_ICE_SERVERS: '[{"urls":"turn:turn.example.org:3478","username":"u","credential":"c"}]',
    });
    expect(config.meetings).toMatchObject({
      announcedAddresses: ['203.0.113.7', '2001:db8::1'],
      portRange: [40000, 40999],
      iceServers: [{ urls: 'turn:turn.example.org:3478', username: 'u', credential: 'c' }],
      maxParticipants: 100,
    });
    const media = createSfuMediaServer(createSfu({ ice: { servers: config.meetings.iceServers } }));
    expect(media.iceServers()).toEqual(config.meetings.iceServers);
    void media.close();
  });

  it('stops meetings left by a previous run only where one process owns the database, unless told', () => {
    expect(loadConfig({}).meetings.stopActiveAtStart).toBe(true);
    expect(loadConfig({ CHAT_DATABASE_URL: 'postgres://db/chat' }).meetings.stopActiveAtStart).toBe(false);
    expect(
      loadConfig({ CHAT_DATABASE_URL: 'postgres://db/chat', MEETING_STOP_ACTIVE_AT_START: 'true' }).meetings
        .stopActiveAtStart,
    ).toBe(true);
    expect(loadConfig({ MEETING_STOP_ACTIVE_AT_START: 'false' }).meetings.stopActiveAtStart).toBe(false);
  });

  it('names each bad meeting variable', () => {
    expect(() => loadConfig({ MEETING_ICE_ANNOUNCED_ADDRESSES: 'example.org' })).toThrow(
      /MEETING_ICE_ANNOUNCED_ADDRESSES/,
    );
    expect(() => loadConfig({ MEETING_ICE_PORT_RANGE: '50000-40000' })).toThrow(/MEETING_ICE_PORT_RANGE/);
    expect(() => loadConfig({ MEETING_ICE_SERVERS: '[{"urls":"http://x"}]' })).toThrow(/MEETING_ICE_SERVERS/);
    expect(() => loadConfig({ MEETING_ICE_SERVERS: 'not json' })).toThrow(/expected a JSON array/);
  });
});
