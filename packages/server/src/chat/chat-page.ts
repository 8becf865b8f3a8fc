import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import type { XmppConfig } from '../config.js';
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

/**
 * `/examples/chat/`: the chat page (no auth: it asks for a token), the @xmpp/client browser bundle
 * at `vendor/xmpp.min.js`, and `config.json` telling the page where XMPP over WebSocket is
 * (`xmpp: null` when the server has no XMPP mirror).
 */
export function createChatPageRouter(xmpp: XmppConfig | undefined): Router {
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
