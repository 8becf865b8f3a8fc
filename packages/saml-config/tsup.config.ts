import { defineConfig } from 'tsup';

export default defineConfig({
  // One entry per subpath of package.json `exports`; the document reader thread's entry sits beside
  // the bundle that starts it.
  entry: {
    index: 'src/index.ts',
    sqlite: 'src/sqlite.ts',
    postgres: 'src/postgres.ts',
    testing: 'src/testing/index.ts',
    'testing/vitest': 'src/testing/vitest.ts',
    'read-document-worker': 'src/import/read-document-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Optional peer dependencies stay imports of the consumer's copies.
  external: ['vitest', 'better-sqlite3', 'pg'],
});
