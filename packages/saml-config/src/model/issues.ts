import { SamlConfigError, type SamlConfigErrorCode } from '../errors.js';

/** One finding about a configuration: a machine-readable code, the property it concerns, and a sentence. */
export interface SamlIssue {
  /** java-saml's spelling where one exists (`sp_entityId_not_found`), otherwise a snake_case code. */
  code: string;
  /** The property concerned, when there is exactly one. */
  key?: string;
  /** What was expected and what came; never contains key material. */
  message: string;
}

/** A readable one-line summary of a list of issues. */
export function summarizeIssues(issues: readonly SamlIssue[]): string {
  const [first, ...rest] = issues;
  if (first === undefined) return 'no issues';
  const head =
    first.key === undefined || first.message.startsWith(first.key)
      ? first.message
      : `${first.key}: ${first.message}`;
  return rest.length === 0 ? head : `${head} (and ${rest.length} more)`;
}

/**
 * Throws a {@link SamlConfigError} when `issues` is not empty.
 * @throws SamlConfigError with `code` (default `invalid_properties`) and `details.errors`
 */
export function throwIfIssues(
  issues: readonly SamlIssue[],
  code: SamlConfigErrorCode = 'invalid_properties',
): void {
  if (issues.length === 0) return;
  throw new SamlConfigError(code, summarizeIssues(issues), { details: { errors: [...issues] } });
}

/**
 * Shows a short, safe excerpt of a user value inside a message. Text that looks like a private key
 * (pasted into the wrong property) is never shown.
 */
export function quoteValue(value: unknown): string {
  if (typeof value !== 'string') return value === null ? 'null' : typeof value;
  if (/PRIVATE KEY|^\s*MII[A-Za-z0-9+/]{20}/.test(value)) return 'text that looks like a key (not shown)';
  const text = value.length > 80 ? `${value.slice(0, 77)}...` : value;
  return JSON.stringify(text);
}
