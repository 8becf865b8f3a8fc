import { PreviewError } from '../errors.js';
import {
  describeStoredFileRef,
  normaliseStoredFileRef,
  type StoredFileRef,
  type StoredFileSource,
  storedFileNotFound,
  storedFileTooLarge,
} from './stored-file-source.js';

/** Options of {@link createHttpStoredFileSource}. */
export interface HttpStoredFileSourceOptions {
  /** Base URL of the storage service; `/download` is appended. */
  readonly baseUrl: string;
  /**
   * Time allowed for one whole download (headers and body), in milliseconds.
   * @default 10000
   */
  readonly timeoutMs?: number;
  /**
   * Largest body accepted, in bytes; a larger one is INPUT_TOO_LARGE (the file, not the storage, is
   * the problem, so retrying would not help).
   * @default 104857600
   */
  readonly maxBytes?: number;
}

/** The download URL of a stored file: `<baseUrl>/download?node=<id>&version=<n>&type=<serviceType>`. */
export function downloadUrl(baseUrl: string, ref: StoredFileRef): URL {
  const url = new URL('download', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('node', ref.id);
  url.searchParams.set('version', String(ref.version));
  url.searchParams.set('type', ref.serviceType);
  return url;
}

function unavailable(ref: StoredFileRef, reason: string, cause?: unknown): PreviewError {
  return new PreviewError(
    'STORAGE_UNAVAILABLE',
    `storage could not deliver ${describeStoredFileRef(ref)}: ${reason}`,
    {
      cause,
    },
  );
}

async function readBody(response: Response, ref: StoredFileRef, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw storedFileTooLarge(ref, maxBytes, declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!response.body) return new Uint8Array(0);
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw storedFileTooLarge(ref, maxBytes, `more than ${maxBytes}`);
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

/** What a status says of a version's existence: true, false, or undefined when HEAD is not supported. */
function existenceOf(status: number, ref: StoredFileRef): boolean | undefined {
  if (status === 404) return false;
  if (status === 405 || status === 501) return undefined;
  if (status >= 200 && status <= 299) return true;
  throw unavailable(ref, `it answered HTTP ${status}`);
}

/**
 * Asks the storage whether a version exists without downloading it: `HEAD` of its download URL, or,
 * for a storage that does not answer HEAD (405, 501), a `GET` of its first byte whose body is dropped.
 */
async function askExistence(url: URL, ref: StoredFileRef, signal: AbortSignal): Promise<boolean> {
  const head = await fetch(url, { method: 'HEAD', signal, redirect: 'manual' });
  await head.body?.cancel();
  const answer = existenceOf(head.status, ref);
  if (answer !== undefined) return answer;
  const ranged = await fetch(url, { headers: { range: 'bytes=0-0' }, signal, redirect: 'manual' });
  await ranged.body?.cancel();
  return existenceOf(ranged.status, ref) ?? false;
}

/**
 * A {@link StoredFileSource} downloading from an HTTP storage service
 * (`GET <baseUrl>/download?node=&version=&type=`), bounded in time and size; `exists` asks with
 * `HEAD` of the same URL. 404 is NOT_FOUND; any
 * other non-2xx answer (redirects included), a refused connection or a timeout is STORAGE_UNAVAILABLE.
 */
export function createHttpStoredFileSource(options: HttpStoredFileSourceOptions): StoredFileSource {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 100 * 1024 * 1024;
  return {
    async exists(ref, signal) {
      signal?.throwIfAborted();
      const normalised = normaliseStoredFileRef(ref);
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
        return await askExistence(downloadUrl(options.baseUrl, normalised), normalised, combined);
      } catch (error) {
        if (error instanceof PreviewError) throw error;
        if (signal?.aborted) throw signal.reason;
        if (timeout.aborted) throw unavailable(normalised, `no answer within ${timeoutMs} ms`, error);
        throw unavailable(normalised, 'the connection failed', error);
      }
    },
    async read(ref, signal) {
      signal?.throwIfAborted();
      const normalised = normaliseStoredFileRef(ref);
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        const response = await fetch(downloadUrl(options.baseUrl, normalised), {
          signal: combined,
          redirect: 'manual',
        });
        if (response.status === 404) {
          await response.body?.cancel();
          throw storedFileNotFound(normalised);
        }
        if (response.status < 200 || response.status > 299) {
          await response.body?.cancel();
          throw unavailable(normalised, `it answered HTTP ${response.status}`);
        }
        return await readBody(response, normalised, maxBytes);
      } catch (error) {
        if (error instanceof PreviewError) throw error;
        if (signal?.aborted) throw signal.reason;
        if (timeout.aborted)
          throw unavailable(normalised, `no complete answer within ${timeoutMs} ms`, error);
        throw unavailable(normalised, 'the connection failed', error);
      }
    },
  };
}
