import { postgresUnavailableReason } from '@collab-suite/chat-domain';
import { chatErrorMapper } from '../chat/error-status.js';
import { previewErrorMapper } from '../preview/error-status.js';
import { samlErrorMapper } from '../saml/error-status.js';
import { HttpError, RequestValidationError } from './http-error.js';
import { isMalformedPathError, malformedPathMessage } from './malformed-path.js';
import type { LibraryErrorMapper, MappedError } from './mapped-error.js';
import { isRedisUnavailableError, redisUnavailableAnswer } from './redis-unavailable.js';

export type { LibraryErrorMapper, MappedError } from './mapped-error.js';

/** One mapper per library, each defined in its feature folder (`src/<feature>/error-status.ts`). */
const libraryErrorMappers: LibraryErrorMapper[] = [previewErrorMapper, chatErrorMapper, samlErrorMapper];

/** A client error raised by Express's body parsers (http-errors): `expose` marks it safe to show. */
interface BodyParserError {
  status: number;
  type?: string;
  expose: boolean;
  message: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as Partial<BodyParserError>;
  return typeof candidate.status === 'number' && candidate.expose === true;
}

const bodyParserMessages: Record<string, string> = {
  'entity.parse.failed': 'the request body is not valid JSON',
  'entity.too.large': 'the request body is larger than the server accepts',
  'encoding.unsupported': 'the request body has an unsupported content encoding',
  'charset.unsupported': 'the request body has an unsupported charset',
};

/**
 * Maps any thrown value to a status and message; unknown errors become an internal 500, except
 * Redis being unavailable or a connection failure (refused, lost, timed out, a database shutting
 * down), in the error or its causes, that no library translated: that is a dependency away for
 * now, 503 `dependency_unavailable` with Retry-After.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof RequestValidationError) {
    return { status: 422, message: error.message, issues: error.issues, headers: {} };
  }
  if (error instanceof HttpError) {
    return { status: error.status, message: error.message, headers: error.headers };
  }
  for (const mapper of libraryErrorMappers) {
    if (mapper.matches(error)) return mapper.map(error);
  }
  if (isRedisUnavailableError(error)) return redisUnavailableAnswer();
  if (isMalformedPathError(error)) return { status: 400, message: malformedPathMessage, headers: {} };
  if (isBodyParserError(error) && error.status >= 400 && error.status < 500) {
    return {
      status: error.status,
      message: bodyParserMessages[error.type ?? ''] ?? error.message,
      headers: {},
    };
  }
  const unavailable = postgresUnavailableReason(error);
  if (unavailable !== undefined) {
    return {
      status: 503,
      message: `expected a backing service to answer but ${unavailable}`,
      code: 'dependency_unavailable',
      details: { retryAfterSeconds: 2 },
      headers: { 'Retry-After': '2' },
    };
  }
  return { status: 500, message: 'internal server error', headers: {} };
}
