import { createRequire } from 'node:module';

/**
 * Version reported by the OpenAPI document and `/health/`: the package's own, read from its
 * package.json (one level above both `src/` and `dist/`), so there is one version source.
 */
export const serverVersion: string = (
  createRequire(import.meta.url)('../package.json') as { version: string }
).version;
