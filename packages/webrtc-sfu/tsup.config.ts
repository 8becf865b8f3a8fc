import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', http: 'src/http/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Optional: loaded with require() when installed and built.
  external: ['@collab-suite/srtp-native'],
});
