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
  // An unknown key (a typo) is named first: the missing option it was meant to be is its consequence.
  const unknownKeys = result.error.issues.find((item) => item.code === 'unrecognized_keys');
  if (unknownKeys !== undefined) {
    const prefix = unknownKeys.path.length === 0 ? '' : `${unknownKeys.path.join('.')}.`;
    const names = unknownKeys.keys.map((key) => `\`${prefix}${key}\``).join(', ');
    throw new SamlConfigError('invalid_options', `${factory}: unknown option ${names}`, {
      details: { options: unknownKeys.keys.map((key) => `${prefix}${key}`) },
    });
  }
  const issue = result.error.issues[0];
  const path = issue?.path.join('.') || '(options)';
  throw new SamlConfigError('invalid_options', `${factory}: option ${path}: ${issue?.message ?? 'invalid'}`, {
    details: {
      issues: result.error.issues.map((item) => ({ path: item.path.join('.'), message: item.message })),
    },
  });
}
