import type { ChatErrorCode } from '../errors.js';

/** A store method call sent to the SQLite writer thread. */
export interface WriterRequest {
  id: number;
  method: string;
  args: unknown[];
}

/** Why a call failed on the writer thread: a ChatError is rebuilt as one on the main thread. */
export type WriterFailure =
  | { chatError: true; code: ChatErrorCode; message: string; details: Record<string, unknown> | undefined }
  | { chatError: false; message: string; code: string | undefined };

/** The writer's answer to the request with the same `id`. */
export type WriterReply = { id: number; result: unknown } | { id: number; failure: WriterFailure };
