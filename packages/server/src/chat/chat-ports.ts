import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  type BlobStore,
  type ChatStore,
  createDiskBlobStore,
  createHttpUserDirectory,
  createMemoryEventBus,
  createOpenUserDirectory,
  type EventBus,
  type UserDirectory,
} from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { openRedisEventBus } from '@collab-suite/chat-domain/redis';
import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import { openNamed } from '../startup-error.js';

/** The chat ports the server builds from its configuration. */
export interface ChatPorts {
  store: ChatStore;
  blobs: BlobStore;
  users: UserDirectory;
  events: EventBus;
}

/** Which kind of database `databaseUrl` names. */
export function chatDatabaseKind(databaseUrl: string): 'postgres' | 'sqlite' {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? 'postgres' : 'sqlite';
}

/**
 * Opens the chat store: PostgreSQL for a `postgres://` URL (with the configured connect and query
 * bounds), else a SQLite file (migrated on open).
 */
export async function openChatStore(
  databaseUrl: string,
  bounds: ServerConfig['database'] = { connectTimeoutMs: 2000, queryTimeoutMs: 2000 },
): Promise<ChatStore> {
  if (chatDatabaseKind(databaseUrl) === 'postgres')
    return openPostgresChatStore({
      connectionString: databaseUrl,
      connectionTimeoutMs: bounds.connectTimeoutMs,
      queryTimeoutMs: bounds.queryTimeoutMs,
    });
  const filename = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
  if (filename !== ':memory:') await mkdir(path.dirname(path.resolve(filename)), { recursive: true });
  return createSqliteChatStore({ filename });
}

/** Builds each port not given in `overrides` from `config.chat`. */
export async function chatPortsFromConfig(
  config: ServerConfig,
  logger: Logger,
  overrides: Partial<ChatPorts> = {},
): Promise<ChatPorts> {
  const { chat } = config;
  const store =
    overrides.store ??
    (chatDatabaseKind(chat.databaseUrl) === 'postgres'
      ? await openNamed('CHAT_DATABASE_URL', 'PostgreSQL', chat.databaseUrl, () =>
          openChatStore(chat.databaseUrl, config.database),
        )
      : await openNamed('CHAT_DATABASE_URL', 'SQLite', chat.databaseUrl, () =>
          openChatStore(chat.databaseUrl),
        ));
  const blobs = overrides.blobs ?? createDiskBlobStore({ directory: chat.blobDirectory });
  const users =
    overrides.users ??
    (chat.userDirectoryUrl
      ? createHttpUserDirectory({ baseUrl: chat.userDirectoryUrl })
      : createOpenUserDirectory());
  // The reason only: ioredis errors carry the failed command, whose AUTH arguments hold the password.
  const onError = (error: unknown) =>
    logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'chat event bus error');
  const events =
    overrides.events ??
    (chat.redisUrl
      ? await openNamed('CHAT_REDIS_URL', 'Redis', chat.redisUrl, () =>
          openRedisEventBus({
            url: chat.redisUrl as string,
            onError,
            backlogMaxEvents: chat.eventBacklog.maxEvents,
            backlogMaxSeconds: chat.eventBacklog.maxSeconds,
            commandTimeoutMs: chat.redisTimeoutMs,
          }),
        )
      : createMemoryEventBus({ onListenerError: onError }));
  return { store, blobs, users, events };
}
