import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSfu } from '@collab-suite/webrtc-sfu';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  chromiumPath,
  expectInnerRunPassed,
  inNamespace,
  launchChromium,
  missingPrerequisite,
  mustRun,
  runInNamespace,
  sideNamespace,
  until,
  vethAddresses,
} from './browser-namespace-support.js';

/**
 * Headless Chromium publishes its fake camera with three simulcast encodings to the SFU (in this
 * process). A second Chromium watches it, asking for low and then high quality; a third watches
 * from its own namespace behind a veth whose egress `tc tbf` limits to 300 kbit/s, then unlimited.
 * The SFU must take the layers and switch each watcher between them (by quality, and by the
 * bandwidth estimated from Chromium's TWCC feedback) without its decoder stopping. Like the other
 * browser tests, it runs itself again inside a private network namespace
 * (browser-namespace-support.ts); no packet leaves it.
 */
const missing = missingPrerequisite();

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

const shape = (rate: string | undefined) => {
  spawnSync('tc', ['qdisc', 'del', 'dev', 'w0', 'root']);
  if (rate === undefined) return;
  const result = spawnSync(
    'tc',
    ['qdisc', 'add', 'dev', 'w0', 'root', 'tbf', 'rate', rate, 'burst', '8kb', 'latency', '80ms'],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`tc: ${result.stderr}`);
};

describe('simulcast from headless Chromium', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'a Chromium publisher sends layers; Chromium watchers are switched by quality, and by their bandwidth behind a tc-shaped 300 kbit/s link, inside private network namespaces',
    async () => {
      const run = await runInNamespace(import.meta.url);
      expectInnerRunPassed(run);
      expect(run.output).toMatch(/2 passed/);
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
        ice: { hostAddresses: [vethAddresses[0]], onlyAddresses: [...vethAddresses] },
        bandwidth: { allocationIntervalMs: 200, upgradeHoldMs: 1_000 },
      });
      const browsers: Browser[] = [];
      try {
        const router = sfu.createRouter('simulcast');
        const launch = async () => {
          const browser = await launchChromium();
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

  it.runIf(inNamespace)(
    '(inside the namespace) a watcher behind a 300 kbit/s link gets the low layer and decodes on; lifting the limit brings a higher layer back',
    async () => {
      const page = createServer((_request, response) => {
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><title>simulcast</title>');
      });
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      const pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
      const namespace = sideNamespace('10.78.0');
      const sfu = createSfu({
        ice: {
          hostAddresses: [vethAddresses[0], namespace.outerAddress],
          onlyAddresses: [...vethAddresses, namespace.outerAddress, namespace.innerAddress],
        },
        bandwidth: { allocationIntervalMs: 200, upgradeHoldMs: 1_000, increasePerSecond: 0.5 },
      });
      const browsers: Browser[] = [];
      try {
        const router = sfu.createRouter('simulcast-shaped');
        const launch = async (executablePath: string, url: string) => {
          const browser = await launchChromium({ executablePath });
          browsers.push(browser);
          const opened = await browser.newPage();
          await opened.goto(url);
          return opened;
        };
        const publisherPage = await launch(chromiumPath, pageUrl);
        const answer = await router
          .createSession('alice')
          .publish('video', await publishOffer(publisherPage));
        await publisherPage.evaluate(
          `globalThis.peer.setRemoteDescription({ type: 'answer', sdp: ${JSON.stringify(answer)} })`,
        );
        const producer = router.getProducer('alice', 'video');
        await until(
          async () => producer?.activeLayers().length ?? 0,
          (count) => count >= 2,
          'two layers from Chromium',
        );
        // The watcher's namespace has no page server: receiving needs no secure context, so about:blank does.
        const watcherPage = await launch(namespace.chromium, 'about:blank');
        const bob = router.createSession('bob');
        const subscription = await bob.updateSubscriptions({
          subscribe: [{ participantId: 'alice', kind: 'video' }],
          unsubscribe: [],
        });
        await bob.acceptSubscriptionAnswer(await answerInPage(watcherPage, subscription.sdp));
        const first = await until(
          () => inbound(watcherPage),
          (stats) => stats.width >= 640 && stats.framesDecoded > 20,
          'a layer of 640 pixels or more before shaping',
        );

        shape('300kbit');
        const low = await until(
          () => inbound(watcherPage),
          (stats) => stats.width === 320,
          'the low layer behind 300 kbit/s',
        );
        expect(low.framesDecoded).toBeGreaterThan(first.framesDecoded);
        await until(
          () => inbound(watcherPage),
          (stats) => stats.framesDecoded > low.framesDecoded + 40,
          'decoding on the low layer behind 300 kbit/s',
        );

        shape(undefined);
        const back = await until(
          () => inbound(watcherPage),
          (stats) => stats.width >= 640,
          'a higher layer once the limit is lifted',
        );
        await until(
          () => inbound(watcherPage),
          (stats) => stats.framesDecoded > back.framesDecoded + 20,
          'decoding after the limit was lifted',
        );
      } finally {
        shape(undefined);
        await Promise.allSettled(browsers.map((browser) => browser.close()));
        sfu.close();
        namespace.close();
        page.close();
      }
    },
    180_000,
  );
});
