import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatTestServer, startChatServer } from './chat-test-support.js';

describe('chat OpenAPI description', () => {
  let server: ChatTestServer;
  beforeAll(async () => {
    server = await startChatServer('sqlite');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('describes every chat route with its responses', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const expected: Record<string, string[]> = {
      '/rooms': ['get', 'post'],
      '/rooms/{roomId}': ['get', 'put', 'delete'],
      '/rooms/{roomId}/picture': ['get', 'put', 'delete'],
      '/rooms/{roomId}/mute': ['put', 'delete'],
      '/rooms/{roomId}/clear': ['put'],
      '/rooms/{roomId}/members': ['get', 'post'],
      '/rooms/{roomId}/members/{userId}': ['delete'],
      '/rooms/{roomId}/members/{userId}/owner': ['put', 'delete'],
      '/rooms/{roomId}/attachments': ['get', 'post'],
      '/rooms/{roomId}/forward': ['post'],
      '/attachments/{attachmentId}': ['get', 'delete'],
      '/attachments/{attachmentId}/download': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(document.paths[path] ?? {}).sort()).toEqual([...methods].sort());
      for (const method of methods) expect(document.paths[path]?.[method]?.responses).toHaveProperty('401');
    }
  });
});
