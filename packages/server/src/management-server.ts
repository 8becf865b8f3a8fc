import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { ServerApp } from './app.js';

/** The management port's server: `/metrics` and the detailed `/health/`, and a way to stop it. */
export interface ManagementServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves `app.management` (`/metrics`, `/health/` with every detail, no auth) on a port of its own,
 * for a private network: operators' scrapers and probes never need the public port's tokens.
 */
export async function startManagementServer(
  app: ServerApp,
  options: { host: string; port: number },
): Promise<ManagementServer> {
  const management = express();
  management.disable('x-powered-by');
  management.use(app.management);
  const server: Server = createServer(management);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
