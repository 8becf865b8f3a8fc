import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { createChatFeature } from '../../src/chat/chat-feature.js';
import { createSamlFeature } from '../../src/saml/saml-feature.js';
import { users } from '../chat/chat-test-support.js';
import { idpMetadata, testCertificate } from '../saml/saml-test-support.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';
import { send } from './security-test-support.js';

/**
 * The review's attack in headless Chromium: an admin's browser holds the ZM_AUTH_TOKEN cookie of
 * the server (127.0.0.1:P); a page on a second loopback port (same site, other origin) posts a
 * text/plain form carrying IdP metadata and opens /events. Both are refused, while the same calls
 * from a page of the server's own origin work.
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** CI (`CI=true`) has Chromium: there a missing one fails instead of skipping. */
const runnable = existsSync(chromiumPath) || process.env.CI === 'true';
/** One browser step's bound, and the whole test's: a busy machine (the full suite) slows Chromium. */
const stepTimeoutMs = 30_000;
const testTimeoutMs = 120_000;

/**
 * `work`, or an error naming `step` once it took over {@link stepTimeoutMs}: Playwright bounds
 * navigation and waiting, but not `newPage`, `evaluate` or `close`.
 */
function within<T>(step: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${step}: no answer within ${stepTimeoutMs} ms`)),
      stepTimeoutMs,
    );
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}

/** The attacker's page: a form that posts `body` as text/plain, and a WebSocket to `/events`. */
function attackerPage(target: string, body: string): string {
  const separator = body.indexOf('=');
  const attribute = (text: string) =>
    text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
  return `<!doctype html><html><body>
<form id="forge" method="POST" enctype="text/plain" action="${target}/admin/auth/saml/victim.example">
  <input type="hidden" name="${attribute(body.slice(0, separator))}" value="${attribute(body.slice(separator + 1))}">
</form>
<script>
  window.socketResult = new Promise((resolve) => {
    const socket = new WebSocket('${target.replace('http:', 'ws:')}/events');
    socket.onmessage = (event) => resolve(JSON.parse(event.data).type);
    socket.onclose = (event) => resolve('closed ' + event.code);
  });
</script>
</body></html>`;
}

describe.runIf(runnable)('a page on another origin, with the victim’s cookie, in headless Chromium', () => {
  let server: TestServer;
  let attacker: Server;
  let attackerUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let adminToken: string;
  let metadata: string;
  const { admin } = users('admin');
  const storedIdp = async () => {
    const answer = await send(`${server.url}/admin/auth/saml/victim.example?raw=true`, 'GET', {
      authorization: `Bearer ${adminToken}`,
    });
    return JSON.parse(answer.text)['idp.entityid'] as string | undefined;
  };

  beforeAll(async () => {
    server = await startTestServer({
      features: async (featureContext) => [
        await createChatFeature(featureContext),
        await createSamlFeature(featureContext),
      ],
    });
    adminToken = await signLocalToken(testJwtSecret, { userId: admin, admin: true });
    metadata = idpMetadata((await testCertificate()).certificatePem, 'https://evil.example/idp');
    const page = attackerPage(server.url, metadata);
    attacker = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    context = await browser.newContext();
    // The cookie as the web client stores it: for the server's host, SameSite unset (Lax).
    await context.addCookies([{ name: 'ZM_AUTH_TOKEN', value: adminToken, url: server.url }]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
    await server?.stop();
  });

  it(
    'refuses the forged form (403, IdP unchanged) and the WebSocket of the other origin',
    async () => {
      const page = await within('open a page', context.newPage());
      // Every step has its own bound (generous: the full suite runs several browsers on two cores),
      // so a stall names the step instead of ending as the test's timeout.
      page.setDefaultTimeout(stepTimeoutMs);
      try {
        await page.goto(`${attackerUrl}/`);
        expect(
          await within(
            'read the WebSocket result',
            page.evaluate(
              (bound) =>
                Promise.race([
                  (globalThis as unknown as { socketResult: Promise<string> }).socketResult,
                  new Promise<string>((resolve) =>
                    setTimeout(() => resolve('no close within the bound'), bound),
                  ),
                ]),
              stepTimeoutMs - 1_000,
            ),
          ),
        ).toBe('closed 1006');
        const response = page.waitForResponse((candidate) =>
          candidate.url().includes('/admin/auth/saml/victim.example'),
        );
        // Submitted after the call returns: an evaluate whose own call navigates the page away may
        // never settle.
        await within(
          'submit the form',
          page.evaluate(() => {
            setTimeout(() =>
              (
                globalThis as unknown as { document: { getElementById(id: string): { submit(): void } } }
              ).document
                .getElementById('forge')
                .submit(),
            );
          }),
        );
        const answer = await response;
        expect(answer.request().headers().cookie ?? (await answer.request().allHeaders()).cookie).toContain(
          'ZM_AUTH_TOKEN=',
        );
        expect(answer.status()).toBe(403);
        expect(await storedIdp()).toBeUndefined();
      } finally {
        await within('close the page', page.close()).catch(() => {});
      }
    },
    testTimeoutMs,
  );

  it(
    'lets a page of the server’s own origin import XML and open /events with the cookie',
    async () => {
      const page = await within('open a page', context.newPage());
      page.setDefaultTimeout(stepTimeoutMs);
      await page.goto(`${server.url}/examples/meeting/`);
      const result = await within(
        'import and connect from the own origin',
        page.evaluate(
          async ({ xml, events }) => {
            const imported = await fetch('/admin/auth/saml/victim.example', {
              method: 'POST',
              headers: { 'content-type': 'application/xml' },
              body: xml,
            });
            const socketResult = await new Promise<string>((resolve) => {
              const socket = new WebSocket(events);
              socket.onmessage = (event) => resolve(JSON.parse(event.data).type);
              socket.onclose = (event) => resolve(`closed ${event.code}`);
            });
            return { status: imported.status, socketResult };
          },
          { xml: metadata, events: `${server.url.replace('http:', 'ws:')}/events` },
        ),
      );
      expect(result).toEqual({ status: 200, socketResult: 'websocketConnected' });
      expect(await storedIdp()).toBe('https://evil.example/idp');
      await within('close the page', page.close()).catch(() => {});
    },
    testTimeoutMs,
  );
});
