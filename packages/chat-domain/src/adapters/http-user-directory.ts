import { ChatError } from '../errors.js';
import { refuseUnknownOptions } from '../option-schemas.js';
import type { UserDirectory } from '../ports/user-directory.js';

/** Options of {@link createHttpUserDirectory}. */
export interface HttpUserDirectoryOptions {
  /** Base URL of the user service, e.g. `http://users.internal:8080`. */
  baseUrl: string;
  /** Path of one user, `{id}` replaced by the user id (the original's User Management path). @default '/users/id/{id}' */
  userPath?: string;
  /** How the caller's credentials travel: as a bearer token, as the `ZM_AUTH_TOKEN` cookie, or not at all. @default 'bearer' */
  forwardCredentials?: 'bearer' | 'cookie' | 'none';
  /** Longest wait for an answer: a slow directory must not hold requests forever. @default 3000 */
  timeoutMs?: number;
}

/**
 * A {@link UserDirectory} asking a user service over HTTP: 2xx means the user exists, 404 that it
 * does not; anything else (or no answer in time) is `dependency_failed`.
 */
export function createHttpUserDirectory(options: HttpUserDirectoryOptions): UserDirectory {
  refuseUnknownOptions(
    options,
    ['baseUrl', 'userPath', 'forwardCredentials', 'timeoutMs'],
    'createHttpUserDirectory',
  );
  const userPath = options.userPath ?? '/users/id/{id}';
  const forward = options.forwardCredentials ?? 'bearer';
  const timeoutMs = options.timeoutMs ?? 3000;
  return {
    async userExists(userId, requester) {
      const url = new URL(userPath.replace('{id}', encodeURIComponent(userId)), options.baseUrl);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (requester.credentials && forward === 'bearer')
        headers.authorization = `Bearer ${requester.credentials}`;
      if (requester.credentials && forward === 'cookie')
        headers.cookie = `ZM_AUTH_TOKEN=${requester.credentials}`;
      let response: Response;
      try {
        response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        throw new ChatError(
          'dependency_failed',
          `expected the user directory at ${url.origin} to answer but it did not`,
          {
            cause: error,
          },
        );
      }
      await response.body?.cancel();
      if (response.ok) return true;
      if (response.status === 404) return false;
      throw new ChatError(
        'dependency_failed',
        `expected the user directory to answer 2xx or 404 but it answered ${response.status}`,
        { details: { status: response.status } },
      );
    },
  };
}
