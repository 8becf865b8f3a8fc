import { createInMemoryStoredFileSource } from '@collab-suite/preview-core';
import { quadrantImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPreviewFeature, previewServiceFromConfig } from '../../src/preview/preview-feature.js';
import { fetchHealth, startTestServer, type TestServer } from '../support/test-server.js';
import { detailOf, upload } from './preview-test-support.js';

describe('a full render queue', () => {
  let server: TestServer;
  let occupy: (() => void) | undefined;
  let service: ReturnType<typeof previewServiceFromConfig> | undefined;
  beforeAll(async () => {
    server = await startTestServer({
      env: { PREVIEW_MAX_CONCURRENT_RENDERS: '1', PREVIEW_MAX_QUEUED_RENDERS: '0' },
      features: async (context) => {
        const storedFiles = createInMemoryStoredFileSource();
        service = previewServiceFromConfig(context.config, storedFiles);
        return [await createPreviewFeature(context, { storedFiles, service })];
      },
    });
  });
  afterAll(() => server.stop());

  it('answers 503 with Retry-After while every slot is taken, then serves again', async () => {
    const image = await quadrantImage(100, 100);
    const held = service?.schedule(() => new Promise<void>((resolve) => (occupy = resolve)));
    const refused = await upload(`${server.url}/preview/image/80x80/thumbnail/`, image);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await detailOf(refused)).toContain('render slots');
    const health = (await (await fetchHealth(server.url)).json()) as { dependencies: unknown[] };
    expect(health.dependencies).toContainEqual(
      expect.objectContaining({
        name: 'image-renderer',
        details: expect.objectContaining({ activeRenders: 1 }),
      }),
    );
    // Uploads are refused before their body is read, whatever their size.
    const large = await upload(`${server.url}/preview/image/80x80/`, new Uint8Array(8 * 1024 * 1024));
    expect(large.status).toBe(503);
    occupy?.();
    await held;
    expect((await upload(`${server.url}/preview/image/80x80/thumbnail/`, image)).status).toBe(200);
  });
});

describe('OpenAPI description of the image routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('lists the four image routes with their real parameters and defaults', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters: { name: string; required: boolean; schema: { default?: unknown } }[];
            responses: Record<string, unknown>;
          }
        >
      >;
      components: { schemas: Record<string, unknown> };
    };
    const thumbnail = document.paths['/preview/image/{id}/{version}/{area}/thumbnail/']?.get;
    expect(thumbnail?.parameters.map((parameter) => parameter.name)).toEqual([
      'id',
      'version',
      'area',
      'service_type',
      'shape',
      'quality',
      'output_format',
      'expires',
      'signature',
    ]);
    expect(thumbnail?.parameters.find((parameter) => parameter.name === 'quality')?.schema.default).toBe(
      'medium',
    );
    expect(Object.keys(thumbnail?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '304', '404', '422', '502', '503']),
    );
    expect(document.paths['/preview/image/{id}/{version}/{area}/']?.get).toBeDefined();
    expect(document.paths['/preview/image/{area}/thumbnail/']?.post).toBeDefined();
    expect(document.paths['/preview/image/{area}/']?.post).toBeDefined();
    expect(document.components.schemas).toHaveProperty('HTTPValidationError');
    expect(document.components.schemas).toHaveProperty('Body_post_preview_preview_image__area___post');
  });
});
