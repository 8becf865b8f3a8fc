import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

const malformed = ['%zz', '%E0%A4%A', '%'];

describe('path parameters with malformed percent-escapes', () => {
  let server: TestServer;
  let token: string;
  let operations: { method: string; path: string }[];

  beforeAll(async () => {
    server = await startTestServer();
    token = await signLocalToken(testJwtSecret, {
      userId: '7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b71',
      admin: true,
    });
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      servers?: { url: string }[];
      paths: Record<string, Record<string, unknown>>;
    };
    operations = Object.entries(document.paths)
      .filter(([path]) => path.includes('{'))
      .flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((method) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
          .map((method) => ({ method: method.toUpperCase(), path })),
      );
  });
  afterAll(() => server.stop());

  it('answers every route 400, or 422 with a validation body on the preview API, never 500', async () => {
    expect(operations.length).toBeGreaterThan(20);
    const answers: string[] = [];
    for (const { method, path } of operations) {
      for (const badEscape of malformed) {
        const url = path.replaceAll(/\{[^}]+\}/g, badEscape);
        const response = await fetch(`${server.url}${url}?service_type=files`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'queue-id': '7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b72' },
        });
        const body = (await response.json()) as Record<string, unknown>;
        const expected = path.startsWith('/preview/') ? 422 : 400;
        if (response.status !== expected)
          answers.push(`${method} ${url}: ${response.status} ${JSON.stringify(body)}`);
        if (expected === 422) {
          expect(body.detail).toEqual([expect.objectContaining({ loc: ['path'], type: 'value_error' })]);
        } else {
          expect(JSON.stringify(body)).toContain('percent-escape');
        }
      }
    }
    expect(answers).toEqual([]);
  });
});
