import type { z } from 'zod';
import { PreviewError } from '../errors.js';

/** The dotted name of the first unknown key an issue reports, e.g. `limits.maxConcurentRenders`. */
function issuePath(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'options';
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  return path.join('.') || 'request';
}

/**
 * Parses options or request fields with `schema` (unknown keys are refused by the strict schemas).
 * @throws {PreviewError} `INVALID_OPTION` naming the option, what was expected and what came.
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  request: unknown,
  prefix = '',
): z.output<Schema> {
  const result = schema.safeParse(request, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = `${prefix}${issuePath(issue)}`;
  if (issue?.code === 'unrecognized_keys') {
    throw new PreviewError('INVALID_OPTION', `unknown option \`${path}\` (check its spelling)`, {
      details: { option: path },
      cause: result.error,
    });
  }
  const received = issue && 'input' in issue ? ` but received ${JSON.stringify(issue.input)}` : '';
  throw new PreviewError(
    'INVALID_OPTION',
    `invalid \`${path}\`: ${issue?.message ?? 'invalid value'}${received}`,
    { details: { option: path }, cause: result.error },
  );
}

/**
 * Refuses keys of a plain options object that its factory does not know.
 * @throws {PreviewError} `INVALID_OPTION` naming the first unknown key.
 */
export function assertKnownOptions(options: object, known: readonly string[], prefix = ''): void {
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return;
  const path = `${prefix}${unknown}`;
  throw new PreviewError('INVALID_OPTION', `unknown option \`${path}\` (check its spelling)`, {
    details: { option: path },
  });
}
