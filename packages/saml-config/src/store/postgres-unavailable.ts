import { SamlConfigError } from '../errors.js';

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
 * `error` as the SamlConfigError `dependency_unavailable` when it says PostgreSQL is away, else
 * `undefined`. The message names what was being done and why it failed, never the connection URL.
 */
export function postgresUnavailable(error: unknown, doing: string): SamlConfigError | undefined {
  if (error instanceof SamlConfigError) return undefined;
  const reason = postgresUnavailableReason(error);
  if (reason === undefined) return undefined;
  const startingUp = reason.includes('57P03');
  return new SamlConfigError(
    'dependency_unavailable',
    `expected PostgreSQL to answer ${doing} but ${reason}`,
    {
      details: { dependency: 'postgresql', retryAfterSeconds: startingUp ? 1 : 2 },
      cause: error,
    },
  );
}
