import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createDiskStoredFileSource,
  createHttpStoredFileSource,
  createInMemoryStoredFileSource,
  normaliseStoredFileRef,
  type StoredFileRef,
  storedFilePath,
} from '../../src/index.js';
import { startStorageServiceDouble } from '../../src/testing/index.js';
import { describeStoredFileSourceConformance } from '../../src/testing/vitest/index.js';

describeStoredFileSourceConformance('in memory', async () => {
  const source = createInMemoryStoredFileSource();
  return { source, put: async (ref, bytes) => source.put(ref, bytes) };
});

describeStoredFileSourceConformance('disk', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'stored-files-'));
  return {
    source: createDiskStoredFileSource({ root }),
    async put(ref: StoredFileRef, bytes: Uint8Array) {
      const file = storedFilePath(root, normaliseStoredFileRef(ref));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, bytes);
    },
    close: () => rm(root, { recursive: true, force: true }),
  };
});

describeStoredFileSourceConformance('http', async () => {
  const storage = await startStorageServiceDouble();
  return {
    source: createHttpStoredFileSource({ baseUrl: storage.baseUrl }),
    put: async (ref: StoredFileRef, bytes: Uint8Array) => storage.put(ref, bytes),
    close: () => storage.close(),
  };
});

describe('disk stored-file source', () => {
  const ref = { id: '5f0c8a52-6d0b-4c43-9a57-2f5b0a7c1e11', version: 2, serviceType: 'chats' } as const;

  it('lays files out as <root>/<serviceType>/<id>/<version>', () => {
    expect(storedFilePath('/data/storage', ref)).toBe(`/data/storage/chats/${ref.id}/2`);
  });

  it('answers NOT_FOUND when the storage folder does not exist', async () => {
    const source = createDiskStoredFileSource({ root: path.join(tmpdir(), 'no-such-storage-folder') });
    await expect(source.read(ref)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers NOT_FOUND when the version is a folder', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'stored-files-'));
    await mkdir(storedFilePath(root, ref), { recursive: true });
    await expect(createDiskStoredFileSource({ root }).read(ref)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await rm(root, { recursive: true });
  });

  it('refuses a file over maxBytes with INPUT_TOO_LARGE', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'stored-files-'));
    const file = storedFilePath(root, ref);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, Buffer.alloc(2000));
    await expect(createDiskStoredFileSource({ root, maxBytes: 1000 }).read(ref)).rejects.toMatchObject({
      code: 'INPUT_TOO_LARGE',
    });
    await rm(root, { recursive: true });
  });

  it('never builds a path outside the root, even for a reference that skipped validation', () => {
    expect(() =>
      storedFilePath('/data/storage', { id: '../../../etc', version: 0, serviceType: 'files' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
  });
});

describe('http stored-file source: exists', () => {
  const stored = { id: '7c6b5a49-3827-4160-8f9e-a1b2c3d4e5f6', version: 3, serviceType: 'files' } as const;

  it('asks with HEAD, downloading nothing, and sees a deletion', async () => {
    const storage = await startStorageServiceDouble();
    const methods: string[] = [];
    storage.behave((request) => {
      methods.push(request.method ?? '');
      return false;
    });
    try {
      storage.put(stored, new Uint8Array(4096));
      const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl });
      expect(await source.exists?.(stored)).toBe(true);
      storage.delete(stored);
      expect(await source.exists?.(stored)).toBe(false);
      expect(methods).toEqual(['HEAD', 'HEAD']);
    } finally {
      await storage.close();
    }
  });

  it('asks for one byte when the storage refuses HEAD, and calls other statuses STORAGE_UNAVAILABLE', async () => {
    const storage = await startStorageServiceDouble();
    let headStatus = 405;
    const ranges: (string | undefined)[] = [];
    storage.behave((request, response) => {
      if (request.method === 'HEAD') {
        response.writeHead(headStatus).end();
        return true;
      }
      ranges.push(request.headers.range);
      return false;
    });
    try {
      storage.put(stored, new Uint8Array(4096));
      const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl });
      expect(await source.exists?.(stored)).toBe(true);
      expect(await source.exists?.({ ...stored, version: 4 })).toBe(false);
      expect(ranges).toEqual(['bytes=0-0', 'bytes=0-0']);
      headStatus = 500;
      await expect(source.exists?.(stored)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    } finally {
      await storage.close();
    }
  });
});
