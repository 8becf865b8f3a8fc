import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configRefusal } from '../support/config-refusal.js';

const postgres = 'postgres://postgres@127.0.0.1:5432/cluster';
const redis = 'redis://127.0.0.1:6379/11';

describe('NODE_ROLES', () => {
  it('runs both roles by default, with nothing else configured', () => {
    expect(loadConfig({}).cluster.roles).toEqual(['api', 'media']);
    expect(loadConfig({ NODE_ROLES: ' media , api ' }).cluster.roles).toEqual(['api', 'media']);
  });

  it('stops an API node without a shared PostgreSQL database or without Redis, naming what is missing', () => {
    expect(configRefusal({ NODE_ROLES: 'api', CHAT_REDIS_URL: redis })).toContain(
      'NODE_ROLES=api needs CHAT_DATABASE_URL set to a postgres:// URL',
    );
    expect(configRefusal({ NODE_ROLES: 'api', CHAT_DATABASE_URL: postgres })).toContain(
      'NODE_ROLES=api needs CHAT_REDIS_URL',
    );
    const config = loadConfig({ NODE_ROLES: 'api', CHAT_DATABASE_URL: postgres, CHAT_REDIS_URL: redis });
    expect(config.cluster.roles).toEqual(['api']);
    expect(config.meetings.stopActiveAtStart).toBe(false);
  });

  it('stops a media node without Redis, and refuses unknown roles and malformed node ids', () => {
    expect(configRefusal({ NODE_ROLES: 'media' })).toContain('NODE_ROLES=media needs CHAT_REDIS_URL');
    expect(configRefusal({ NODE_ROLES: 'api,turn' })).toContain(
      'NODE_ROLES: expected api, media or api,media',
    );
    expect(configRefusal({ NODE_ID: 'node 1' })).toContain('NODE_ID');
    const media = loadConfig({ NODE_ROLES: 'media', CHAT_REDIS_URL: redis, NODE_ID: 'media-7' });
    expect(media.cluster).toMatchObject({ roles: ['media'], nodeId: 'media-7', mediaCapacity: 500 });
  });
});
