import type { Logger } from 'pino';

/** How the `SHUTDOWN_TIMEOUT_MS` bound is shared between requests in flight and closing features. */
export interface ShutdownBudget {
  /** Time requests in flight get before their connections are cut. */
  drainMs: number;
  /** Time then left to close databases, workers and buses before the process exits anyway. */
  closeMs: number;
}

/**
 * Splits the whole shutdown bound: closing the features gets half of it, at most 2 s (closing
 * SQLite, a Redis client or the SFU worker takes milliseconds when nothing is wrong), requests in
 * flight get the rest.
 */
export function shutdownBudget(timeoutMs: number): ShutdownBudget {
  const closeMs = Math.min(2000, Math.floor(timeoutMs / 2));
  return { drainMs: timeoutMs - closeMs, closeMs };
}

/** Options of {@link handleShutdownSignals}. */
export interface ShutdownSignalOptions {
  logger: Logger;
  /** The whole bound from the first signal to the exit (`SHUTDOWN_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Stops everything, giving requests in flight `drainMs`. */
  stop(drainMs: number): Promise<void>;
  /** @default process.exit */
  exit?: (code: number) => void;
}

/**
 * On SIGTERM or SIGINT: stops the server (exit code 0 once everything closed, 1 when closing
 * failed). The process exits within `timeoutMs` of the first signal whatever happens: past it, or
 * on a second signal, it exits at once with code 1, saying so.
 */
export function handleShutdownSignals(options: ShutdownSignalOptions): void {
  const { logger, timeoutMs } = options;
  const exit = options.exit ?? process.exit;
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      exit(1);
      return;
    }
    started = true;
    const { drainMs } = shutdownBudget(timeoutMs);
    logger.info({ signal, drainMs, timeoutMs }, 'shutting down');
    setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown did not finish within SHUTDOWN_TIMEOUT_MS: exiting now');
      exit(1);
    }, timeoutMs);
    const startedAt = Date.now();
    options.stop(drainMs).then(
      () => {
        logger.info({ elapsedMs: Date.now() - startedAt }, 'shut down');
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
