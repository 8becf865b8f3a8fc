import { ChatError } from '../errors.js';
import { refuseUnknownOptions } from '../option-schemas.js';

/** How to reach ejabberd's mod_http_api. */
export interface EjabberdAdminClientOptions {
  /** Base URL of mod_http_api, e.g. `http://127.0.0.1:5281/api`. */
  apiUrl: string;
  /** Value of the `Authorization` header (e.g. `Basic …`), made fresh for each call; none when absent. */
  authorization?: (() => Promise<string | undefined>) | undefined;
  /** How long one command may take. */
  timeoutMs: number;
}

/** Calls administration commands of ejabberd's mod_http_api. */
export interface EjabberdAdminClient {
  /**
   * Runs `name` with `argumentsObject` and resolves with its JSON answer.
   * @throws ChatError `dependency_failed`; `details.rejected` is true when ejabberd answered with an
   * error (an HTTP 4xx or 5xx carrying its reason in `details.answer`), false when it could not be reached.
   */
  command<T = unknown>(name: string, argumentsObject: Record<string, unknown>): Promise<T>;
}

/** A {@link EjabberdAdminClient} over fetch. */
export function createEjabberdAdminClient(options: EjabberdAdminClientOptions): EjabberdAdminClient {
  refuseUnknownOptions(options, ['apiUrl', 'authorization', 'timeoutMs'], 'createEjabberdAdminClient');
  const base = options.apiUrl.replace(/\/+$/, '');
  return {
    async command<T>(name: string, argumentsObject: Record<string, unknown>): Promise<T> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const authorization = await options.authorization?.();
      if (authorization) headers.authorization = authorization;
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${base}/${name}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(argumentsObject),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        throw new ChatError(
          'dependency_failed',
          `expected ejabberd to answer ${name} but it could not be reached`,
          {
            cause: error,
            details: { command: name, rejected: false },
          },
        );
      }
      let answer: unknown = text;
      try {
        answer = JSON.parse(text);
      } catch {}
      if (!response.ok) {
        throw new ChatError(
          'dependency_failed',
          `expected ejabberd to run ${name} but it answered ${response.status}: ${text.slice(0, 200)}`,
          { details: { command: name, rejected: true, status: response.status, answer } },
        );
      }
      return answer as T;
    },
  };
}

/** Whether `error` is ejabberd refusing a command (as opposed to not answering). */
export function isRejectedCommand(error: unknown): boolean {
  return error instanceof ChatError && error.details?.rejected === true;
}
