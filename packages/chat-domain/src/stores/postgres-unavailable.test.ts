import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ChatError } from '../errors.js';
import {
  asPostgresUnavailable,
  guardPostgresAvailability,
  postgresUnavailableReason,
} from './postgres-unavailable.js';

/** A server error as pg reports it (pg-protocol's DatabaseError), with its SQLSTATE. */
function serverError(code: string, message = 'server says no'): Error {
  const error = new pg.DatabaseError(message, 0, 'error');
  error.code = code;
  return error;
}

/** A socket error as Node reports it. */
function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
}

describe('which PostgreSQL errors mean "away for now"', () => {
  it.each([
    ['a refused connection', socketError('ECONNREFUSED')],
    ['a reset connection', socketError('ECONNRESET')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    [
      'a client whose connection failed',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['no free pooled connection in time', new Error('timeout exceeded when trying to connect')],
    [
      'no new connection in time',
      new Error('Connection terminated due to connection timeout', {
        cause: new Error('Connection terminated'),
      }),
    ],
    ['no answer in time', new Error('Query read timeout')],
    ['a fast shutdown', serverError('57P01', 'terminating connection due to administrator command')],
    ['a crash of another backend', serverError('57P02')],
    ['a server starting up', serverError('57P03', 'the database system is starting up')],
    ['too many connections', serverError('53300', 'sorry, too many clients already')],
    ['a connection exception (class 08)', serverError('08006')],
    [
      'a refusal inside an AggregateError',
      new AggregateError([socketError('ECONNREFUSED')], 'connect failed'),
    ],
    ['a refusal as the cause', new Error('wrapped', { cause: socketError('ECONNREFUSED') })],
  ])('%s is a connection failure', (_name, error) => {
    expect(postgresUnavailableReason(error)).toEqual(expect.any(String));
  });

  it.each([
    ['a unique violation', serverError('23505')],
    ['a foreign key violation', serverError('23503')],
    ['a syntax error', serverError('42601')],
    ['an invalid uuid', serverError('22P02')],
    ['a deadlock', serverError('40P01')],
    ['a closed pool', new Error('Cannot use a pool after calling end on the pool')],
    ['a plain error', new Error('boom')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_name, error) => {
    expect(postgresUnavailableReason(error)).toBeUndefined();
  });
});

describe('asPostgresUnavailable', () => {
  it('turns a connection failure into dependency_unavailable naming PostgreSQL, without the URL', () => {
    const cause = Object.assign(
      new Error('connect ECONNREFUSED 127.0.0.1:5432 postgres://chat:secret@db/chat'),
      { code: 'ECONNREFUSED' },
    );
    const error = asPostgresUnavailable(cause, 'listing rooms') as ChatError;
    expect(error).toBeInstanceOf(ChatError);
    expect(error.code).toBe('dependency_unavailable');
    expect(error.details).toEqual({ dependency: 'postgresql', retryAfterSeconds: 2 });
    expect(error.message).toBe(
      'expected PostgreSQL to answer listing rooms but the connection was refused (ECONNREFUSED)',
    );
    expect(error.cause).toBe(cause);
  });

  it('asks a retry after one second while the server starts up', () => {
    const error = asPostgresUnavailable(serverError('57P03'), 'x') as ChatError;
    expect(error.details?.retryAfterSeconds).toBe(1);
  });

  it('leaves ChatErrors and other errors as they are', () => {
    const chatError = new ChatError('room_not_found', 'gone', { cause: socketError('ECONNREFUSED') });
    expect(asPostgresUnavailable(chatError, 'x')).toBe(chatError);
    const unique = serverError('23505');
    expect(asPostgresUnavailable(unique, 'x')).toBe(unique);
  });
});

describe('guardPostgresAvailability', () => {
  it('translates rejections and throws of every method, and leaves results and plain values alone', async () => {
    const guarded = guardPostgresAvailability({
      limit: 3,
      count: () => 7,
      read: async () => 'row',
      lost: async () => {
        throw new Error('Connection terminated unexpectedly');
      },
      refused: () => {
        throw socketError('ECONNREFUSED');
      },
      invalid: async () => {
        throw serverError('22P02');
      },
      full: async () => {
        throw serverError('53100');
      },
    });
    expect(guarded.limit).toBe(3);
    expect(guarded.count()).toBe(7);
    expect(await guarded.read()).toBe('row');
    await expect(guarded.lost()).rejects.toMatchObject({ code: 'dependency_unavailable' });
    expect(() => guarded.refused()).toThrow(expect.objectContaining({ code: 'dependency_unavailable' }));
    await expect(guarded.invalid()).rejects.toMatchObject({ code: '22P02' });
    await expect(guarded.full()).rejects.toMatchObject({
      code: 'storage_full',
      message:
        'expected PostgreSQL to carry out full of the chat store but its disk is full: nothing was changed',
      cause: { code: '53100' },
    });
  });
});
