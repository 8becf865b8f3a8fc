import { describe, expect, it } from 'vitest';
import { createPreviewService, PreviewError, parseArea } from '../../src/index.js';
import { gradientJpeg, imageFacts, previewFailure } from '../../src/testing/index.js';

// The opt-in extensions beyond the original service: webp/avif output and width-only areas.
describe('image extensions (opt-in)', () => {
  const service = createPreviewService({ limits: { maxConcurrentRenders: 1 } });

  for (const format of ['webp', 'avif'] as const) {
    it(`renders a ${format} thumbnail when output_format=${format} is asked`, async () => {
      const source = await gradientJpeg(400, 300);
      const image = await service.imageThumbnail(source, { area: '120x90', outputFormat: format });
      expect(image.format).toBe(format);
      const facts = await imageFacts(image.data);
      expect(facts.format).toBe(format === 'avif' ? 'heif' : 'webp');
      expect([facts.width, facts.height]).toEqual([120, 90]);
    });
  }

  it('keeps jpeg as the thumbnail default and the source format as the preview default', async () => {
    const source = await gradientJpeg(400, 300);
    expect((await service.imageThumbnail(source, { area: '100x100' })).format).toBe('jpeg');
    expect((await service.imagePreview(source, { area: '100x100' })).format).toBe('jpeg');
  });

  it('reads `200x` as width-only: the height follows the source aspect ratio', async () => {
    expect(parseArea('200x')).toEqual({ width: 200, height: 0, widthOnly: true });
    const source = await gradientJpeg(400, 300);
    const preview = await service.imagePreview(source, { area: '200x' });
    expect([preview.width, preview.height]).toEqual([200, 150]);
    const facts = await imageFacts(preview.data);
    expect([facts.width, facts.height]).toEqual([200, 150]);
  });

  it('keeps the original rule for `200x0`: the height is the source height', async () => {
    expect(parseArea('200x0')).toEqual({ width: 200, height: 0 });
    const source = await gradientJpeg(400, 300);
    const preview = await service.imagePreview(source, { area: '200x0' });
    expect([preview.width, preview.height]).toEqual([200, 300]);
  });
});

describe('unknown option keys', () => {
  it('refuse a misspelt limit, naming it', () => {
    expect(() =>
      createPreviewService({
        limits: { maxConcurentRenders: 2 } as unknown as { maxConcurrentRenders: number },
      }),
    ).toThrowError(/limits\.maxConcurentRenders/);
    try {
      createPreviewService({ limit: {} } as never);
    } catch (error) {
      expect(error).toBeInstanceOf(PreviewError);
      expect((error as PreviewError).code).toBe('INVALID_OPTION');
      expect((error as PreviewError).details?.option).toBe('limit');
    }
  });

  it('refuse a misspelt request field, naming it', async () => {
    const service = createPreviewService();
    const source = await gradientJpeg(100, 100);
    const error = await previewFailure(
      service.imageThumbnail(source, { area: '80x80', outputFromat: 'png' } as never),
    );
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toContain('outputFromat');
  });
});
