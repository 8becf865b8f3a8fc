import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDiskCache } from '../cache/disk-cache.js';
import { type ConvertedPdf, convertedPdfKey, createConvertedPdfCache } from './converted-pdf-cache.js';

const converted = (bytes: number): ConvertedPdf => ({ pdf: new Uint8Array(bytes), type: 'docx' });

describe('createConvertedPdfCache', () => {
  it('converts once and serves the same PDF to later requests', async () => {
    const cache = createConvertedPdfCache();
    let conversions = 0;
    const convert = async () => {
      conversions += 1;
      return converted(10);
    };
    const first = await cache.getOrConvert('a', convert);
    const second = await cache.getOrConvert('a', convert);
    expect(second).toBe(first);
    expect(conversions).toBe(1);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 10, hits: 1, misses: 1 });
  });

  it('shares one conversion between concurrent requests for the same key', async () => {
    const cache = createConvertedPdfCache();
    let conversions = 0;
    let finish: (value: ConvertedPdf) => void = () => {};
    const convert = () => {
      conversions += 1;
      return new Promise<ConvertedPdf>((resolve) => {
        finish = resolve;
      });
    };
    const requests = [cache.getOrConvert('a', convert), cache.getOrConvert('a', convert)];
    finish(converted(5));
    const [one, two] = await Promise.all(requests);
    expect(one).toBe(two);
    expect(conversions).toBe(1);
  });

  it('does not keep failures: the next request converts again', async () => {
    const cache = createConvertedPdfCache();
    await expect(cache.getOrConvert('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect((await cache.getOrConvert('a', async () => converted(3))).pdf.byteLength).toBe(3);
  });

  it('evicts the least recently used PDFs past maxBytes', async () => {
    const cache = createConvertedPdfCache({ maxBytes: 100, maxEntryBytes: 100 });
    await cache.getOrConvert('a', async () => converted(40));
    await cache.getOrConvert('b', async () => converted(40));
    await cache.getOrConvert('a', async () => converted(40));
    await cache.getOrConvert('c', async () => converted(40));
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 80 });
    let converts = 0;
    await cache.getOrConvert('a', async () => {
      converts += 1;
      return converted(40);
    });
    expect(converts).toBe(0);
    await cache.getOrConvert('b', async () => {
      converts += 1;
      return converted(40);
    });
    expect(converts).toBe(1);
  });

  it('serves but does not keep a PDF larger than maxEntryBytes', async () => {
    const cache = createConvertedPdfCache({ maxBytes: 100, maxEntryBytes: 30 });
    expect((await cache.getOrConvert('a', async () => converted(50))).pdf.byteLength).toBe(50);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('keys by service type, id, version and locale', () => {
    const ref = { id: 'ABCDEF00-0000-4000-8000-000000000000', version: 2, serviceType: 'files' } as const;
    expect(convertedPdfKey(ref, 'de-DE')).toBe('files/abcdef00-0000-4000-8000-000000000000/2/de-DE');
    expect(convertedPdfKey({ ...ref, version: 3 }, 'de-DE')).not.toBe(convertedPdfKey(ref, 'de-DE'));
  });

  it('keeps conversions on disk when given a disk cache, so a new process converts nothing', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'converted-pdf-disk-'));
    try {
      let conversions = 0;
      const convert = async () => {
        conversions += 1;
        return { pdf: new Uint8Array([37, 80, 68, 70]), type: 'odt' as const };
      };
      await createConvertedPdfCache({}, createDiskCache({ directory })).getOrConvert('k', convert);
      const restarted = createConvertedPdfCache({}, createDiskCache({ directory }));
      const kept = await restarted.getOrConvert('k', convert);
      expect(kept).toEqual({ pdf: new Uint8Array([37, 80, 68, 70]), type: 'odt' });
      expect(conversions).toBe(1);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
