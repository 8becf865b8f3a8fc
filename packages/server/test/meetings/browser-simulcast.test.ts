import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSfu } from '@collab-suite/webrtc-sfu';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

/**
 * Headless Chromium publishes its fake camera with three simulcast encodings to the SFU (in this
 * process), and a second Chromium watches it, asking for low and then high quality: the SFU must
 * take the layers and switch the watcher between them without its decoder stopping. Chromium
 * gathers no candidates on loopback, so like browser-meeting.test.ts the test runs itself again
 * inside a private network namespace with a veth pair; no packet leaves it.
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const inNamespace = process.env.SIMULCAST_NETNS_INNER === '1';
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const thisFile = path.relative(repositoryRoot, fileURLToPath(import.meta.url));
function missingPrerequisite(): string | undefined {
  if (process.getuid?.() !== 0) return 'it must run as root to make a network namespace';
  if (!existsSync(chromiumPath)) return `there is no Chromium at ${chromiumPath} (set CHROMIUM_PATH)`;
  if (spawnSync('unshare', ['--net', 'true']).status !== 0) return '`unshare --net` is not permitted here';
  return undefined;
}
const missing = inNamespace ? undefined : missingPrerequisite();
const mustRun = process.env.CI === 'true';
const namespaceSetup = [
  'ip link set lo up',
  'ip link add v0 type veth peer name v1',
  'ip addr add 10.77.0.1/24 dev v0',
  'ip addr add 10.77.0.2/24 dev v1',
  'ip link set v0 up',
  'ip link set v1 up',
].join(' && ');
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

interface Inbound {
  width: number;
  framesDecoded: number;
}

/** Waits, in the page, until ICE gathering completes (no trickle ICE). */
const gatheredInPage = `new Promise((resolve) => {
  if (peer.iceGatheringState === 'complete') resolve();
  peer.addEventListener('icegatheringstatechange', () => peer.iceGatheringState === 'complete' && resolve());
})`;

async function publishOffer(page: Page): Promise<string> {
  return page.evaluate(`(async () => {
    const media = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720, frameRate: 24 } });
    const peer = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    globalThis.peer = peer;
    const transceiver = peer.addTransceiver(media.getVideoTracks()[0], {
      direction: 'sendonly',
      sendEncodings: [
        { rid: 'l', scaleResolutionDownBy: 4, maxBitrate: 150000 },
        { rid: 'm', scaleResolutionDownBy: 2, maxBitrate: 400000 },
        { rid: 'h', maxBitrate: 1200000 },
      ],
    });
    transceiver.setCodecPreferences(RTCRtpSender.getCapabilities('video').codecs.filter((c) => /vp8|rtx/i.test(c.mimeType)));
    await peer.setLocalDescription(await peer.createOffer());
    await ${gatheredInPage};
    return peer.localDescription.sdp;
  })()`);
}

async function answerInPage(page: Page, offer: string): Promise<string> {
  return page.evaluate(
    `(async (sdp) => {
      globalThis.peer ??= new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
      const peer = globalThis.peer;
      await peer.setRemoteDescription({ type: 'offer', sdp });
      await peer.setLocalDescription(await peer.createAnswer());
      await ${gatheredInPage};
      return peer.localDescription.sdp;
    })(${JSON.stringify(offer)})`,
  );
}

async function inbound(page: Page): Promise<Inbound> {
  return page.evaluate(`(async () => {
    let result = { width: 0, framesDecoded: 0 };
    (await globalThis.peer.getStats()).forEach((report) => {
      if (report.type === 'inbound-rtp' && report.kind === 'video')
        result = { width: report.frameWidth ?? 0, framesDecoded: report.framesDecoded ?? 0 };
    });
    return result;
  })()`);
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await read();
  }
  return last;
}

describe('simulcast from headless Chromium', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'a Chromium publisher sends layers and a Chromium watcher is switched between them by quality, inside a private network namespace',
    async () => {
      const child = spawn(
        'unshare',
        ['--net', 'sh', '-c', `${namespaceSetup} && exec node_modules/.bin/vitest run ${thisFile}`],
        {
          cwd: repositoryRoot,
          env: { ...process.env, SIMULCAST_NETNS_INNER: '1' },
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
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      if (code !== 0)
        throw new Error(`the run inside the namespace failed (exit ${code}):\n${output.slice(-6000)}`);
      expect(output).toMatch(/1 passed/);
    },
    240_000,
  );

  it.runIf(inNamespace)(
    '(inside the namespace) publishes with simulcast and switches the watcher between layers',
    async () => {
      const page = createServer((_request, response) => {
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><title>simulcast</title>');
      });
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      const pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
      const sfu = createSfu({
        ice: { hostAddresses: ['10.77.0.1'], onlyAddresses: ['10.77.0.1', '10.77.0.2'] },
        bandwidth: { allocationIntervalMs: 200, upgradeHoldMs: 1_000 },
      });
      const browsers: Browser[] = [];
      try {
        const router = sfu.createRouter('simulcast');
        const launch = async () => {
          const browser = await chromium.launch({
            executablePath: chromiumPath,
            headless: true,
            args: chromiumArgs,
          });
          browsers.push(browser);
          const opened = await browser.newPage();
          await opened.goto(pageUrl);
          return opened;
        };
        const publisherPage = await launch();
        const offer = await publishOffer(publisherPage);
        expect(offer).toMatch(/a=simulcast:send l;m;h/);
        const answer = await router.createSession('alice').publish('video', offer);
        await publisherPage.evaluate(
          `globalThis.peer.setRemoteDescription({ type: 'answer', sdp: ${JSON.stringify(answer)} })`,
        );
        const producer = router.getProducer('alice', 'video');
        await until(
          async () => producer?.activeLayers().map((layer) => layer.rid) ?? [],
          (rids) => rids.length >= 2,
          'two layers from Chromium (its congestion control grows on the SFU feedback)',
        );

        const watcherPage = await launch();
        const bob = router.createSession('bob');
        const watch = async (quality: 'low' | 'high') => {
          const subscription = await bob.updateSubscriptions({
            subscribe: [{ participantId: 'alice', kind: 'video', quality }],
            unsubscribe: [],
          });
          await bob.acceptSubscriptionAnswer(await answerInPage(watcherPage, subscription.sdp));
        };
        await watch('high');
        const high = await until(
          () => inbound(watcherPage),
          (stats) => stats.width >= 640 && stats.framesDecoded > 20,
          'a layer of 640 pixels or more',
        );
        await watch('low');
        const low = await until(
          () => inbound(watcherPage),
          (stats) => stats.width === 320,
          'the low layer (320 pixels)',
        );
        expect(low.framesDecoded).toBeGreaterThan(high.framesDecoded);
        await until(
          () => inbound(watcherPage),
          (stats) => stats.framesDecoded > low.framesDecoded + 20,
          'decoding on the low layer',
        );
        await watch('high');
        const back = await until(
          () => inbound(watcherPage),
          (stats) => stats.width >= 640,
          'a higher layer again',
        );
        await until(
          () => inbound(watcherPage),
          (stats) => stats.framesDecoded > back.framesDecoded + 20,
          'decoding after switching back',
        );
        expect(bob.consumers[0]?.stats.layerSwitches).toBeGreaterThanOrEqual(2);
      } finally {
        await Promise.allSettled(browsers.map((browser) => browser.close()));
        sfu.close();
        page.close();
      }
    },
    180_000,
  );
});
