import type { z } from 'zod';
import { SamlConfigError } from './errors.js';

/**
 * Parses factory options once into their fully defaulted form.
 * @throws SamlConfigError `invalid_options` naming the first bad option
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  factory: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.join('.') || '(options)';
  throw new SamlConfigError('invalid_options', `${factory}: option ${path}: ${issue?.message ?? 'invalid'}`, {
    details: {
      issues: result.error.issues.map((item) => ({ path: item.path.join('.'), message: item.message })),
    },
  });
}
