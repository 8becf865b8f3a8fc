import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobPutOptions, BlobSource, BlobStore, StoredBlob } from '../ports/blob-store.js';
import { assertBlobKey, blobTooLarge } from './blob-keys.js';
import { sweepDiskBlobs } from './disk-blob-sweep.js';

/** Options of {@link createDiskBlobStore}. */
export interface DiskBlobStoreOptions {
  /** Folder holding the blobs; created if missing. */
  directory: string;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function byteLimit(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.byteLength;
      if (size > maxBytes) callback(blobTooLarge(maxBytes));
      else callback(null, chunk);
    },
  });
}

/**
 * A {@link BlobStore} keeping each blob as a file under `directory` (the key is the relative path).
 * Bytes are written to a temporary file and renamed into place, so a key never holds a partial blob.
 */
export function createDiskBlobStore(options: DiskBlobStoreOptions): BlobStore {
  const root = resolve(options.directory);
  const pathOf = (key: string) => {
    assertBlobKey(key);
    return join(root, ...key.split('/'));
  };
  const temporaryPathFor = async (path: string) => {
    await mkdir(dirname(path), { recursive: true });
    return `${path}.${randomUUID()}.partial`;
  };

  return {
    async put(key: string, source: BlobSource, putOptions: BlobPutOptions = {}) {
      const path = pathOf(key);
      const temporary = await temporaryPathFor(path);
      const input = source instanceof Uint8Array ? Readable.from([source]) : Readable.from(source);
      try {
        await pipeline(
          input,
          byteLimit(putOptions.maxBytes ?? Number.POSITIVE_INFINITY),
          createWriteStream(temporary),
        );
        const { size } = await stat(temporary);
        await rename(temporary, path);
        return { size };
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async get(key: string): Promise<StoredBlob | undefined> {
      const path = pathOf(key);
      try {
        const { size } = await stat(path);
        return { size, content: createReadStream(path) };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async copy(sourceKey: string, targetKey: string) {
      const sourcePath = pathOf(sourceKey);
      const targetPath = pathOf(targetKey);
      const temporary = await temporaryPathFor(targetPath);
      try {
        await copyFile(sourcePath, temporary);
        await rename(temporary, targetPath);
        return true;
      } catch (error) {
        await rm(temporary, { force: true });
        if (isMissing(error)) return false;
        throw error;
      }
    },
    async delete(key: string) {
      await rm(pathOf(key), { force: true });
    },
    sweep: (sweepOptions) => sweepDiskBlobs(root, sweepOptions),
  };
}
