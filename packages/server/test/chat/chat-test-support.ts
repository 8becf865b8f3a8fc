import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { type ChatFeatureOverrides, createChatFeature } from '../../src/chat/chat-feature.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

/** A parsed JSON value, asserted field by field in tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert on them
export type Json = any;
/** An event or other JSON object. */
export type JsonObject = Record<string, Json>;

/** The databases every chat HTTP test runs against. */
export const chatDatabases = ['sqlite', 'postgres'] as const;
export type ChatDatabase = (typeof chatDatabases)[number];

const httpDatabase = 'collab_test_chat_http';
let postgresUrl: Promise<string> | undefined;

/**
 * The PostgreSQL database of the chat HTTP tests, created if missing. Tests never truncate it:
 * each uses fresh random users, so files can run in parallel.
 */
export function chatPostgresUrl(): Promise<string> {
  postgresUrl ??= testDatabaseUrl(httpDatabase);
  return postgresUrl;
}

/** A response with its body parsed as JSON when it is JSON. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  body: Json;
  bytes: Buffer;
}

/** Options of one {@link ChatClient} call. */
export interface CallOptions {
  json?: unknown;
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  /** Sends no token. */
  anonymous?: boolean;
}

/** Calls the chat API as one user. */
export type ChatClient = (method: string, path: string, options?: CallOptions) => Promise<ApiResponse>;

/** A running server with the chat feature and helpers to call it. */
export interface ChatTestServer extends TestServer {
  as(userId: string): ChatClient;
  token(userId: string): Promise<string>;
  /** Opens `/events` as a user and collects what arrives. */
  events(userId: string): Promise<EventsClient>;
}

/**
 * Starts a server whose only feature is chat, on SQLite (in its DATA_DIR) or PostgreSQL (the chat
 * HTTP tests' database unless `env.CHAT_DATABASE_URL` names another).
 */
export async function startChatServer(
  database: ChatDatabase,
  options: { overrides?: ChatFeatureOverrides; env?: Record<string, string> } = {},
): Promise<ChatTestServer> {
  const env: Record<string, string> = { ...options.env };
  if (database === 'postgres') env.CHAT_DATABASE_URL ??= await chatPostgresUrl();
  const server = await startTestServer({
    env,
    features: async (context) => [await createChatFeature(context, options.overrides)],
  });
  const token = (userId: string) => signLocalToken(testJwtSecret, { userId });
  const as = chatClientFor(server.url, token);
  return { ...server, as, token, events: async (userId) => openEvents(server.url, await token(userId)) };
}

/** Calls of the chat API at `baseUrl` as a user, with the token `token` makes for the user. */
export function chatClientFor(
  baseUrl: string,
  token: (userId: string) => Promise<string>,
): (userId: string) => ChatClient {
  return (userId) =>
    async (method, path, call = {}) => {
      const headers: Record<string, string> = { ...call.headers };
      if (!call.anonymous) headers.authorization = `Bearer ${await token(userId)}`;
      let body: Uint8Array | string | undefined = call.body;
      if (call.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(call.json);
      }
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const isJson = response.headers.get('content-type')?.includes('application/json');
      return {
        status: response.status,
        headers: response.headers,
        bytes,
        body: isJson ? JSON.parse(bytes.toString()) : bytes.toString(),
      };
    };
}

/** Every frame any {@link openEvents} connection of this test file received, in order of arrival. */
export const receivedFrames: JsonObject[] = [];

/** A `/events` connection that records every message. */
export interface EventsClient {
  socket: WebSocket;
  /** Headers of the upgrade response (a proxy in front may say which server took the socket). */
  upgradeHeaders: Record<string, string | string[] | undefined>;
  messages: JsonObject[];
  /** Resolves with the first message (already received or coming) matching `predicate`. */
  next(predicate: (message: JsonObject) => boolean, timeoutMs?: number): Promise<JsonObject>;
  close(): Promise<void>;
}

/** Opens `/events` with a token (and `query`, e.g. `?queueId=...`) and waits for `websocketConnected`. */
export async function openEvents(baseUrl: string, token: string, query = ''): Promise<EventsClient> {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/events${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const messages: JsonObject[] = [];
  let upgradeHeaders: EventsClient['upgradeHeaders'] = {};
  socket.once('upgrade', (response) => {
    upgradeHeaders = response.headers;
  });
  const waiters: {
    predicate: (message: JsonObject) => boolean;
    resolve: (message: JsonObject) => void;
  }[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as JsonObject;
    messages.push(message);
    receivedFrames.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const next = (predicate: (message: JsonObject) => boolean, timeoutMs = 5000) => {
    const found = messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching event arrived')), timeoutMs);
      waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  await next((message) => message.type === 'websocketConnected');
  return {
    socket,
    upgradeHeaders,
    messages,
    next,
    close: () =>
      new Promise<void>((resolve) => {
        if (socket.readyState === socket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      }),
  };
}

/** Fresh user ids for one test. */
export function users<const Names extends string>(...names: Names[]): Record<Names, string> {
  return Object.fromEntries(names.map((name) => [name, randomUUID()])) as Record<Names, string>;
}

/** A tiny valid PNG (1x1). */
export const onePixelPng = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

/** Escapes text the way the original's clients send `fileName` headers: `\uXXXX` per UTF-16 unit. */
export function unicodeEscape(text: string): string {
  return Array.from({ length: text.length }, (_, index) => text.charCodeAt(index))
    .map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`)
    .join('');
}
