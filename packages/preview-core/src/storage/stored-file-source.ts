import { PreviewError } from '../errors.js';

/** Services that own stored files. */
export const SERVICE_TYPES = ['files', 'chats'] as const;
/** The service that first uploaded a stored file. */
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** Names one version of one stored file. */
export interface StoredFileRef {
  /** UUID of the file, lower-case and hyphenated once normalised. */
  readonly id: string;
  /** Version of the file, a non-negative integer. */
  readonly version: number;
  readonly serviceType: ServiceType;
}

/**
 * Port to the storage that holds the files to preview. Adapters: in memory, a folder on disk and
 * an HTTP storage service; all pass the conformance suite in `@collab-suite/preview-core/testing`.
 */
export interface StoredFileSource {
  /**
   * Reads the whole file. Rejects with the signal's reason when `signal` aborts.
   * @throws {PreviewError} `NOT_FOUND` when the file or version does not exist; `STORAGE_UNAVAILABLE`
   * when the storage cannot answer; `INPUT_TOO_LARGE` when the file exceeds the adapter's byte limit;
   * `INVALID_OPTION` when the reference is malformed.
   */
  read(ref: StoredFileRef, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Says cheaply (a stat, an HTTP HEAD), without reading the bytes, whether the version exists; asked
   * before a kept render of it is served. Optional for adapters written before it: callers fall back
   * to `read` (see `createStoredFileExistence`).
   * @throws {PreviewError} `STORAGE_UNAVAILABLE` when the storage cannot answer; `INVALID_OPTION` when
   * the reference is malformed.
   */
  exists?(ref: StoredFileRef, signal?: AbortSignal): Promise<boolean>;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * Validates `ref` and returns it with the id lower-case and hyphenated (`0123abcd-...`), so every
 * adapter sees one spelling.
 * @throws {PreviewError} `INVALID_OPTION` for an id that is not a UUID, a version that is not a
 * non-negative integer or an unknown service type.
 */
export function normaliseStoredFileRef(ref: StoredFileRef): StoredFileRef {
  if (typeof ref.id !== 'string' || !UUID.test(ref.id)) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`id\` to be a UUID but received ${JSON.stringify(ref.id)}`,
      {
        details: { option: 'id' },
      },
    );
  }
  if (!Number.isSafeInteger(ref.version) || ref.version < 0) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`version\` to be a non-negative integer but received ${JSON.stringify(ref.version)}`,
      { details: { option: 'version' } },
    );
  }
  if (!(SERVICE_TYPES as readonly string[]).includes(ref.serviceType)) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`serviceType\` files or chats but received ${JSON.stringify(ref.serviceType)}`,
      { details: { option: 'serviceType' } },
    );
  }
  const hex = ref.id.replaceAll('-', '').toLowerCase();
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { id, version: ref.version, serviceType: ref.serviceType };
}

/** A short text naming a stored file in messages, e.g. `files/0123...-.../3`. */
export function describeStoredFileRef(ref: StoredFileRef): string {
  return `${ref.serviceType}/${ref.id}/${ref.version}`;
}

/** The error every adapter throws for a missing file. */
export function storedFileNotFound(ref: StoredFileRef): PreviewError {
  return new PreviewError(
    'NOT_FOUND',
    `stored file ${describeStoredFileRef(ref)} was not found in the storage`,
    {
      details: { id: ref.id, version: ref.version, serviceType: ref.serviceType },
    },
  );
}

/** The error every adapter throws for a file over its byte limit. */
export function storedFileTooLarge(
  ref: StoredFileRef,
  maxBytes: number,
  received: number | string,
): PreviewError {
  return new PreviewError(
    'INPUT_TOO_LARGE',
    `expected stored file ${describeStoredFileRef(ref)} to be at most ${maxBytes} bytes but it is ${received} bytes`,
    { details: { maxBytes } },
  );
}
