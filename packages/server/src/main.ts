#!/usr/bin/env node
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startManagementServer } from './management-server.js';
import { installFatalErrorHandlers } from './process/fatal-errors.js';
import { handleShutdownSignals } from './process/shutdown-signals.js';
import { startServer } from './start-server.js';
import { StartupError } from './startup-error.js';
import { logStartupSummary } from './startup-summary.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  installFatalErrorHandlers(logger);
  const app = await createApp({ config, logger });
  const running = await startServer(app, { host: config.host, port: config.port });
  const management =
    config.managementPort === undefined
      ? undefined
      : await startManagementServer(app, { host: config.managementHost, port: config.managementPort });
  if (management) {
    app.logger.info({ host: config.managementHost, port: management.port }, 'management listening');
  }
  handleShutdownSignals({
    logger: app.logger,
    timeoutMs: config.shutdownTimeoutMs,
    stop: async (drainMs) => {
      await Promise.all([running.stop(drainMs), management?.stop()]);
    },
  });
  logStartupSummary(config, app.logger);
  // Logged after the handlers exist: a supervisor may signal as soon as it reads this line.
  app.logger.info({ host: config.host, port: running.port, dataDir: config.dataDir }, 'server listening');
}

main().catch((error: unknown) => {
  // Some settings are only checked against each other while the app is built (a converter needing
  // its URL): still the configuration's fault, said in one line.
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  if (error instanceof StartupError) {
    process.stderr.write(`failed to start: ${error.message}\n`);
    process.exit(69);
  }
  process.stderr.write(
    `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
