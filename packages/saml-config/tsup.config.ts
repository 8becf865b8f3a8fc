import { defineConfig } from 'tsup';

export default defineConfig({
  // The document reader thread's entry sits beside the bundle that starts it.
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    'read-document-worker': 'src/import/read-document-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  external: ['vitest'],
});
