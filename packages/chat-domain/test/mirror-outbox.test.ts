import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createMemoryChatStore,
  createSqliteChatStore,
  openPostgresChatStore,
} from '@collab-suite/chat-domain';
import { describeMirrorOutboxConformance } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll } from 'vitest';
import { chatTestDatabaseUrl, truncateChatTables } from './postgres-helper.js';

// The outbox alone on every store, with a PostgreSQL database of its own (the full store suite in
// stores.test.ts runs it too, on the shared one).
describeMirrorOutboxConformance('memory', async () => createMemoryChatStore());

let folder = '';
let fileCount = 0;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mirror-outbox-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describeMirrorOutboxConformance('sqlite file, writes on a writer thread', async () => {
  fileCount += 1;
  return createSqliteChatStore({ filename: join(folder, `chat-${fileCount}.db`) });
});

let postgresUrl = '';
describeMirrorOutboxConformance('postgresql', async () => {
  postgresUrl ||= await chatTestDatabaseUrl('xmpp_mirror_outbox');
  const store = await openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 4 });
  await truncateChatTables(postgresUrl);
  return store;
});
