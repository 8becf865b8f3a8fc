import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ServerApp } from './app.js';

/** A listening server and a bounded, graceful way to stop it. */
export interface RunningServer {
  server: Server;
  /** The bound port (useful with port 0). */
  port: number;
  /**
   * Stops accepting connections, asks the app to end its WebSocket sessions (close code 1001), lets
   * in-flight requests finish for up to `timeoutMs`, then cuts every connection left (upgraded ones
   * included) and closes the app's features. Resolves once everything is closed; a second call
   * returns the same promise.
   */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * Every open connection. `server.closeAllConnections()` does not know upgraded ones (WebSocket
 * sessions), so the shutdown deadline cuts these itself. (Not an 'upgrade' listener: the events
 * endpoint answers 404 only when it is the sole one.)
 */
function trackConnections(server: Server): Set<Socket> {
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  return connections;
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
  const connections = trackConnections(server);
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
      const deadline = setTimeout(() => {
        server.closeAllConnections();
        for (const socket of connections) socket.destroy();
      }, timeoutMs);
      server.close(() => {
        clearInterval(idleSweep);
        clearTimeout(deadline);
        resolve();
      });
      server.closeIdleConnections();
      app.drain();
    }).then(() => app.close());
    return stopping;
  };
  return { server, port, stop };
}
