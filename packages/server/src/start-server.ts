import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerApp } from './app.js';

/** A listening server and a bounded, graceful way to stop it. */
export interface RunningServer {
  server: Server;
  /** The bound port (useful with port 0). */
  port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish for up to `timeoutMs`, then cuts
   * the rest and closes the app's features. Resolves once everything is closed.
   */
  stop(timeoutMs: number): Promise<void>;
}

/** Starts listening with the app on `host:port`. */
export async function startServer(
  app: ServerApp,
  options: { host: string; port: number },
): Promise<RunningServer> {
  const server = createServer(app);
  // Slow clients must not hold sockets forever; uploads of large images still fit comfortably.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  app.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let stopping: Promise<void> | undefined;
  const stop = (timeoutMs: number) => {
    stopping ??= new Promise<void>((resolve) => {
      const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
      const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
      server.close(() => {
        clearInterval(idleSweep);
        clearTimeout(deadline);
        resolve();
      });
      server.closeIdleConnections();
    }).then(() => app.close());
    return stopping;
  };
  return { server, port, stop };
}
