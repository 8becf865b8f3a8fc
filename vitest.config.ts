import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const packageSource = (name: string) =>
  fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@collab-suite/preview-core/testing/vitest': fileURLToPath(
        new URL('./packages/preview-core/src/testing/vitest/index.ts', import.meta.url),
      ),
      '@collab-suite/preview-core/testing': fileURLToPath(
        new URL('./packages/preview-core/src/testing/index.ts', import.meta.url),
      ),
      '@collab-suite/preview-core/http': fileURLToPath(
        new URL('./packages/preview-core/src/http/index.ts', import.meta.url),
      ),
      '@collab-suite/preview-core/image': fileURLToPath(
        new URL('./packages/preview-core/src/entries/image.ts', import.meta.url),
      ),
      '@collab-suite/preview-core/pdf': fileURLToPath(
        new URL('./packages/preview-core/src/entries/pdf.ts', import.meta.url),
      ),
      '@collab-suite/preview-core/office': fileURLToPath(
        new URL('./packages/preview-core/src/entries/office.ts', import.meta.url),
      ),
      '@collab-suite/preview-core': packageSource('preview-core'),
      '@collab-suite/saml-config/testing': fileURLToPath(
        new URL('./packages/saml-config/src/testing/index.ts', import.meta.url),
      ),
      '@collab-suite/saml-config': packageSource('saml-config'),
      '@collab-suite/chat-domain/testing': fileURLToPath(
        new URL('./packages/chat-domain/src/testing.ts', import.meta.url),
      ),
      '@collab-suite/chat-domain': packageSource('chat-domain'),
      '@collab-suite/webrtc-sfu/testing': fileURLToPath(
        new URL('./packages/webrtc-sfu/src/testing/index.ts', import.meta.url),
      ),
      '@collab-suite/webrtc-sfu': packageSource('webrtc-sfu'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
