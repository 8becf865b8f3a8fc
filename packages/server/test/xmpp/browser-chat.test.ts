import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import type { ChatFeature } from '../../src/chat/chat-feature.js';
import { type ChatClient, chatClientFor } from '../chat/chat-test-support.js';
import { type TestServer, testJwtSecret } from '../support/test-server.js';
import { connectXmppClient } from './xmpp-test-client.js';
import { startChatServer, startDocumentedEjabberd, xmppEnvironment } from './xmpp-test-server.js';

/**
 * Two headless Chromium pages (examples/chat-web, served by the server) chat over XMPP over
 * WebSocket with a private ejabberd, and one scrolls back through the room's MAM history. Names
 * come from a CHAT_PAGE_DIRECTORY file.
 */
/** The page's DOM as the callbacks that run in the browser use it (this package has no DOM types). */
interface PageDocument {
  querySelector(selector: string): { textContent: string | null; hidden?: boolean } | null;
  querySelectorAll(selector: string): { length: number } & Iterable<{ textContent: string | null }>;
}
type PageGlobals = { document: PageDocument };

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** CI (`CI=true`) has Chromium: there a missing one fails instead of skipping. */
const runnable = existsSync(chromiumPath) || process.env.CI === 'true';

describe.runIf(runnable)('the chat page in headless Chromium', () => {
  let ejabberd: PrivateEjabberd;
  let server: TestServer;
  let feature: ChatFeature;
  let as: (userId: string) => ChatClient;
  const browsers: Browser[] = [];
  const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()];
  const token = (userId: string) => signLocalToken(testJwtSecret, { userId, xmppDomain: ejabberd.domain });
  const directoryFolder = mkdtempSync(path.join(tmpdir(), 'chat-page-directory-'));

  beforeAll(async () => {
    const directoryFile = path.join(directoryFolder, 'names.json');
    writeFileSync(directoryFile, JSON.stringify({ [alice]: 'Ana', [bob]: 'Bo', [carol]: 'Cy' }));
    ejabberd = await startDocumentedEjabberd({ jwtSecret: testJwtSecret });
    ({ server, feature } = await startChatServer({
      ...xmppEnvironment(ejabberd),
      CHAT_XMPP_WEBSOCKET_URL: ejabberd.webSocketUrl,
      CHAT_PAGE_DIRECTORY: directoryFile,
    }));
    as = chatClientFor(server.url, token);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled(browsers.map((browser) => browser.close()));
    await server?.stop();
    await ejabberd?.stop();
    rmSync(directoryFolder, { recursive: true, force: true });
  });

  const openPage = async (userId: string, roomId: string): Promise<Page> => {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    browsers.push(browser);
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') console.error(`[${userId.slice(0, 8)}] ${message.text()}`);
    });
    await page.goto(`${server.url}/examples/chat/#token=${await token(userId)}`);
    await page.click(`button[data-room-id="${roomId}"]`, { timeout: 30_000 });
    await page.waitForFunction(
      () =>
        (globalThis as unknown as PageGlobals).document
          .querySelector('#status')
          ?.textContent?.startsWith('In '),
      null,
      {
        timeout: 30_000,
      },
    );
    return page;
  };
  const texts = (page: Page) =>
    page.$$eval('#messages li.message', (items) => items.map((item) => item.textContent ?? ''));

  it('lets two users chat by name with times, day breaks and system sentences, scroll back, see an attachment and a forward, and a new room appear live with its unread count', async () => {
    const directoryUrl = `${server.url}/examples/chat/directory.json`;
    expect((await fetch(directoryUrl)).status).toBe(401);
    const directory = await fetch(directoryUrl, { headers: { authorization: `Bearer ${await token(bob)}` } });
    expect(await directory.json()).toEqual({ names: { [alice]: 'Ana', [bob]: 'Bo', [carol]: 'Cy' } });
    const created = await as(alice)('POST', '/rooms', {
      json: { type: 'group', name: 'Browser room', membersIds: [bob, carol] },
    });
    expect(created.status).toBe(201);
    const roomId = created.body.id as string;
    await feature.xmppMirror?.idle();
    const carolXmpp = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId: carol,
      token: await token(carol),
    });
    const roomJid = `${roomId}@${ejabberd.mucDomain}`;
    await carolXmpp.join(roomJid);
    for (let index = 1; index <= 25; index++)
      await carolXmpp.say(roomJid, `old-${index}`, `old message ${index}`);
    await carolXmpp.next((stanza) => stanza.attrs.id === 'old-25');
    await carolXmpp.stop();

    const [alicePage, bobPage] = [await openPage(alice, roomId), await openPage(bob, roomId)];
    // The newest 20 of the archive first, then the rest with "Older messages".
    await bobPage.waitForFunction(
      () =>
        (globalThis as unknown as PageGlobals).document.querySelectorAll('#messages li.message').length ===
        20,
    );
    expect((await texts(bobPage)).at(-1)).toContain('old message 25');
    expect((await texts(bobPage)).some((text) => text.endsWith('old message 1'))).toBe(false);
    await bobPage.click('#older');
    await bobPage.waitForFunction(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#messages li')].some((item) =>
        item.textContent?.endsWith('old message 1'),
      ),
    );
    // System messages as sentences with names from the directory, senders by name, every message
    // with its time, and a day break before the first.
    const shown = await texts(bobPage);
    expect(shown.filter((text) => text.endsWith('Ana added Bo'))).toHaveLength(1);
    expect(shown.filter((text) => text.endsWith('Ana added Cy'))).toHaveLength(1);
    expect(shown.some((text) => text.includes('memberAdded'))).toBe(false);
    const senders = await bobPage.$$eval('#messages li.message .sender', (items) =>
      items.map((item) => item.textContent),
    );
    expect(new Set(senders)).toEqual(new Set(['Cy']));
    const times = await bobPage.$$eval('#messages li.message', (items) =>
      items.map((item) => {
        const time = item.querySelector('time');
        return { datetime: time?.getAttribute('datetime') ?? '', text: time?.textContent ?? '' };
      }),
    );
    expect(times).toHaveLength(shown.length);
    for (const time of times) {
      expect(Number.isNaN(Date.parse(time.datetime))).toBe(false);
      expect(time.text).toMatch(/\d{1,2}[:.]\d{2}/);
    }
    expect(await bobPage.$eval('#messages li:first-child', (item) => item.className)).toBe('day');

    await alicePage.fill('#text', 'hello from the browser');
    await alicePage.click('#send-form button');
    await bobPage.waitForFunction(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#messages li')].some((item) =>
        item.textContent?.includes('hello from the browser'),
      ),
    );
    await bobPage.fill('#text', 'hello back');
    await bobPage.click('#send-form button');
    await alicePage.waitForFunction(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#messages li')].some((item) =>
        item.textContent?.includes('hello back'),
      ),
    );

    const upload = await as(alice)('POST', `/rooms/${roomId}/attachments`, {
      body: 'bytes',
      headers: { fileName: 'plan.txt', mimeType: 'text/plain', 'content-type': 'application/octet-stream' },
    });
    expect(upload.status).toBe(201);
    await bobPage.waitForSelector(`#messages li[data-attachment-id="${upload.body.id}"]`, {
      timeout: 15_000,
    });

    const forward = await as(alice)('POST', `/rooms/${roomId}/forward`, {
      json: [
        {
          originalMessage:
            "<message xmlns='jabber:client' type='groupchat' id='x1'><body>worth repeating</body></message>",
          originalMessageSentAt: '2024-05-01T10:00:00.000Z',
          description: 'look',
        },
      ],
    });
    expect(forward.status).toBe(204);
    await bobPage.waitForFunction(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#messages li')].some(
        (item) =>
          item.textContent?.includes('forwarded (2024-05-01T10:00:00.000Z): worth repeating') === true,
      ),
    );

    // A room made meanwhile appears live (from /events) and counts its unread messages.
    const later = await as(alice)('POST', '/rooms', {
      json: { type: 'group', name: 'Later room', membersIds: [bob, carol] },
    });
    expect(later.status).toBe(201);
    const laterId = later.body.id as string;
    await bobPage.waitForSelector(`button[data-room-id="${laterId}"]`, { timeout: 15_000 });
    await feature.xmppMirror?.idle();
    const carolAgain = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId: carol,
      token: await token(carol),
    });
    const laterJid = `${laterId}@${ejabberd.mucDomain}`;
    await carolAgain.join(laterJid);
    await carolAgain.say(laterJid, 'later-1', 'are you there?');
    await carolAgain.next((stanza) => stanza.attrs.id === 'later-1');
    await carolAgain.stop();
    const badge = `button[data-room-id="${laterId}"] .unread`;
    await bobPage.waitForSelector(badge, { state: 'visible', timeout: 15_000 });
    expect(Number(await bobPage.$eval(badge, (item) => item.textContent))).toBeGreaterThanOrEqual(1);
    await bobPage.click(`button[data-room-id="${laterId}"]`);
    await bobPage.waitForFunction(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#messages li')].some((item) =>
        item.textContent?.endsWith('Cyare you there?'),
      ),
    );
    await bobPage.waitForSelector(badge, { state: 'hidden' });
  }, 120_000);
});
