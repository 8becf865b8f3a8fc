import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { ConfigError, type XmppConfig } from '../config.js';
import { pageSecurityHeaders } from '../http/page-security-headers.js';

/** Where {@link createChatPageRouter} serves the chat page. */
export const chatPagePath = '/examples/chat';

/** The folder of `examples/chat-web`, from the sources or from `dist`. */
function chatPageFolder(): string | undefined {
  const candidates = ['../../../../examples/chat-web/', '../../../examples/chat-web/'];
  return candidates
    .map((candidate) => fileURLToPath(new URL(candidate, import.meta.url)))
    .find((folder) => existsSync(`${folder}index.html`));
}

/**
 * The browser bundle of @xmpp/client installed beside the page (pnpm links the page's own
 * dependency into its node_modules; the package's `exports` do not list the bundle), if any.
 */
function xmppBundle(folder: string): string | undefined {
  const entry = path.join(folder, 'node_modules', '@xmpp', 'client', 'dist', 'xmpp.min.js');
  return existsSync(entry) ? entry : undefined;
}

const directorySchema = z.record(z.string().uuid(), z.string().min(1).max(200));

/**
 * The display names of `file` (`{ "<userId>": "<name>" }`), read once at start.
 * @throws ConfigError when the file cannot be read or is not such an object
 */
function readDirectory(file: string): Record<string, string> {
  try {
    const parsed = directorySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    return Object.fromEntries(Object.entries(parsed).map(([id, name]) => [id.toLowerCase(), name]));
  } catch (error) {
    throw new ConfigError(
      `expected CHAT_PAGE_DIRECTORY to be a JSON file like {"<userId>": "<name>"} but ${file} failed: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}

/** What the chat page needs besides XMPP. */
export interface ChatPageOptions {
  /** The file of display names (CHAT_PAGE_DIRECTORY); none: the page shows token names and ids. */
  directoryFile: string | undefined;
  /** Authenticates the caller of `directory.json` (401 otherwise). */
  requireUser: RequestHandler;
}

/**
 * `/examples/chat/`: the chat page (no auth: it asks for a token), the @xmpp/client browser bundle
 * at `vendor/xmpp.min.js`, `config.json` telling the page where XMPP over WebSocket is
 * (`xmpp: null` when the server has no XMPP mirror), and `directory.json`, the display names, to
 * authenticated callers only. @throws ConfigError when the directory file is unreadable
 */
export function createChatPageRouter(xmpp: XmppConfig | undefined, options: ChatPageOptions): Router {
  const router = express.Router();
  const folder = chatPageFolder();
  if (folder === undefined) return router;
  const xmppSocket = xmpp?.webSocketUrl === undefined ? undefined : new URL(xmpp.webSocketUrl);
  router.use(
    chatPagePath,
    pageSecurityHeaders({
      connectSources: xmppSocket ? [`${xmppSocket.protocol}//${xmppSocket.host}`] : [],
      imageSources: ['data:'],
    }),
  );
  const names = options.directoryFile === undefined ? {} : readDirectory(options.directoryFile);
  router.get(`${chatPagePath}/directory.json`, options.requireUser, (_request, response) => {
    response.set('cache-control', 'private, no-store').json({ names });
  });
  router.get(`${chatPagePath}/config.json`, (_request, response) => {
    response.json({
      xmpp: xmpp?.webSocketUrl
        ? { webSocketUrl: xmpp.webSocketUrl, domain: xmpp.domain, mucDomain: xmpp.mucDomain }
        : null,
    });
  });
  const bundle = xmppBundle(folder);
  if (bundle !== undefined) {
    router.get(`${chatPagePath}/vendor/xmpp.min.js`, (_request, response) => {
      response.type('text/javascript').sendFile(bundle);
    });
  }
  router.use(chatPagePath, express.static(folder, { index: 'index.html' }));
  return router;
}
