import { gradientJpeg, imageFacts } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error the example is plain JavaScript without declarations
import { buildApp } from '../../../../examples/fastify-previews/app.mjs';

interface ExampleApp {
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
}

// The Fastify example (examples/fastify-previews) on loopback, with real sharp and saml-config.
describe('examples/fastify-previews', () => {
  let app: ExampleApp;
  let base: string;

  beforeAll(async () => {
    app = (await buildApp({ publicUrl: 'https://sp.example.com' })) as ExampleApp;
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers a thumbnail of a posted image', async () => {
    const response = await fetch(`${base}/thumbnails/120x90?format=webp`, {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: await gradientJpeg(400, 300),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    const facts = await imageFacts(new Uint8Array(await response.arrayBuffer()));
    expect(facts).toMatchObject({ format: 'webp', width: 120, height: 90 });
  });

  it("answers a malformed area with preview-core's status (422) and its code", async () => {
    const response = await fetch(`${base}/thumbnails/big`, {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: await gradientJpeg(100, 100),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'INVALID_AREA' });
  });

  it('answers the SAML service-provider metadata of a domain', async () => {
    const response = await fetch(`${base}/saml/example.com/metadata`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await response.text();
    expect(xml).toContain('EntityDescriptor');
    expect(xml).toContain('https://sp.example.com');
  });
});
