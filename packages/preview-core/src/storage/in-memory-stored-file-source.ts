import {
  normaliseStoredFileRef,
  type StoredFileRef,
  type StoredFileSource,
  storedFileNotFound,
} from './stored-file-source.js';

/** A {@link StoredFileSource} keeping files in a map; for tests, examples and embedding. */
export interface InMemoryStoredFileSource extends StoredFileSource {
  /** Stores a copy of `bytes` under `ref`, replacing any earlier content. */
  put(ref: StoredFileRef, bytes: Uint8Array): void;
  /** Removes the file; true when it existed. */
  delete(ref: StoredFileRef): boolean;
}

const keyOf = (ref: StoredFileRef) => `${ref.serviceType}/${ref.id}/${ref.version}`;

/** Creates an empty {@link InMemoryStoredFileSource}. */
export function createInMemoryStoredFileSource(): InMemoryStoredFileSource {
  const files = new Map<string, Uint8Array>();
  return {
    async read(ref, signal) {
      signal?.throwIfAborted();
      const normalised = normaliseStoredFileRef(ref);
      const bytes = files.get(keyOf(normalised));
      if (!bytes) throw storedFileNotFound(normalised);
      return new Uint8Array(bytes);
    },
    async exists(ref, signal) {
      signal?.throwIfAborted();
      return files.has(keyOf(normaliseStoredFileRef(ref)));
    },
    put(ref, bytes) {
      files.set(keyOf(normaliseStoredFileRef(ref)), new Uint8Array(bytes));
    },
    delete(ref) {
      return files.delete(keyOf(normaliseStoredFileRef(ref)));
    },
  };
}
