import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SamlConfigError } from '../errors.js';
import { postgresUnavailable, postgresUnavailableReason } from './postgres-unavailable.js';

/** A server error as pg reports it (pg-protocol's DatabaseError), with its SQLSTATE. */
function serverError(code: string): Error {
  const error = new pg.DatabaseError('server says no', 0, 'error');
  error.code = code;
  return error;
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('which PostgreSQL errors mean "away for now" (SAML store)', () => {
  it.each([
    ['a refused connection', refused()],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['no connection in time', new Error('timeout exceeded when trying to connect')],
    ['a fast shutdown', serverError('57P01')],
    ['a server starting up', serverError('57P03')],
    ['too many connections', serverError('53300')],
    ['a connection exception', serverError('08001')],
    ['a refusal as the cause', new Error('wrapped', { cause: refused() })],
  ])('%s is a connection failure', (_name, error) => {
    expect(postgresUnavailableReason(error)).toEqual(expect.any(String));
  });

  it.each([
    ['a unique violation', serverError('23505')],
    ['a value too long', serverError('22001')],
    ['a deadlock', serverError('40P01')],
    ['a plain error', new Error('boom')],
  ])('%s is not', (_name, error) => {
    expect(postgresUnavailableReason(error)).toBeUndefined();
  });

  it('makes dependency_unavailable naming PostgreSQL and what was being done, without the URL', () => {
    const cause = refused();
    const error = postgresUnavailable(cause, 'reading SAML properties');
    expect(error).toBeInstanceOf(SamlConfigError);
    expect(error?.code).toBe('dependency_unavailable');
    expect(error?.details).toEqual({ dependency: 'postgresql', retryAfterSeconds: 2 });
    expect(error?.message).toBe(
      'expected PostgreSQL to answer reading SAML properties but the connection was refused (ECONNREFUSED)',
    );
    expect(error?.cause).toBe(cause);
    expect(postgresUnavailable(serverError('23505'), 'writing')).toBeUndefined();
  });
});
