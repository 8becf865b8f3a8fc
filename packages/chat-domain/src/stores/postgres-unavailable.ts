import { ChatError } from '../errors.js';

/** Socket error codes of a connection that could not be made or was lost. */
const socketCodes: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ECONNABORTED: 'the connection was aborted',
  EPIPE: 'the connection was closed while writing',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENETDOWN: 'the network is down',
  EAI_AGAIN: 'the host name could not be resolved for now',
};

/** SQLSTATEs (besides class 08, connection exceptions) of a server that is away for now. */
const serverStates: Readonly<Record<string, string>> = {
  '57P01': 'the server is shutting down (57P01 admin_shutdown)',
  '57P02': 'the server crashed (57P02 crash_shutdown)',
  '57P03': 'the server is starting up (57P03 cannot_connect_now)',
  '53300': 'the server has no free connection (53300 too_many_connections)',
};

/** Messages pg and pg-pool give connection failures that carry no code. */
const driverMessages: readonly [RegExp, string][] = [
  [/^Connection terminated due to connection timeout/, 'no connection within the connection timeout'],
  [/^timeout exceeded when trying to connect/, 'no free connection within the connection timeout'],
  [/^Connection terminated/, 'the connection was lost'],
  [/^Client has encountered a connection error/, 'the connection was lost'],
  [/^Query read timeout/, 'no answer within the query timeout'],
];

function reasonOfOne(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code in socketCodes) return `${socketCodes[code]} (${code})`;
    if (code in serverStates) return serverStates[code];
    if (/^08[0-9A-Z]{3}$/.test(code)) return `the connection failed (SQLSTATE ${code})`;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return undefined;
  return driverMessages.find(([pattern]) => pattern.test(message))?.[1];
}

/**
 * Why `error` says PostgreSQL is away right now (a refused or lost connection, a server shutting
 * down or starting, no connection or answer in time), looking through `cause` and an
 * AggregateError's `errors`; `undefined` for anything else, such as a constraint violation or a
 * syntax error, which would fail the same way again.
 */
export function postgresUnavailableReason(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 5) return undefined;
  const own = reasonOfOne(error);
  if (own !== undefined) return own;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const reason = postgresUnavailableReason(inner, depth + 1);
      if (reason !== undefined) return reason;
    }
  }
  return postgresUnavailableReason(cause, depth + 1);
}

/**
 * `error` as the ChatError `dependency_unavailable` when it says PostgreSQL is away, else `error`
 * itself. The message names what was being done and why it failed, never the connection URL.
 */
export function asPostgresUnavailable(error: unknown, doing: string): unknown {
  if (error instanceof ChatError) return error;
  const reason = postgresUnavailableReason(error);
  if (reason === undefined) return error;
  const startingUp = reason.includes('57P03');
  return new ChatError('dependency_unavailable', `expected PostgreSQL to answer ${doing} but ${reason}`, {
    details: { dependency: 'postgresql', retryAfterSeconds: startingUp ? 1 : 2 },
    cause: error,
  });
}

/** Whether `error` (or one of its causes) is PostgreSQL's SQLSTATE 53100, disk_full. */
function isPostgresDiskFull(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  if ((error as { code?: unknown }).code === '53100') return true;
  return isPostgresDiskFull((error as { cause?: unknown }).cause, depth + 1);
}

/**
 * `error` as the ChatError `storage_full` when PostgreSQL's disk is full (SQLSTATE 53100: a table,
 * index or temporary file could not grow); the statement's transaction was rolled back, so nothing
 * of the write was kept. Anything else is returned unchanged.
 */
export function asPostgresDiskFull(error: unknown, doing: string): unknown {
  if (error instanceof ChatError || !isPostgresDiskFull(error)) return error;
  return new ChatError(
    'storage_full',
    `expected PostgreSQL to carry out ${doing} but its disk is full: nothing was changed`,
    { details: { dependency: 'postgresql' }, cause: error },
  );
}

/** `error` as a caller should see it: `storage_full`, `dependency_unavailable`, or unchanged. */
function asPostgresFailure(error: unknown, doing: string): unknown {
  return asPostgresUnavailable(asPostgresDiskFull(error, doing), doing);
}

/**
 * Wraps every method of `target` so that a rejection (or throw) saying PostgreSQL is away becomes
 * the ChatError `dependency_unavailable`, and one saying its disk is full `storage_full`; other
 * results and errors pass through unchanged.
 */
export function guardPostgresAvailability<T extends object>(target: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== 'function') {
      guarded[name] = value;
      continue;
    }
    const doing = `${name} of the chat store`;
    guarded[name] = (...parameters: unknown[]) => {
      let result: unknown;
      try {
        result = value.apply(target, parameters);
      } catch (error) {
        throw asPostgresFailure(error, doing);
      }
      if (result instanceof Promise) {
        return result.catch((error: unknown) => {
          throw asPostgresFailure(error, doing);
        });
      }
      return result;
    };
  }
  return guarded as T;
}
