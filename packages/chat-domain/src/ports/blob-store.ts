import type { Readable } from 'node:stream';

/** Bytes to store: a whole buffer or a stream of chunks. */
export type BlobSource = Uint8Array | AsyncIterable<Uint8Array>;

/** A stored blob opened for reading. */
export interface StoredBlob {
  size: number;
  content: Readable;
}

/** Options of {@link BlobStore.put}. */
export interface BlobPutOptions {
  /** Refuse the blob once more than this many bytes arrive; nothing is kept then. */
  maxBytes?: number;
}

/** Options of {@link BlobStore.sweep}. */
export interface BlobSweepOptions {
  /** Only blobs and temporary files last written before this are looked at. */
  olderThan: Date;
  /** Of the given keys, those metadata points at: they are kept. */
  isReferenced(blobKeys: readonly string[]): Promise<readonly string[]>;
}

/** What a sweep removed. */
export interface BlobSweepResult {
  /** Temporary files of writes a crash interrupted. */
  temporaries: number;
  /** Complete blobs no metadata points at (written just before a crash, before their row). */
  unreferenced: number;
}

/**
 * Bytes of attachments and pictures under string keys made of `[a-z0-9/_-]`. Writes are atomic:
 * a key is either absent or holds the complete bytes.
 */
export interface BlobStore {
  /**
   * Stores the bytes under `key`, replacing any previous bytes; returns the stored size.
   * @throws ChatError `payload_too_large` past `maxBytes`, `storage_full` when the store has no
   *   room left (in both cases nothing is stored)
   */
  put(key: string, source: BlobSource, options?: BlobPutOptions): Promise<{ size: number }>;
  /** Opens the bytes under `key`; undefined when absent. */
  get(key: string): Promise<StoredBlob | undefined>;
  /** Copies the bytes of `sourceKey` to `targetKey`; false when the source is absent. */
  copy(sourceKey: string, targetKey: string): Promise<boolean>;
  /** Deletes the bytes under `key`; deleting an absent key succeeds. */
  delete(key: string): Promise<void>;
  /**
   * Removes what a crash may leave behind, when the store can leave anything: temporary files, and
   * blobs that `isReferenced` does not claim, both older than `olderThan`. Referenced blobs are never
   * touched.
   */
  sweep?(options: BlobSweepOptions): Promise<BlobSweepResult>;
}
