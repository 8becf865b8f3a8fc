import { ChatError } from '../errors.js';
import type { BlobSource } from '../ports/blob-store.js';

const blobKeyPattern = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/;

/** True for a blob key: segments of `[a-z0-9_-]` joined by `/`, at most 512 characters. */
export function isBlobKey(key: string): boolean {
  return blobKeyPattern.test(key) && key.length <= 512;
}

/**
 * Checks that `key` is a blob key: segments of `[a-z0-9_-]` joined by `/`, so that it can never
 * leave a blob store's folder.
 * @throws ChatError `invalid_input`
 */
export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) {
    throw new ChatError(
      'invalid_input',
      `expected a blob key of [a-z0-9_-] segments but received ${JSON.stringify(key)}`,
    );
  }
}

/** The error of a blob past its limit. */
export function blobTooLarge(maxBytes: number): ChatError {
  return new ChatError('payload_too_large', `expected at most ${maxBytes} bytes but received more`, {
    details: { maxBytes },
  });
}

/**
 * Reads a whole source into one buffer, refusing it past `maxBytes`.
 * @throws ChatError `payload_too_large`
 */
export async function collectBytes(source: BlobSource, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  if (source instanceof Uint8Array) {
    if (source.byteLength > maxBytes) throw blobTooLarge(maxBytes);
    return Buffer.from(source);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    if (size > maxBytes) throw blobTooLarge(maxBytes);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, size);
}
