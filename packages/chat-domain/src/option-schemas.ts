import { z } from 'zod';
import { ChatError } from './errors.js';

/** An injected port: any object with a `method` function (named `name` in the error message). */
export const portSchema = <T>(name: string, method: string) =>
  z.custom<T>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as Record<string, unknown>)[method] === 'function',
    { message: `expected a ${name} with a ${method}() method` },
  );

/** An id factory option. */
export const idFactorySchema = z.custom<() => string>((value) => typeof value === 'function');

/** A handler of failures that happen after a change was committed. */
export const backgroundErrorHandlerSchema = z.custom<(error: unknown, context: string) => void>(
  (value) => typeof value === 'function',
);

/**
 * Refuses keys of an options object that `factory` does not know, so a typo (`stores` for `store`)
 * fails at once instead of silently taking the default.
 * @throws ChatError `invalid_input` naming the key (`details.option`) and the known ones
 */
export function refuseUnknownOptions(
  options: object | undefined,
  known: readonly string[],
  factory: string,
): void {
  if (options === undefined || options === null) return;
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return;
  throw new ChatError(
    'invalid_input',
    `${factory}: unknown option \`${unknown}\`; expected one of ${known.map((key) => `\`${key}\``).join(', ')}`,
    { details: { option: unknown, known } },
  );
}
