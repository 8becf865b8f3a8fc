import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { defineConfig } from 'tsup';

/** The swagger-ui files the /docs page serves, copied beside the build (see docs-routes.ts). */
const DOCS_ASSETS = [
  'swagger-ui-bundle.js',
  'swagger-ui.css',
  'LICENSE',
  'NOTICE',
  'swagger-ui-bundle.js.LICENSE.txt',
];

/**
 * swagger-ui-dist is a devDependency only: its files are copied into dist/docs-assets, so that an npm
 * install of the server never installs it nor its dependency @scarf/scarf (a telemetry postinstall).
 */
async function copyDocsAssets(): Promise<void> {
  const source: string = createRequire(import.meta.url)('swagger-ui-dist').getAbsoluteFSPath();
  await mkdir('dist/docs-assets', { recursive: true });
  for (const name of DOCS_ASSETS) await cp(join(source, name), join('dist/docs-assets', name));
}

export default defineConfig({
  // The media worker thread's entry sits beside the bundle that starts it.
  entry: {
    index: 'src/index.ts',
    main: 'src/main.ts',
    'token-cli': 'src/token-cli.ts',
    'chat-xmpp-sync': 'src/chat-xmpp-sync.ts',
    'media-worker': 'src/meetings/media/media-worker.ts',
  },
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  onSuccess: copyDocsAssets,
});
