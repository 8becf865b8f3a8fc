import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startChatServer, users } from '../chat/chat-test-support.js';

/**
 * Two headless Chromium instances with fake camera and microphone join one meeting through the
 * meeting page. Chromium gathers no candidates on loopback, so the test runs itself again inside a
 * private network namespace with a veth pair (10.77.0.1/24, 10.77.0.2/24): the server, the SFU and
 * both browsers live there, and no packet leaves it.
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const inNamespace = process.env.MEETING_NETNS_INNER === '1';
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const thisFile = path.relative(repositoryRoot, fileURLToPath(import.meta.url));
/** Why this machine cannot run the test (root, Chromium, a network namespace), or undefined. */
function missingPrerequisite(): string | undefined {
  if (process.getuid?.() !== 0) return 'it must run as root to make a network namespace';
  if (!existsSync(chromiumPath)) return `there is no Chromium at ${chromiumPath} (set CHROMIUM_PATH)`;
  if (spawnSync('unshare', ['--net', 'true']).status !== 0) return '`unshare --net` is not permitted here';
  return undefined;
}
const missing = inNamespace ? undefined : missingPrerequisite();
/** CI (`CI=true`, set by .ci/run) has every prerequisite: there a missing one fails instead of skipping. */
const mustRun = process.env.CI === 'true';

interface BrowserResult {
  framesDecoded: number;
  remoteAudioLevel: number;
  talkingSeen: string[];
  status: string;
}

const namespaceSetup = [
  'ip link set lo up',
  'ip link add v0 type veth peer name v1',
  'ip addr add 10.77.0.1/24 dev v0',
  'ip addr add 10.77.0.2/24 dev v1',
  'ip link set v0 up',
  'ip link set v1 up',
].join(' && ');

function runInNamespace(resultFile: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      'unshare',
      ['--net', 'sh', '-c', `${namespaceSetup} && exec node_modules/.bin/vitest run ${thisFile}`],
      {
        cwd: repositoryRoot,
        env: { ...process.env, MEETING_NETNS_INNER: '1', MEETING_BROWSER_RESULT: resultFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Playwright gives each launch a fresh profile of its own. */
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

async function pollStats(page: Page, otherUserId: string, timeoutMs: number): Promise<BrowserResult> {
  const deadline = Date.now() + timeoutMs;
  const talkingSeen = new Set<string>();
  let last: BrowserResult = { framesDecoded: 0, remoteAudioLevel: 0, talkingSeen: [], status: '' };
  while (Date.now() < deadline) {
    const stats = await page.evaluate(async () => {
      const scope = globalThis as unknown as {
        meetingPage: {
          stats(): Promise<{ framesDecoded: number; remoteAudioLevel: number }>;
          talking(): string[];
        };
        document: { getElementById(id: string): { textContent: string | null } | null };
      };
      const { framesDecoded, remoteAudioLevel } = await scope.meetingPage.stats();
      const status = scope.document.getElementById('status')?.textContent ?? '';
      return { framesDecoded, remoteAudioLevel, talking: scope.meetingPage.talking(), status };
    });
    for (const userId of stats.talking) talkingSeen.add(userId);
    last = {
      framesDecoded: stats.framesDecoded,
      remoteAudioLevel: stats.remoteAudioLevel,
      talkingSeen: [...talkingSeen],
      status: stats.status,
    };
    if (last.framesDecoded > 10 && last.remoteAudioLevel > 0.01 && talkingSeen.has(otherUserId)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

describe('the meeting page in two headless Chromium instances', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'each browser receives the other one audio (not silent) and video (decoded frames), inside a private network namespace',
    async () => {
      if (missing !== undefined) throw new Error(`the browser meeting test cannot run: ${missing}`);
      const folder = mkdtempSync(path.join(tmpdir(), 'meeting-browser-'));
      const resultFile = path.join(folder, 'result.json');
      try {
        const { code, output } = await runInNamespace(resultFile);
        if (code !== 0)
          throw new Error(`the run inside the namespace failed (exit ${code}):\n${output.slice(-6000)}`);
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
          const browser = await chromium.launch({
            executablePath: chromiumPath,
            headless: true,
            args: chromiumArgs,
          });
          browsers.push(browser);
          const page = await browser.newPage();
          page.on('console', (message) => {
            if (message.type() === 'error') console.error(`[${userId.slice(0, 8)}] ${message.text()}`);
          });
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
          results[userId] = await pollStats(page, other, 45_000);
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
