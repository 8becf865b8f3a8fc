import { z } from 'zod';

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
