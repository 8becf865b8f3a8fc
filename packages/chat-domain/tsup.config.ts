import { defineConfig } from 'tsup';

export default defineConfig({
  // The SQLite writer thread's entry sits beside the bundle that starts it.
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing.ts',
    'sqlite-writer-worker': 'src/stores/sqlite-writer-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  external: ['vitest'],
});
