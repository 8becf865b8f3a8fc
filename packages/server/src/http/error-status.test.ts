import { ChatError } from '@collab-suite/chat-domain';
import { SamlConfigError } from '@collab-suite/saml-config';
import { describe, expect, it } from 'vitest';
import { mapError } from './error-status.js';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });

describe('mapError for a dependency that is away', () => {
  it('answers 503 dependency_unavailable with Retry-After for an unknown error caused by a refused connection', () => {
    const mapped = mapError(new Error('loading the page failed', { cause: refused() }));
    expect(mapped).toMatchObject({
      status: 503,
      code: 'dependency_unavailable',
      headers: { 'Retry-After': '2' },
    });
    expect(mapped.message).not.toContain('10.0.0.5');
  });

  it('answers 503 for a lost PostgreSQL connection no library translated', () => {
    expect(mapError(new Error('Connection terminated unexpectedly')).status).toBe(503);
  });

  it('keeps 500 for other unknown errors, SQLite ones included', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    expect(mapError(busy)).toMatchObject({ status: 500, message: 'internal server error' });
    expect(mapError(new Error('boom')).status).toBe(500);
  });

  it('takes Retry-After from the library errors’ details', () => {
    const details = { dependency: 'postgresql', retryAfterSeconds: 1 };
    expect(mapError(new ChatError('dependency_unavailable', 'away', { details })).headers).toEqual({
      'Retry-After': '1',
    });
    expect(mapError(new SamlConfigError('dependency_unavailable', 'away', { details })).headers).toEqual({
      'Retry-After': '1',
    });
    expect(mapError(new SamlConfigError('store_failed', 'broken')).headers).toEqual({ 'Retry-After': '5' });
  });
});
