import type { Logger } from 'pino';

/**
 * Makes an error nobody caught (a throw in a callback, a rejected promise nobody awaited) end the
 * process on purpose: one `fatal` line with the error, its stack and its origin, then exit code 1,
 * so a supervisor restarts a clean process. The server's own event handlers (request log line,
 * metrics, WebSocket session close) are wrapped by `guardedHandler` and never reach this: their
 * errors are logged and the process goes on. Anything else may have left shared state half changed,
 * so carrying on after it would be worse than a restart.
 */
export function installFatalErrorHandlers(logger: Logger, exit: (code: number) => void = process.exit): void {
  process.on('uncaughtException', (error, origin) => {
    try {
      logger.fatal({ err: error, origin }, 'uncaught error: the process exits');
    } finally {
      exit(1);
    }
  });
}
