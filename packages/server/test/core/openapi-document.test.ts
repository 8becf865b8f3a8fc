import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIdFor } from '../../src/openapi/openapi-document.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Operation = { operationId?: string; security?: unknown[] };

describe('/openapi.json for generated clients', () => {
  let server: TestServer;
  let document: {
    info: { license?: { identifier: string } };
    servers: { url: string }[];
    paths: Record<string, Record<string, Operation>>;
  };
  beforeAll(async () => {
    server = await startTestServer({ env: { PUBLIC_URL: 'https://collab.example.org/' } });
    document = (await (await fetch(`${server.url}/openapi.json`)).json()) as typeof document;
  });
  afterAll(() => server.stop());

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('names every operation once, and says which are public', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations().every(({ operation }) => Array.isArray(operation.security))).toBe(true);
    expect(document.paths['/preview/image/{area}/thumbnail/']?.post?.security).toEqual([]);
    expect(document.paths['/rooms']?.get?.security?.length).toBeGreaterThan(0);
    expect(document.paths['/rooms/{roomId}/members']?.get?.operationId).toBe('getRoomsByRoomIdMembers');
  });

  it('lists the health routes, the license and the server from PUBLIC_URL', () => {
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/health/', '/health/ready/', '/health/live/']),
    );
    expect(document.info.license?.identifier).toBe('MIT');
    expect(document.servers).toEqual([
      { url: 'https://collab.example.org', description: 'PUBLIC_URL of this server' },
    ]);
  });

  it('answers 405 with Allow for a method a documented path does not have, and HEAD without a body', async () => {
    const patch = await fetch(`${server.url}/preview/image/256x256/`, { method: 'PATCH' });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('POST');
    expect(((await patch.json()) as { detail: string }).detail).toContain('expected one of POST');
    const stored = await fetch(`${server.url}/preview/pdf/00000000-0000-4000-8000-000000000001/1/`, {
      method: 'DELETE',
    });
    expect(stored.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${server.url}/nowhere`, { method: 'PATCH' })).status).toBe(404);
    const head = await fetch(`${server.url}/health/live/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('makes ids from the method and the path', () => {
    expect(operationIdFor('put', '/rooms/{roomId}/members/{userId}/owner')).toBe(
      'putRoomsByRoomIdMembersByUserIdOwner',
    );
    expect(operationIdFor('get', '/cool/convert-to/{format}')).toBe('getCoolConvertToByFormat');
  });
});
