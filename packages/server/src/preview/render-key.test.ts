import { describe, expect, it } from 'vitest';
import { bytesDecidingOptions } from './render-key.js';

describe('bytesDecidingOptions', () => {
  it('leaves quality out for png and gif, where no encoder reads it', () => {
    const low = bytesDecidingOptions(
      { kind: 'preview' },
      { quality: 'low', outputFormat: 'png', crop: true },
    );
    const high = bytesDecidingOptions(
      { kind: 'preview' },
      { quality: 'high', outputFormat: 'png', crop: true },
    );
    expect(low).toEqual(high);
    expect(low).toEqual({ outputFormat: 'png', crop: true });
    expect(bytesDecidingOptions({ kind: 'preview' }, { quality: 'low', outputFormat: 'gif' })).toEqual({
      outputFormat: 'gif',
    });
  });

  it('keeps quality for jpeg and for an image preview whose format follows its source', () => {
    expect(bytesDecidingOptions({ kind: 'preview' }, { quality: 'low', outputFormat: undefined })).toEqual({
      quality: 'low',
      outputFormat: undefined,
    });
    expect(
      bytesDecidingOptions({ route: 'pdf-thumbnail' }, { quality: 'low', outputFormat: 'jpeg' }),
    ).toEqual({
      quality: 'low',
      outputFormat: 'jpeg',
    });
  });

  it('resolves the jpeg default of thumbnails, so asking for it explicitly is the same render', () => {
    const names: Record<string, string>[] = [
      { kind: 'thumbnail' },
      { route: 'pdf-thumbnail' },
      { route: 'document-thumbnail' },
    ];
    for (const name of names) {
      expect(
        bytesDecidingOptions(name, { quality: 'medium', outputFormat: undefined, shape: 'rounded' }),
      ).toEqual(bytesDecidingOptions(name, { quality: 'medium', outputFormat: 'jpeg', shape: 'rounded' }));
    }
  });
});
