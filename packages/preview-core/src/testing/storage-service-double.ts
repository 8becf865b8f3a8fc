import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normaliseStoredFileRef, type StoredFileRef } from '../storage/stored-file-source.js';

/** How the test storage answers one request; the default serves stored files like carbonio-storages. */
export type StorageBehaviour = (request: IncomingMessage, response: ServerResponse) => boolean;

/** A running {@link startStorageServiceDouble}. */
export type StorageServiceDouble = Awaited<ReturnType<typeof startStorageServiceDouble>>;

/**
 * A real HTTP storage service on 127.0.0.1 answering `GET /download?node=&version=&type=` and
 * `GET /health/live` like carbonio-storages, for adapter and server tests. `behave` swaps in other
 * answers (errors, silence, slow or huge bodies); `requests` lists every URL asked.
 */
export async function startStorageServiceDouble() {
  const files = new Map<string, Uint8Array>();
  const requests: string[] = [];
  let behaviour: StorageBehaviour | undefined;
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (behaviour?.(request, response)) return;
    const url = new URL(request.url ?? '/', 'http://storage');
    if (url.pathname === '/health/live') {
      response.writeHead(200).end();
      return;
    }
    const key = `${url.searchParams.get('type')}/${url.searchParams.get('node')}/${url.searchParams.get('version')}`;
    const bytes = url.pathname === '/download' ? files.get(key) : undefined;
    if (!bytes) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ statusCode: 404, error: 'Not found', message: `File '${key}' does not exist` }),
      );
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': bytes.byteLength,
    });
    response.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    put(ref: StoredFileRef, bytes: Uint8Array) {
      const normalised = normaliseStoredFileRef(ref);
      files.set(`${normalised.serviceType}/${normalised.id}/${normalised.version}`, new Uint8Array(bytes));
    },
    /** Removes a stored file: later requests for it answer 404. */
    delete(ref: StoredFileRef) {
      const normalised = normaliseStoredFileRef(ref);
      files.delete(`${normalised.serviceType}/${normalised.id}/${normalised.version}`);
    },
    /** Replaces the default answers; return true from `next` when it answered. */
    behave(next: StorageBehaviour | undefined) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
