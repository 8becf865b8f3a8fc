import { Piscina } from 'piscina';
import { SamlConfigError } from '../errors.js';
import { samlPropertyKeys } from '../model/property-definitions.js';
import { type ReadDocument, type ReadDocumentOptions, readDocument } from './read-document.js';
import type { ReadDocumentOutcome, ReadDocumentTask } from './read-document-worker.js';

/**
 * Largest text or byte document read on the calling thread. fast-xml-parser validates and parses
 * 64 KiB of metadata in a few milliseconds; a 1 MiB federation aggregate takes 60 to 130 ms and one
 * listing hundreds of certificates 300 ms, far too long to hold a server's event loop.
 */
const INLINE_MAX_BYTES = 64 * 1024;
/** An idle reader thread ends after this long, so the memory of a rare large import is given back. */
const IDLE_THREAD_MS = 30_000;

/** Reads import and validation documents, the large ones on a worker thread. */
export interface DocumentReader {
  /**
   * {@link readDocument}, on a worker thread for text or bytes over 64 KiB within `maxBytes`, on
   * the calling thread otherwise. Large documents wait their turn for the one reader thread.
   * @throws SamlConfigError as {@link readDocument}; Error once the reader is closed.
   */
  read(input: unknown, options: ReadDocumentOptions): Promise<ReadDocument>;
  /** Ends the reader thread; reads still running fail. Idempotent. */
  close(): Promise<void>;
}

/** The worker entry: the built one beside this bundle, or a loader of the TypeScript source. */
function workerFilename(): string {
  const fromSources = import.meta.url.endsWith('.ts');
  return new URL(
    fromSources ? './read-document-worker.dev.mjs' : './read-document-worker.js',
    import.meta.url,
  ).href;
}

function sizeOf(input: unknown): number | undefined {
  if (typeof input === 'string') return Buffer.byteLength(input);
  return input instanceof Uint8Array ? input.byteLength : undefined;
}

/** The document as readDocument returns it: a whole configuration replaces the one shared key list. */
function restored(document: ReadDocument): ReadDocument {
  return document.format === 'idp-metadata' ? document : { ...document, replaces: samlPropertyKeys };
}

/**
 * Creates a document reader whose worker thread (piscina, one thread, unref'd while idle) starts
 * with the first large document and ends after 30 s without one.
 */
export function createDocumentReader(): DocumentReader {
  let pool: Piscina | undefined;
  let closed = false;
  return {
    async read(input, options) {
      const size = sizeOf(input);
      if (size === undefined || size <= INLINE_MAX_BYTES || size > options.maxBytes) {
        return readDocument(input, options);
      }
      if (closed) throw new Error('the SAML document reader is closed');
      pool ??= new Piscina({
        filename: workerFilename(),
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: IDLE_THREAD_MS,
      });
      const task: ReadDocumentTask = { input: input as string | Uint8Array, options };
      const outcome: ReadDocumentOutcome = await pool.run(task);
      if (!outcome.ok) throw new SamlConfigError(outcome.code, outcome.message, { details: outcome.details });
      return restored(outcome.document);
    },
    async close() {
      closed = true;
      await pool?.destroy();
    },
  };
}
