import { describe, expect, it } from 'vitest';
import { createInMemoryStoredFileSource, createPreviewService } from '../../src/index.js';
import { quadrantImage } from '../../src/testing/index.js';

const ref = { id: '0b7e5a0e-3f43-4a4e-8a8e-6c9f1b2d3e4f', version: 1, serviceType: 'files' } as const;

describe('previews of stored files', () => {
  it('reads the stored file through the configured source', async () => {
    const storedFiles = createInMemoryStoredFileSource();
    storedFiles.put(ref, await quadrantImage(200, 200, 'png'));
    const service = createPreviewService({ storedFiles });
    await expect(service.imagePreview({ storedFile: ref }, { area: '100x100' })).resolves.toMatchObject({
      format: 'png',
      width: 100,
    });
    await expect(
      service.imageThumbnail({ storedFile: { ...ref, version: 2 } }, { area: '100x100' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers STORAGE_UNAVAILABLE when no source is configured', async () => {
    await expect(
      createPreviewService().imagePreview({ storedFile: ref }, { area: '80x80' }),
    ).rejects.toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
    });
  });

  it('refuses a source without a read method when created', () => {
    expect(() => createPreviewService({ storedFiles: {} as never })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: expect.stringContaining('StoredFileSource'),
      }),
    );
  });
});
