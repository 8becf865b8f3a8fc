// The `@collab-suite/chat-domain/postgres` entry: needs pg (an optional peer dependency).
export {
  openPostgresChatStore,
  type PostgresChatStore,
  type PostgresChatStoreOptions,
  type PostgresPoolStats,
} from './stores/postgres-chat-store.js';
