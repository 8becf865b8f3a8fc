import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSfuOptions } from '@collab-suite/webrtc-sfu';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sfuOptions } from '../../src/meetings/sfu-options.js';
import { locationOf } from '../../src/startup-error.js';
import { startClusterNode } from '../cluster/cluster-nodes.js';
import { configRefusal } from '../support/config-refusal.js';

describe('configuration that would lie is refused at start-up, naming the variable', () => {
  it('refuses database URLs of unknown schemes instead of making SQLite files named after them', () => {
    expect(configRefusal({ CHAT_DATABASE_URL: 'mysql://db/chat' })).toContain(
      'CHAT_DATABASE_URL: expected a SQLite file path or a postgres:// URL but received a mysql:// URL',
    );
    expect(configRefusal({ SAML_DATABASE_URL: 'postgress://x' })).toContain(
      'SAML_DATABASE_URL: expected a SQLite file path',
    );
    const accepted = loadConfig({
      CHAT_DATABASE_URL: 'postgresql://chat@db/chat',
      SAML_DATABASE_URL: './saml/saml.db',
    });
    expect([accepted.chat.databaseUrl, accepted.saml.databaseUrl]).toEqual([
      'postgresql://chat@db/chat',
      './saml/saml.db',
    ]);
  });

  it('refuses a TRUST_PROXY that Express would not understand, and takes the forms it does', () => {
    expect(configRefusal({ TRUST_PROXY: 'lookback' })).toContain('TRUST_PROXY: expected true, false');
    expect(configRefusal({ TRUST_PROXY: '10.0.0.0/40' })).toContain('TRUST_PROXY');
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, ::1' }).trustProxy).toBe(
      'loopback, 10.0.0.0/8, ::1',
    );
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  it('takes one stun: URL for the SFU itself, none by default, and refuses TURN or a second server', () => {
    expect(loadConfig({}).meetings.sfuStunServers).toEqual([]);
    expect(
      loadConfig({ MEETING_SFU_STUN_SERVERS: ' stun:stun.example.org:3478 ' }).meetings.sfuStunServers,
    ).toEqual(['stun:stun.example.org:3478']);
    expect(configRefusal({ MEETING_SFU_STUN_SERVERS: 'turn:turn.example.org' })).toContain(
      'MEETING_SFU_STUN_SERVERS',
    );
    expect(configRefusal({ MEETING_SFU_STUN_SERVERS: 'stun:a.example.org,stun:b.example.org' })).toContain(
      'expected at most one STUN server',
    );
  });

  it('hands MEETING_BANDWIDTH_* to the SFU and refuses what the SFU would refuse, naming the variable', () => {
    const defaults = parseSfuOptions(sfuOptions(loadConfig({})));
    expect(defaults.bandwidth).toEqual(parseSfuOptions({}).bandwidth);
    const set = parseSfuOptions(
      sfuOptions(
        loadConfig({
          MEETING_BANDWIDTH_INITIAL_BITRATE: '600000',
          MEETING_BANDWIDTH_MIN_BITRATE: '80000',
          MEETING_BANDWIDTH_MAX_BITRATE: '4000000',
          MEETING_BANDWIDTH_INCREASE_PER_SECOND: '0.3',
          MEETING_BANDWIDTH_UPGRADE_HEADROOM: '1.25',
          MEETING_BANDWIDTH_UPGRADE_HOLD_MS: '5000',
          MEETING_BANDWIDTH_AUDIO_RESERVE_BITRATE: '64000',
          MEETING_BANDWIDTH_ALLOCATION_INTERVAL_MS: '250',
          MEETING_BANDWIDTH_PROBES: 'false',
          MEETING_MAX_PARTICIPANTS: '12',
        }),
      ),
    );
    expect(set.bandwidth).toEqual({
      initialBitrate: 600_000,
      minBitrate: 80_000,
      maxBitrate: 4_000_000,
      increasePerSecond: 0.3,
      upgradeHeadroom: 1.25,
      upgradeHoldMs: 5_000,
      audioReserveBitrate: 64_000,
      allocationIntervalMs: 250,
      // The variable turns probes off; their tuning keeps the SFU's defaults.
      probe: { ...parseSfuOptions({}).bandwidth.probe, enabled: false },
    });
    expect(set.limits.sessionsPerRouter).toBe(12);

    expect(parseSfuOptions(sfuOptions(loadConfig({}))).bandwidth.probe.enabled).toBe(true);
    expect(configRefusal({ MEETING_BANDWIDTH_PROBES: 'sometimes' })).toContain('MEETING_BANDWIDTH_PROBES');
    expect(configRefusal({ MEETING_BANDWIDTH_MIN_BITRATE: '5000' })).toMatch(
      /MEETING_BANDWIDTH_MIN_BITRATE: .*10000.* \(received "5000"\)/,
    );
    expect(configRefusal({ MEETING_BANDWIDTH_INCREASE_PER_SECOND: 'fast' })).toContain(
      'MEETING_BANDWIDTH_INCREASE_PER_SECOND: expected a number (received "fast")',
    );
    expect(configRefusal({ MEETING_BANDWIDTH_INITIAL_BITRATE: '1.5e5.1' })).toContain(
      'MEETING_BANDWIDTH_INITIAL_BITRATE',
    );
    expect(configRefusal({ MEETING_BANDWIDTH_UPGRADE_HOLD_MS: '2.5' })).toContain(
      'MEETING_BANDWIDTH_UPGRADE_HOLD_MS: ',
    );
    expect(configRefusal({ MEETING_BANDWIDTH_AUDIO_RESERVE_BITRATE: '-1' })).toContain(
      'MEETING_BANDWIDTH_AUDIO_RESERVE_BITRATE: ',
    );
    expect(
      configRefusal({ MEETING_BANDWIDTH_MIN_BITRATE: '900000', MEETING_BANDWIDTH_MAX_BITRATE: '500000' }),
    ).toContain(
      'MEETING_BANDWIDTH_MIN_BITRATE must not be above MEETING_BANDWIDTH_MAX_BITRATE (received MEETING_BANDWIDTH_MIN_BITRATE="900000", MEETING_BANDWIDTH_MAX_BITRATE="500000")',
    );
  });

  it('hands MEETING_KEYFRAME_REQUEST_INTERVAL_MS to the SFU and shows a refused value (a key frame is no secret)', () => {
    expect(parseSfuOptions(sfuOptions(loadConfig({}))).limits.keyframeRequestIntervalMs).toBe(
      parseSfuOptions({}).limits.keyframeRequestIntervalMs,
    );
    const set = parseSfuOptions(sfuOptions(loadConfig({ MEETING_KEYFRAME_REQUEST_INTERVAL_MS: '2000' })));
    expect(set.limits.keyframeRequestIntervalMs).toBe(2000);
    expect(configRefusal({ MEETING_KEYFRAME_REQUEST_INTERVAL_MS: '-5' })).toContain(
      'MEETING_KEYFRAME_REQUEST_INTERVAL_MS: ',
    );
    expect(configRefusal({ MEETING_KEYFRAME_REQUEST_INTERVAL_MS: '-5' })).toContain('"-5"');
    // A variable named like a key still shows no value.
    expect(configRefusal({ PREVIEW_URL_SIGNING_KEY: 'short-planted' })).not.toContain('short-planted');
  });

  it('hands MEETING_AUDIO_MIXED_SPEAKERS to the SFU, its default when unset, and refuses 0', () => {
    expect(parseSfuOptions(sfuOptions(loadConfig({}))).audio.mixedSpeakers).toBe(3);
    const set = parseSfuOptions(sfuOptions(loadConfig({ MEETING_AUDIO_MIXED_SPEAKERS: '5' })));
    expect(set.audio.mixedSpeakers).toBe(5);
    expect(configRefusal({ MEETING_AUDIO_MIXED_SPEAKERS: '0' })).toContain('MEETING_AUDIO_MIXED_SPEAKERS: ');
  });

  it('reads an empty variable as unset, not as 0', () => {
    const config = loadConfig({ PORT: '', PREVIEW_MAX_CONCURRENT_RENDERS: ' ' });
    expect(config.port).toBe(8080);
    expect(config.preview.maxConcurrentRenders).toBe(4);
  });

  it('refuses an HS256 secret shorter than 32 bytes', () => {
    expect(configRefusal({ AUTH_JWT_SECRET: 'short' })).toContain(
      'AUTH_JWT_SECRET: expected at least 32 bytes',
    );
    expect(loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(32) }).auth.jwtSecret).toHaveLength(32);
  });

  it('refuses URLs of the wrong scheme for Redis, HTTP services and the public URL', () => {
    expect(configRefusal({ CHAT_REDIS_URL: 'http://127.0.0.1:6379' })).toContain(
      'CHAT_REDIS_URL: expected a redis:// or rediss:// URL',
    );
    expect(configRefusal({ STORAGE_URL: 'ftp://files' })).toContain(
      'STORAGE_URL: expected a http:// or https:// URL',
    );
    expect(configRefusal({ PUBLIC_URL: 'not a url' })).toContain('PUBLIC_URL');
    expect(loadConfig({ CHAT_REDIS_URL: 'rediss://cache:6380/2' }).chat.redisUrl).toBe(
      'rediss://cache:6380/2',
    );
  });
});

