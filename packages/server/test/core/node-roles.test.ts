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

  it('stops an API node without what every API node must share, naming each thing missing', () => {
    const complete = {
      NODE_ROLES: 'api',
      CHAT_DATABASE_URL: postgres,
      SAML_DATABASE_URL: postgres,
      CHAT_REDIS_URL: redis,
      CHAT_BLOB_DIR: '/srv/collab/chat-blobs',
      AUTH_JWT_SECRET: 'a-secret-of-at-least-thirty-two-bytes!!',
    };
    const without = (name: keyof typeof complete) =>
      configRefusal(Object.fromEntries(Object.entries(complete).filter(([key]) => key !== name)));
    expect(without('CHAT_DATABASE_URL')).toContain(
      'NODE_ROLES=api needs CHAT_DATABASE_URL set to a postgres:// URL',
    );
    expect(configRefusal({ ...complete, CHAT_DATABASE_URL: '/var/chat.db' })).toContain(
      'NODE_ROLES=api needs CHAT_DATABASE_URL set to a postgres:// URL',
    );
    expect(without('SAML_DATABASE_URL')).toContain(
      'NODE_ROLES=api needs SAML_DATABASE_URL set to a postgres:// URL',
    );
    expect(without('CHAT_REDIS_URL')).toContain('NODE_ROLES=api needs CHAT_REDIS_URL');
    expect(without('CHAT_BLOB_DIR')).toContain('NODE_ROLES=api needs CHAT_BLOB_DIR');
    expect(without('AUTH_JWT_SECRET')).toContain('NODE_ROLES=api needs AUTH_JWT_SECRET or AUTH_JWKS_URL');
    const everything = configRefusal({ NODE_ROLES: 'api' });
    for (const name of [
      'CHAT_DATABASE_URL',
      'SAML_DATABASE_URL',
      'CHAT_REDIS_URL',
      'CHAT_BLOB_DIR',
      'AUTH_JWT_SECRET',
    ]) {
      expect(everything).toContain(`needs ${name}`);
    }
    const config = loadConfig(complete);
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
