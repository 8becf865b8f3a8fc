import { defineConfig } from 'tsup';

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
});
