import { defineConfig } from 'tsup';

export default defineConfig({
  // One entry per subpath of package.json `exports`; the SQLite writer thread's entry sits beside
  // the bundle that starts it.
  entry: {
    index: 'src/index.ts',
    sqlite: 'src/sqlite.ts',
    postgres: 'src/postgres.ts',
    redis: 'src/redis.ts',
    xmpp: 'src/xmpp.ts',
    testing: 'src/testing.ts',
    'testing/vitest': 'src/testing/vitest.ts',
    'sqlite-writer-worker': 'src/stores/sqlite-writer-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Optional peer dependencies stay imports of the consumer's copies.
  external: ['vitest', 'better-sqlite3', 'pg', 'ioredis'],
});
