import { describe, expect, it } from 'vitest';
import { PreviewError } from '../errors.js';
import { createInMemoryStoredFileSource } from './in-memory-stored-file-source.js';
import { createStoredFileExistence } from './stored-file-existence.js';
import type { StoredFileSource } from './stored-file-source.js';

const ref = { id: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d', version: 2, serviceType: 'files' } as const;

function countingSource() {
  const files = createInMemoryStoredFileSource();
  const asked = { exists: 0, read: 0 };
  const source: StoredFileSource = {
    exists: (fileRef, signal) => {
      asked.exists += 1;
      return files.exists?.(fileRef, signal) ?? Promise.resolve(false);
    },
    read: (fileRef, signal) => {
      asked.read += 1;
      return files.read(fileRef, signal);
    },
  };
  return { files, source, asked };
}

describe('createStoredFileExistence', () => {
  it('reuses an answer for ttlMs, then asks the storage again and sees a deletion', async () => {
    const { files, source, asked } = countingSource();
    files.put(ref, new Uint8Array([1]));
    let time = 1_000;
    const existence = createStoredFileExistence(source, { ttlMs: 2_000, now: () => time });
    expect(await existence.exists(ref)).toBe(true);
    files.delete(ref);
    time += 1_999;
    expect(await existence.exists(ref)).toBe(true);
    expect(asked).toEqual({ exists: 1, read: 0 });
    time += 1;
    expect(await existence.exists(ref)).toBe(false);
    expect(asked).toEqual({ exists: 2, read: 0 });
  });

  it('asks every time with ttlMs 0, and shares one question between concurrent callers', async () => {
    const { files, source, asked } = countingSource();
    files.put(ref, new Uint8Array([1]));
    const existence = createStoredFileExistence(source, { ttlMs: 0 });
    await existence.exists(ref);
    await existence.exists(ref);
    expect(asked.exists).toBe(2);
    const shared = createStoredFileExistence(source, { ttlMs: 1_000, now: () => 0 });
    expect(await Promise.all([shared.exists(ref), shared.exists(ref), shared.exists(ref)])).toEqual([
      true,
      true,
      true,
    ]);
    expect(asked.exists).toBe(3);
  });

  it('falls back to read for a source without exists, and does not remember a storage failure', async () => {
    const files = createInMemoryStoredFileSource();
    files.put(ref, new Uint8Array([7]));
    let failing = true;
    const source: StoredFileSource = {
      read: async (fileRef) => {
        if (failing) throw new PreviewError('STORAGE_UNAVAILABLE', 'down');
        return files.read(fileRef);
      },
    };
    const existence = createStoredFileExistence(source, { ttlMs: 60_000, now: () => 0 });
    await expect(existence.exists(ref)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    failing = false;
    expect(await existence.exists(ref)).toBe(true);
    expect(await existence.exists({ ...ref, version: 3 })).toBe(false);
  });
});
