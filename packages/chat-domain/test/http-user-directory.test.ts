import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpUserDirectory } from '@collab-suite/chat-domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('HTTP user directory (against a local user service)', () => {
  const known = randomUUID();
  const broken = randomUUID();
  const slow = randomUUID();
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  let server: Server;
  let baseUrl = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? '', headers: request.headers });
      const id = request.url?.split('/').pop();
      if (id === slow) return;
      response.statusCode = id === known ? 200 : id === broken ? 500 : 404;
      response.end(JSON.stringify({ id }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers true for 2xx and false for 404, forwarding the caller token as a bearer', async () => {
    const directory = createHttpUserDirectory({ baseUrl });
    expect(await directory.userExists(known, { userId: randomUUID(), credentials: 'caller-token' })).toBe(
      true,
    );
    expect(await directory.userExists(randomUUID(), { userId: randomUUID() })).toBe(false);
    expect(seen[0]).toMatchObject({
      url: `/users/id/${known}`,
      headers: { authorization: 'Bearer caller-token' },
    });
  });

  it('can send the token as the ZM_AUTH_TOKEN cookie and use another path', async () => {
    const directory = createHttpUserDirectory({
      baseUrl,
      forwardCredentials: 'cookie',
      userPath: '/v2/users/{id}',
    });
    await directory.userExists(known, { userId: randomUUID(), credentials: 'cookie-token' });
    expect(seen.at(-1)).toMatchObject({
      url: `/v2/users/${known}`,
      headers: { cookie: 'ZM_AUTH_TOKEN=cookie-token' },
    });
  });

  it('fails with dependency_failed on other statuses, on timeouts and when nothing listens', async () => {
    const directory = createHttpUserDirectory({ baseUrl, timeoutMs: 200 });
    await expect(directory.userExists(broken, { userId: known })).rejects.toMatchObject({
      code: 'dependency_failed',
    });
    await expect(directory.userExists(slow, { userId: known })).rejects.toMatchObject({
      code: 'dependency_failed',
    });
    const nowhere = createHttpUserDirectory({ baseUrl: 'http://127.0.0.1:1' });
    await expect(nowhere.userExists(known, { userId: known })).rejects.toMatchObject({
      code: 'dependency_failed',
    });
  });
});
