import { createMemoryMediaServer } from '@collab-suite/chat-domain';
import { describeMediaServerConformance } from '@collab-suite/chat-domain/testing/vitest';

describeMediaServerConformance(
  'memory',
  async () => createMemoryMediaServer(),
  () => ({
    audioOffer: async () => 'v=0\r\ns=audio\r\n',
    videoOffer: async () => 'v=0\r\ns=video\r\n',
    close: async () => {},
  }),
);
