import { defineConfig } from 'tsup';

export default defineConfig({
  // The PDF worker thread's entry sits beside the bundle that starts it.
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'pdf-worker': 'src/pdf/pdf-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
