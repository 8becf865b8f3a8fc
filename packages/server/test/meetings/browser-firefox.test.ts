import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSfu, type Sfu } from '@collab-suite/webrtc-sfu';
import type { Browser as ChromiumBrowser } from 'playwright-core';
import puppeteer, { type Browser as FirefoxBrowser } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createSfuMediaServer } from '../../src/meetings/sfu-media-server.js';
import { sfuOptions } from '../../src/meetings/sfu-options.js';
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
import { chromiumScreen, expectChromiumFollowsFirefoxLayers } from './firefox-simulcast-check.js';
import { type EvaluatingPage, type MeetingStats, pollMeetingStats } from './meeting-page-probe.js';

/**
 * Firefox and Chromium in one meeting through the meeting page: headless Firefox ESR (Debian's
 * `firefox-esr`, driven over WebDriver BiDi by puppeteer-core) with its fake camera and microphone
 * and headless Chromium with its fake devices, inside a private network namespace
 * (browser-namespace-support.ts). Each must receive the other's audio and decoded video: Firefox
 * offers and answers SDP, numbers simulcast layers and sends RTCP differently from Chromium.
 * Firefox publishes its camera with the page's three simulcast encodings (and, unlike Chromium,
 * lists their SSRCs in its offer): every encoding Firefox sends, two or more, must be an active
 * layer at the SFU, sized by its keyframes, and Chromium, watching Firefox in a tile that asks for
 * high quality (device pixel ratio 2), must decode the top layer, the lowest once its tile shrinks
 * (the page asks for low quality) and the top again once the tile is back, the SFU counting the
 * layer switches. The server runs the SFU in this process (not on its worker thread) so that the
 * test can read the layers; the steps and their times are printed.
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

/** What the run inside the namespace writes for the outer one: each page's stats, and the simulcast figures so far. */
interface RunReport {
  browsers: Record<string, BrowserResult>;
  simulcast: string[];
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
    'each browser receives the other one audio (not silent) and video (decoded frames), and Chromium is switched between the simulcast layers of Firefox camera, inside a private network namespace',
    async () => {
      if (missing !== undefined) throw new Error(`the Firefox meeting test cannot run: ${missing}`);
      const folder = mkdtempSync(path.join(tmpdir(), 'meeting-firefox-'));
      const resultFile = path.join(folder, 'result.json');
      try {
        const run = await runInNamespace(
          import.meta.url,
          { MEETING_BROWSER_RESULT: resultFile },
          { defaultRoute: true },
        );
        const report: RunReport = existsSync(resultFile)
          ? JSON.parse(readFileSync(resultFile, 'utf8'))
          : { browsers: {}, simulcast: [] };
        console.info('Firefox and Chromium meeting results', JSON.stringify(Object.values(report.browsers)));
        console.info(`Firefox simulcast figures: ${report.simulcast.join('; ')}`);
        expectInnerRunPassed(run);
        expect(Object.values(report.browsers).map((result) => result.browser)).toEqual([
          'firefox',
          'chromium',
        ]);
        const [firefoxResult, chromiumResult] = Object.values(report.browsers);
        for (const result of [firefoxResult, chromiumResult]) {
          expect(result?.framesDecoded, result?.status).toBeGreaterThan(10);
          expect(result?.audioPacketsReceived, result?.status).toBeGreaterThan(50);
        }
        expect(chromiumResult?.remoteAudioLevel, chromiumResult?.status).toBeGreaterThan(0.01);
        expect(report.simulcast.at(-1)).toMatch(/^Chromium back on the top layer/);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    300_000,
  );

  it.runIf(inNamespace)(
    '(inside the namespace) joins, publishes and receives in Firefox and Chromium; Chromium follows its tile size across Firefox layers',
    async () => {
      // The server's own SFU options, on an SFU in this process, whose routers the test can read.
      const sfu: Sfu = createSfu(sfuOptions(loadConfig({})));
      const server = await startChatServer('sqlite', { overrides: { media: createSfuMediaServer(sfu) } });
      let firefox: FirefoxBrowser | undefined;
      let chromium: ChromiumBrowser | undefined;
      const report: RunReport = { browsers: {}, simulcast: [] };
      const save = () => {
        if (process.env.MEETING_BROWSER_RESULT)
          writeFileSync(process.env.MEETING_BROWSER_RESULT, JSON.stringify(report));
      };
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
        const chromiumPage = await chromium.newPage(chromiumScreen);
        forwardConsole(chromiumPage, 'chromium');
        await chromiumPage.goto(await pageUrl(bob));
        await chromiumPage.waitForSelector('body[data-ready]', { timeout: 60_000 });
        expect(
          await chromiumPage.getAttribute('body', 'data-ready'),
          (await chromiumPage.textContent('#status')) ?? '',
        ).toBe('true');

        report.browsers = {
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
        save();
        const results = report.browsers;
        for (const result of Object.values(results)) {
          expect(result.framesDecoded, `${result.browser}: ${result.status}`).toBeGreaterThan(10);
          expect(result.audioPacketsReceived, `${result.browser}: ${result.status}`).toBeGreaterThan(50);
        }
        expect(results[bob]?.remoteAudioLevel, results[bob]?.status).toBeGreaterThan(0.01);
        expect(results[alice]?.talkingSeen).toContain(bob);
        expect(results[bob]?.talkingSeen).toContain(alice);

        await expectChromiumFollowsFirefoxLayers({
          sfu,
          firefoxPage,
          chromiumPage,
          alice,
          bob,
          figures: report.simulcast,
          save,
        });
      } finally {
        await Promise.allSettled([firefox?.close(), chromium?.close()]);
        await server.stop();
      }
    },
    240_000,
  );
});