/** Runs `dist/main.js` (built by `pnpm build`) until it exits; resolves with its code and stderr. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'collab-start-')),
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('a dependency that does not answer at start-up', () => {
  it('stops the server with one line naming the variable and the engine, and no stack', async () => {
    const { code, stderr } = await runMain({
      CHAT_DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/nowhere',
      DOCUMENT_CONVERTER: 'none',
    });
    expect(code).toBe(69);
    expect(stderr.trim()).toBe(
      'failed to start: CHAT_DATABASE_URL: could not connect to PostgreSQL at 127.0.0.1:1/nowhere (ECONNREFUSED)',
    );
  });

  it('stops with one line naming the variable and SQLite when the SQLite file cannot be opened', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'collab-not-a-file-'));
    const { code, stderr } = await runMain({ CHAT_DATABASE_URL: folder, DOCUMENT_CONVERTER: 'none' });
    expect(code).toBe(69);
    expect(stderr.trim()).toMatch(
      new RegExp(`^failed to start: CHAT_DATABASE_URL: could not connect to SQLite at ${folder} \\(.+\\)$`),
    );
  });

  it('stops with 78 and one line when settings only clash once the app is built', async () => {
    const { code, stderr } = await runMain({ DOCUMENT_CONVERTER: 'remote' });
    expect(code).toBe(78);
    expect(stderr).toContain('DOCUMENT_CONVERTER_URL');
    expect(stderr).not.toContain('    at ');
  });

  it('stops with 78 and the variable for a configuration error', async () => {
    const { code, stderr } = await runMain({ AUTH_JWT_SECRET: 'short' });
    expect(code).toBe(78);
    expect(stderr).toContain('AUTH_JWT_SECRET: expected at least 32 bytes');
    expect(stderr).not.toContain('    at ');
  });
});

describe('start-up lines', () => {
  it('name no credentials', () => {
    expect(locationOf('redis://user:hidden@cache.internal:6380/2')).toBe('cache.internal:6380/2');
    expect(locationOf('postgres://chat:hidden@db/chat')).toBe('db/chat');
  });

  it('say per subsystem which engine runs where', async () => {
    const node = await startClusterNode('summary', {
      CHAT_REDIS_URL: 'redis://127.0.0.1:6379/13',
      MEETING_ICE_PORT_RANGE: '40000-40099',
    });
    try {
      const lines = node
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const line = (message: string) => lines.find((entry) => entry.msg === message);
      expect(line('previews')).toMatchObject({ converter: { kind: 'none' }, storage: { kind: 'disk' } });
      expect(line('chat')).toMatchObject({
        database: { engine: 'sqlite' },
        events: { kind: 'redis', where: '127.0.0.1:6379/13' },
      });
      expect(line('meetings media')).toMatchObject({ roles: 'api,media', udpPorts: '40000-40099' });
      expect(line('saml')).toMatchObject({ database: { engine: 'sqlite' } });
    } finally {
      await node.kill('SIGTERM');
    }
  });
});
