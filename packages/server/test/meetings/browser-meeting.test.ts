import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startChatServer, users } from '../chat/chat-test-support.js';
import {
  expectInnerRunPassed,
  forwardConsole,
  inNamespace,
  launchChromium,
  missingPrerequisite,
  mustRun,
  runInNamespace,
} from './browser-namespace-support.js';
import { type MeetingStats, pollMeetingStats } from './meeting-page-probe.js';

/**
 * Two headless Chromium instances with fake camera and microphone join one meeting through the
 * meeting page, inside a private network namespace (browser-namespace-support.ts): the server, the
 * SFU and both browsers live there, and no packet leaves it.
 */
const missing = missingPrerequisite();

type BrowserResult = MeetingStats;

describe('the meeting page in two headless Chromium instances', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'each browser receives the other one audio (not silent) and video (decoded frames), inside a private network namespace',
    async () => {
      if (missing !== undefined) throw new Error(`the browser meeting test cannot run: ${missing}`);
      const folder = mkdtempSync(path.join(tmpdir(), 'meeting-browser-'));
      const resultFile = path.join(folder, 'result.json');
      try {
        expectInnerRunPassed(await runInNamespace(import.meta.url, { MEETING_BROWSER_RESULT: resultFile }));
        const results = JSON.parse(readFileSync(resultFile, 'utf8')) as Record<string, BrowserResult>;
        console.info('browser meeting results', JSON.stringify(Object.values(results)));
        const [first, second] = Object.keys(results);
        expect(Object.keys(results)).toHaveLength(2);
        for (const [userId, result] of Object.entries(results)) {
          expect(result.framesDecoded).toBeGreaterThan(10);
          expect(result.remoteAudioLevel).toBeGreaterThan(0.01);
          expect(result.talkingSeen).toContain(userId === first ? second : first);
        }
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    240_000,
  );

  it.runIf(inNamespace)(
    '(inside the namespace) joins, publishes and receives in both browsers',
    async () => {
      const server = await startChatServer('sqlite');
      const browsers: Browser[] = [];
      try {
        const { alice, bob, carol } = users('alice', 'bob', 'carol');
        const room = await server.as(alice)('POST', '/rooms', {
          json: { type: 'group', name: 'Browsers', membersIds: [bob, carol] },
        });
        const pageUrl = async (userId: string) =>
          `${server.url}/examples/meeting/#token=${await server.token(userId)}&room=${room.body.id}&autojoin=1&camera=1`;
        const pages: Record<string, Page> = {};
        for (const userId of [alice, bob]) {
          const browser = await launchChromium();
          browsers.push(browser);
          const page = await browser.newPage();
          forwardConsole(page, userId.slice(0, 8));
          await page.goto(await pageUrl(userId));
          await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
          expect(
            await page.getAttribute('body', 'data-ready'),
            (await page.textContent('#status')) ?? '',
          ).toBe('true');
          pages[userId] = page;
        }
        const results: Record<string, BrowserResult> = {};
        for (const [userId, page] of Object.entries(pages)) {
          const other = userId === alice ? bob : alice;
          results[userId] = await pollMeetingStats(page, other, { audible: true, timeoutMs: 45_000 });
          await page.screenshot({
            path: path.join(tmpdir(), `meeting-${userId === alice ? 'alice' : 'bob'}.png`),
          });
        }
        if (process.env.MEETING_BROWSER_RESULT)
          writeFileSync(process.env.MEETING_BROWSER_RESULT, JSON.stringify(results));
        for (const result of Object.values(results)) {
          expect(result.framesDecoded, result.status).toBeGreaterThan(10);
          expect(result.remoteAudioLevel, result.status).toBeGreaterThan(0.01);
        }
        expect(results[alice]?.talkingSeen).toContain(bob);
        expect(results[bob]?.talkingSeen).toContain(alice);
      } finally {
        await Promise.allSettled(browsers.map((browser) => browser.close()));
        await server.stop();
      }
    },
    180_000,
  );
});
