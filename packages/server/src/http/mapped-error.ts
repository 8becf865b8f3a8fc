import type { ValidationIssue } from './http-error.js';

/** What the server answers for an error, before a feature formats the body. */
export interface MappedError {
  status: number;
  message: string;
  /** A library's error code, when the error came from a library. */
  code?: string;
  details?: unknown;
  issues?: ValidationIssue[];
  headers: Record<string, string>;
}

/**
 * Maps one library's error class to statuses, with a table typed `Record<TheLibraryErrorCode, number>`
 * so that a new code does not compile until it has a status.
 */
export interface LibraryErrorMapper {
  matches(error: unknown): boolean;
  map(error: unknown): MappedError;
}
