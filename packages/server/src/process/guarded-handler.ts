import type { Logger } from 'pino';

/**
 * Wraps one of the server's own event handlers (a request's log line on 'close', a metric on
 * 'finish', a WebSocket session's 'close'), so that an error it throws is logged with `handler` and
 * the process goes on: such a handler only reports on work that is already over, and nothing it
 * leaves half done is shared with other requests. Errors anywhere else stay fatal (see
 * `installFatalErrorHandlers`).
 */
export function guardedHandler<Arguments extends unknown[]>(
  logger: Logger,
  handler: string,
  run: (...values: Arguments) => void,
): (...values: Arguments) => void {
  return (...values) => {
    try {
      run(...values);
    } catch (error) {
      logger.error({ err: error, handler }, 'an event handler of the server failed; the server goes on');
    }
  };
}
