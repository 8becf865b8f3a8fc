import { Readable } from 'node:stream';
import type { BlobPutOptions, BlobSource, BlobStore, StoredBlob } from '../ports/blob-store.js';
import { assertBlobKey, collectBytes } from './blob-keys.js';

/** A {@link BlobStore} in memory, for tests and throwaway servers. */
export interface MemoryBlobStore extends BlobStore {
  /** Keys currently stored, sorted. */
  keys(): string[];
}

/** Creates an empty {@link MemoryBlobStore}. */
export function createMemoryBlobStore(): MemoryBlobStore {
  const blobs = new Map<string, Buffer>();
  return {
    async put(key: string, source: BlobSource, options: BlobPutOptions = {}) {
      assertBlobKey(key);
      const bytes = await collectBytes(source, options.maxBytes);
      blobs.set(key, bytes);
      return { size: bytes.byteLength };
    },
    async get(key: string): Promise<StoredBlob | undefined> {
      assertBlobKey(key);
      const bytes = blobs.get(key);
      return bytes === undefined ? undefined : { size: bytes.byteLength, content: Readable.from([bytes]) };
    },
    async copy(sourceKey: string, targetKey: string) {
      assertBlobKey(sourceKey);
      assertBlobKey(targetKey);
      const bytes = blobs.get(sourceKey);
      if (bytes === undefined) return false;
      blobs.set(targetKey, Buffer.from(bytes));
      return true;
    },
    async delete(key: string) {
      assertBlobKey(key);
      blobs.delete(key);
    },
    keys: () => [...blobs.keys()].sort(),
  };
}
