import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ChatError } from '../errors.js';
import { refuseUnknownOptions } from '../option-schemas.js';
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

/** Out of space (`ENOSPC`) or over the user's disk quota (`EDQUOT`). */
function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * `error` as the store reports it: a full disk becomes ChatError `storage_full` (the server's
 * fault, not the client's), anything else is left as it is.
 */
function asStoreError(error: unknown): unknown {
  if (!isDiskFull(error)) return error;
  return new ChatError('storage_full', 'the disk of the file store is full: nothing of the file was kept', {
    cause: error,
  });
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
 * Bytes are written to a temporary file and renamed into place, so a key never holds a partial blob;
 * a write that fails removes its temporary file.
 * @throws ChatError `storage_full` from `put` and `copy` when the disk is full or over quota
 *   (`ENOSPC`, `EDQUOT`)
 */
export function createDiskBlobStore(options: DiskBlobStoreOptions): BlobStore {
  refuseUnknownOptions(options, ['directory'], 'createDiskBlobStore');
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
      const temporary = await temporaryPathFor(path).catch((error: unknown) => {
        throw asStoreError(error);
      });
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
        throw asStoreError(error);
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
      const temporary = await temporaryPathFor(targetPath).catch((error: unknown) => {
        throw asStoreError(error);
      });
      try {
        await copyFile(sourcePath, temporary);
        await rename(temporary, targetPath);
        return true;
      } catch (error) {
        await rm(temporary, { force: true });
        if (isMissing(error)) return false;
        throw asStoreError(error);
      }
    },
    async delete(key: string) {
      await rm(pathOf(key), { force: true });
    },
    sweep: (sweepOptions) => sweepDiskBlobs(root, sweepOptions),
  };
}
