import { isSamlConfigError, type SamlConfigErrorCode } from '../errors.js';
import { type ReadDocument, type ReadDocumentOptions, readDocument } from './read-document.js';

/** A document handed to the reader thread. */
export interface ReadDocumentTask {
  input: string | Uint8Array;
  options: ReadDocumentOptions;
}

/** What the reader thread answers: the document read, or the SamlConfigError it was refused with. */
export type ReadDocumentOutcome =
  | { ok: true; document: ReadDocument }
  | { ok: false; code: SamlConfigErrorCode; message: string; details: Record<string, unknown> | undefined };

/**
 * The reader thread's task handler (piscina loads this module's default export): runs
 * {@link readDocument} and answers a refusal as an outcome carrying its code, so the caller can
 * throw the same SamlConfigError. Any other error fails the task as it is.
 */
export default function handleReadDocumentTask(task: ReadDocumentTask): ReadDocumentOutcome {
  try {
    return { ok: true, document: readDocument(task.input, task.options) };
  } catch (error) {
    if (!isSamlConfigError(error)) throw error;
    return { ok: false, code: error.code, message: error.message, details: error.details };
  }
}
