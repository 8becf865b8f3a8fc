// Run by packages.test.ts inside a throw-away npm project that installed the five packed packages:
// every public entry point loads, a service of each library works, and the server app starts.
import { createChatService, createMemoryChatStore } from '@collab-suite/chat-domain';
import { createPreviewService } from '@collab-suite/preview-core';
import { createSamlConfigService } from '@collab-suite/saml-config';
import { createApp, loadConfig } from '@collab-suite/server';
import { createSfu } from '@collab-suite/webrtc-sfu';

const previews = createPreviewService({});
const chat = createChatService({ store: createMemoryChatStore() });
const sfu = createSfu({});
const app = await createApp({
  config: loadConfig({ DATA_DIR: process.env.CONSUMER_DATA_DIR, DOCUMENT_CONVERTER: 'none' }),
});
const answer = {
  preview: typeof previews.imageThumbnail,
  chat: (await chat.listRooms({ userId: '7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b71' })).length,
  saml: typeof createSamlConfigService,
  routers: sfu.routers.size,
  app: typeof app.listen,
};
await app.close();
sfu.close();
console.log(JSON.stringify(answer));
