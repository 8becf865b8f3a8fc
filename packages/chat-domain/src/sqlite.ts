// The `@collab-suite/chat-domain/sqlite` entry: needs better-sqlite3 (an optional peer dependency).
export { createSqliteChatStore, type SqliteChatStoreOptions } from './stores/sqlite-chat-store.js';
