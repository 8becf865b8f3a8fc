import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser as ChromiumBrowser } from 'playwright-core';
import puppeteer, { type Browser as FirefoxBrowser } from 'puppeteer-core';
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
import { type EvaluatingPage, type MeetingStats, pollMeetingStats } from './meeting-page-probe.js';

/**
 * Firefox and Chromium in one meeting through the meeting page: headless Firefox ESR (Debian's
 * `firefox-esr`, driven over WebDriver BiDi by puppeteer-core) with its fake camera and microphone
 * and headless Chromium with its fake devices, inside a private network namespace
 * (browser-namespace-support.ts). Each must receive the other's audio and decoded video: Firefox
 * offers and answers SDP, numbers simulcast layers and sends RTCP differently from Chromium.
 */
const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const missing =
  missingPrerequisite() ??
  (inNamespace || existsSync(firefoxPath)
    ? undefined
    : `there is no Firefox at ${firefoxPath} (set FIREFOX_PATH)`);

/** A page's stats, and which browser read them. */
interface BrowserResult extends MeetingStats {
  browser: string;
}

/** Headless Firefox with fake devices, no permission prompts and host candidates as they are. */
function launchFirefox(): Promise<FirefoxBrowser> {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    extraPrefsFirefox: {
      'media.navigator.streams.fake': true,
      'media.navigator.permission.disabled': true,
      'media.autoplay.default': 0,
      'media.autoplay.blocking_policy': 0,
      'media.peerconnection.ice.obfuscate_host_addresses': false,
      // Nothing that calls outside the namespace.
      'network.captive-portal-service.enabled': false,
      'app.update.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
    },
  });
}

describe('the meeting page in Firefox and Chromium', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'each browser receives the other one audio (not silent) and video (decoded frames), inside a private network namespace',
    async () => {
      if (missing !== undefined) throw new Error(`the Firefox meeting test cannot run: ${missing}`);
      const folder = mkdtempSync(path.join(tmpdir(), 'meeting-firefox-'));
      const resultFile = path.join(folder, 'result.json');
      try {
        expectInnerRunPassed(
          await runInNamespace(
            import.meta.url,
            { MEETING_BROWSER_RESULT: resultFile },
            { defaultRoute: true },
          ),
        );
        const results = JSON.parse(readFileSync(resultFile, 'utf8')) as Record<string, BrowserResult>;
        console.info('Firefox and Chromium meeting results', JSON.stringify(Object.values(results)));
        expect(Object.values(results).map((result) => result.browser)).toEqual(['firefox', 'chromium']);
        const [firefoxResult, chromiumResult] = Object.values(results);
        for (const result of [firefoxResult, chromiumResult]) {
          expect(result?.framesDecoded, result?.status).toBeGreaterThan(10);
          expect(result?.audioPacketsReceived, result?.status).toBeGreaterThan(50);
        }
        expect(chromiumResult?.remoteAudioLevel, chromiumResult?.status).toBeGreaterThan(0.01);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    240_000,
  );

  it.runIf(inNamespace)(
    '(inside the namespace) joins, publishes and receives in Firefox and Chromium',
    async () => {
      const server = await startChatServer('sqlite');
      let firefox: FirefoxBrowser | undefined;
      let chromium: ChromiumBrowser | undefined;
      try {
        const { alice, bob, carol } = users('alice', 'bob', 'carol');
        const room = await server.as(alice)('POST', '/rooms', {
          json: { type: 'group', name: 'Firefox and Chromium', membersIds: [bob, carol] },
        });
        const pageUrl = async (userId: string) =>
          `${server.url}/examples/meeting/#token=${await server.token(userId)}&room=${room.body.id}&autojoin=1&camera=1`;

        firefox = await launchFirefox();
        const firefoxPage = await firefox.newPage();
        firefoxPage.on('console', (message) => {
          if (message.type() === 'error') console.error(`[firefox] ${message.text()}`);
        });
        await firefoxPage.goto(await pageUrl(alice));
        await firefoxPage.waitForSelector('body[data-ready]', { timeout: 60_000 });
        const firefoxReady = await firefoxPage.evaluate(async () => {
          const page = (
            globalThis as unknown as {
              document: {
                body: { getAttribute(name: string): string | null };
                getElementById(id: string): { textContent: string | null } | null;
              };
            }
          ).document;
          return {
            ready: page.body.getAttribute('data-ready'),
            status: page.getElementById('status')?.textContent ?? '',
          };
        });
        expect(firefoxReady.ready, firefoxReady.status).toBe('true');

        chromium = await launchChromium();
        const chromiumPage = await chromium.newPage();
        forwardConsole(chromiumPage, 'chromium');
        await chromiumPage.goto(await pageUrl(bob));
        await chromiumPage.waitForSelector('body[data-ready]', { timeout: 60_000 });
        expect(
          await chromiumPage.getAttribute('body', 'data-ready'),
          (await chromiumPage.textContent('#status')) ?? '',
        ).toBe('true');

        const results: Record<string, BrowserResult> = {
          // Headless Firefox has no audio output here, and its Web Audio analyser reads silence: its
          // received audio counts in packets; Chromium's in level, from Firefox's microphone too.
          [alice]: {
            browser: 'firefox',
            ...(await pollMeetingStats(firefoxPage as unknown as EvaluatingPage, bob, {
              audible: false,
              timeoutMs: 60_000,
            })),
          },
          [bob]: {
            browser: 'chromium',
            ...(await pollMeetingStats(chromiumPage, alice, { audible: true, timeoutMs: 60_000 })),
          },
        };
        if (process.env.MEETING_BROWSER_RESULT)
          writeFileSync(process.env.MEETING_BROWSER_RESULT, JSON.stringify(results));
        for (const result of Object.values(results)) {
          expect(result.framesDecoded, `${result.browser}: ${result.status}`).toBeGreaterThan(10);
          expect(result.audioPacketsReceived, `${result.browser}: ${result.status}`).toBeGreaterThan(50);
        }
        expect(results[bob]?.remoteAudioLevel, results[bob]?.status).toBeGreaterThan(0.01);
        expect(results[alice]?.talkingSeen).toContain(bob);
        expect(results[bob]?.talkingSeen).toContain(alice);
      } finally {
        await Promise.allSettled([firefox?.close(), chromium?.close()]);
        await server.stop();
      }
    },
    180_000,
  );
});
