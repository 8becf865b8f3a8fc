import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const packageSource = (name: string) =>
  fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));
/** The source of one subpath entry (`src/<entry>.ts`) of a package. */
const packageEntry = (name: string, entry: string) =>
  fileURLToPath(new URL(`./packages/${name}/src/${entry}.ts`, import.meta.url));

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
      '@collab-suite/saml-config/testing/vitest': packageEntry('saml-config', 'testing/vitest'),
      '@collab-suite/saml-config/testing': packageEntry('saml-config', 'testing/index'),
      '@collab-suite/saml-config/sqlite': packageEntry('saml-config', 'sqlite'),
      '@collab-suite/saml-config/postgres': packageEntry('saml-config', 'postgres'),
      '@collab-suite/saml-config': packageSource('saml-config'),
      // Longer subpaths first: an alias also matches what continues it after a slash.
      '@collab-suite/chat-domain/testing/vitest': packageEntry('chat-domain', 'testing/vitest'),
      '@collab-suite/chat-domain/testing': packageEntry('chat-domain', 'testing'),
      '@collab-suite/chat-domain/sqlite': packageEntry('chat-domain', 'sqlite'),
      '@collab-suite/chat-domain/postgres': packageEntry('chat-domain', 'postgres'),
      '@collab-suite/chat-domain/redis': packageEntry('chat-domain', 'redis'),
      '@collab-suite/chat-domain/xmpp': packageEntry('chat-domain', 'xmpp'),
      '@collab-suite/chat-domain': packageSource('chat-domain'),
      '@collab-suite/webrtc-sfu/testing': fileURLToPath(
        new URL('./packages/webrtc-sfu/src/testing/index.ts', import.meta.url),
      ),
      '@collab-suite/webrtc-sfu': packageSource('webrtc-sfu'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['./test-support/office-fixtures-setup.js'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
