import { createRequire } from 'node:module';
import { ChatError } from './errors.js';

const requireFromHere = createRequire(import.meta.url);

/** The database and messaging drivers, optional peer dependencies each needed by one entry only. */
export const driverPackages = {
  'better-sqlite3': '@collab-suite/chat-domain/sqlite',
  pg: '@collab-suite/chat-domain/postgres',
  ioredis: '@collab-suite/chat-domain/redis',
} as const;

/** One of {@link driverPackages}. */
export type DriverPackage = keyof typeof driverPackages;

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${name}'`)
  );
}

/**
 * Loads the optional peer dependency `name` on first use (synchronously: the drivers are CommonJS).
 * @throws ChatError `driver_missing` naming the package to install when it is not installed
 */
export function loadDriver<Module>(name: DriverPackage): Module {
  try {
    // Node's module cache makes every call after the first a lookup.
    return requireFromHere(name) as Module;
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new ChatError(
      'driver_missing',
      `expected the package ${name} to be installed for ${driverPackages[name]} but it is not: run \`npm install ${name}\``,
      { details: { package: name, entry: driverPackages[name] }, cause: error },
    );
  }
}
