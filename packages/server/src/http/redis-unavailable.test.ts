import { Redis, type RedisOptions } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { mapError } from './error-status.js';
import { isRedisUnavailableError } from './redis-unavailable.js';

/** A real ioredis client on a port nobody listens on (port 1), never reconnecting. */
const unreachable = (options: RedisOptions) => {
  const client = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    retryStrategy: () => null,
    ...options,
  });
  client.on('error', () => {});
  return client;
};

describe('Redis-unavailable errors', () => {
  it('maps what ioredis rejects with while Redis is away to 503 dependency_unavailable with Retry-After', async () => {
    const client = unreachable({ enableOfflineQueue: false });
    const error = await client.get('key').catch((reason: unknown) => reason);
    expect(isRedisUnavailableError(error)).toBe(true);
    expect(mapError(error)).toMatchObject({
      status: 503,
      code: 'dependency_unavailable',
      headers: { 'Retry-After': '2' },
    });
    client.disconnect();
  });

  it('recognises a closed connection, also as the cause of another error', async () => {
    const client = unreachable({});
    await client.connect().catch(() => {});
    const error = await client.get('key').catch((reason: unknown) => reason);
    expect(String(error)).toMatch(/Connection is closed/);
    expect(isRedisUnavailableError(new Error('could not lock', { cause: error }))).toBe(true);
    client.disconnect();
  });

  it('leaves other errors to the 500 of unknown failures', () => {
    expect(isRedisUnavailableError(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(mapError(new Error('boom')).status).toBe(500);
  });
});
