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
  const body = route.body ?? '';
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  response.writeHead(route.status ?? 200, { 'content-length': String(length), ...route.headers }).end(body);
}

/**
 * Starts a server on a loopback address (HTTPS when `tls` is given) serving `routes`. Test-only: it
 * never listens on anything but 127.0.0.0/8.
 * @param host a 127.x.y.z address. @default "127.0.0.1"
 */
export async function startFixtureServer(
  routes: Record<string, FixtureRoute> = {},
  tls?: { certificatePem: string; privateKeyPem: string },
  host = '127.0.0.1',
): Promise<FixtureServer> {
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))
    throw new Error(`fixture servers listen on loopback only, not ${host}`);
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
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${tls === undefined ? 'http' : 'https'}://${host}:${port}`,
    routes: table,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
