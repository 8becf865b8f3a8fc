import { defineConfig } from 'tsup';

export default defineConfig({
  // The PDF worker thread's entry sits beside the bundle that starts it; every entry is at the top of
  // dist (or one folder down for testing) so that shared chunks find it.
  entry: {
    index: 'src/index.ts',
    image: 'src/entries/image.ts',
    pdf: 'src/entries/pdf.ts',
    office: 'src/entries/office.ts',
    http: 'src/http/index.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/vitest': 'src/testing/vitest/index.ts',
    'pdf-worker': 'src/pdf/pdf-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
