import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** What the fixture server answers on one path. */
export interface FixtureRoute {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Answer 302 to this location. */
  redirect?: string;
  /** Stream 64 KiB chunks until the client goes away (no Content-Length). */
  endless?: boolean;
  /** Wait this long before sending headers (to hold a request open). */
  delayMs?: number;
}

/** A loopback HTTP or HTTPS server serving fixed routes, for fetch tests. */
export interface FixtureServer {
  /** `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`. */
  origin: string;
  /** Routes by path; may be changed while the server runs. */
  routes: Map<string, FixtureRoute>;
  /** Paths requested so far, in order. */
  hits: string[];
  close(): Promise<void>;
}

function answer(route: FixtureRoute | undefined, response: ServerResponse): void {
  if (route === undefined) {
    response.writeHead(404).end('not found');
    return;
  }
  if (route.redirect !== undefined) {
    response.writeHead(302, { location: route.redirect }).end();
    return;
  }
  if (route.endless === true) {
    response.writeHead(route.status ?? 200, { 'content-type': 'application/xml', ...route.headers });
    const chunk = Buffer.alloc(65_536, 0x20);
    const pump = () => {
      while (!response.destroyed && response.write(chunk)) {
        /* keep writing until the socket buffer is full */
      }
      if (!response.destroyed) response.once('drain', pump);
    };
    pump();
    return;
  }
  response.writeHead(route.status ?? 200, route.headers).end(route.body ?? '');
}

/**
 * Starts a server on 127.0.0.1 (HTTPS when `tls` is given) serving `routes`. Test-only: it never
 * listens on anything but loopback.
 */
export async function startFixtureServer(
  routes: Record<string, FixtureRoute> = {},
  tls?: { certificatePem: string; privateKeyPem: string },
): Promise<FixtureServer> {
  const table = new Map(Object.entries(routes));
  const hits: string[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://fixture').pathname;
    hits.push(path);
    const route = table.get(path);
    const delay = route?.delayMs ?? 0;
    if (delay > 0) setTimeout(() => answer(route, response), delay);
    else answer(route, response);
  };
  const server: Server =
    tls === undefined
      ? createHttpServer(handler)
      : createHttpsServer({ cert: tls.certificatePem, key: tls.privateKeyPem }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    routes: table,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
