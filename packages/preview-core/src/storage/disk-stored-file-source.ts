import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { PreviewError } from '../errors.js';
import {
  describeStoredFileRef,
  normaliseStoredFileRef,
  type StoredFileRef,
  type StoredFileSource,
  storedFileNotFound,
  storedFileTooLarge,
} from './stored-file-source.js';

/** Options of {@link createDiskStoredFileSource}. */
export interface DiskStoredFileSourceOptions {
  /** Folder holding `<serviceType>/<id>/<version>` files. */
  readonly root: string;
  /**
   * Largest file read, in bytes.
   * @default 104857600
   */
  readonly maxBytes?: number;
}

const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/** The path of a stored file under `root`, refusing anything that would leave `root`. */
export function storedFilePath(root: string, ref: StoredFileRef): string {
  const base = path.resolve(root);
  const file = path.resolve(base, ref.serviceType, ref.id, String(ref.version));
  if (!file.startsWith(base + path.sep)) {
    throw new PreviewError(
      'INVALID_OPTION',
      `stored file reference ${describeStoredFileRef(ref)} leaves the storage folder`,
    );
  }
  return file;
}

/**
 * A {@link StoredFileSource} reading files laid out as `<root>/<serviceType>/<id>/<version>`
 * (id lower-case and hyphenated). A missing folder or file is NOT_FOUND; other I/O failures are
 * STORAGE_UNAVAILABLE.
 */
export function createDiskStoredFileSource(options: DiskStoredFileSourceOptions): StoredFileSource {
  const maxBytes = options.maxBytes ?? 100 * 1024 * 1024;
  return {
    async exists(ref, signal) {
      signal?.throwIfAborted();
      const normalised = normaliseStoredFileRef(ref);
      try {
        return (await stat(storedFilePath(options.root, normalised))).isFile();
      } catch (error) {
        if (error instanceof PreviewError) throw error;
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (MISSING.has(code)) return false;
        throw new PreviewError(
          'STORAGE_UNAVAILABLE',
          `could not look up stored file ${describeStoredFileRef(normalised)} (${code || 'I/O error'})`,
          { cause: error },
        );
      }
    },
    async read(ref, signal) {
      signal?.throwIfAborted();
      const normalised = normaliseStoredFileRef(ref);
      const file = storedFilePath(options.root, normalised);
      try {
        const handle = await open(file, 'r');
        try {
          const { size } = await handle.stat();
          if (size > maxBytes) throw storedFileTooLarge(normalised, maxBytes, size);
          return new Uint8Array(await handle.readFile({ signal }));
        } finally {
          await handle.close();
        }
      } catch (error) {
        if (error instanceof PreviewError || signal?.aborted) throw error;
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (MISSING.has(code)) throw storedFileNotFound(normalised);
        throw new PreviewError(
          'STORAGE_UNAVAILABLE',
          `could not read stored file ${describeStoredFileRef(normalised)} (${code || 'I/O error'})`,
          {
            cause: error,
          },
        );
      }
    },
  };
}
