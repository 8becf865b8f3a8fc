import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSfu, type Session } from '@collab-suite/webrtc-sfu';
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
  type SideNamespace,
  sideNamespace,
  until,
  vethAddresses,
} from './browser-namespace-support.js';
import { acceptAnswer, gathered, publishOffers } from './chromium-simulcast-publisher.js';

/**
 * Headless Chromium publishes its fake camera with three simulcast encodings, and its fake
 * microphone, to the SFU (in this process). Two more Chromium instances watch and listen, each from
 * its own network namespace behind its own veth pair: an unshaped one, which asks for low and then
 * high quality, and one whose veth egress `tc tbf` limits to 300 kbit/s for a while. The SFU must
 * take the layers and switch each watcher between them (by quality, and by the bandwidth estimated
 * from Chromium's TWCC feedback) without its decoder stopping, keep the unshaped watcher on the
 * high layer while the shaped one is on the low layer, and keep the shaped one's audio flowing.
 * Like the other browser tests it runs itself again inside a private network namespace
 * (browser-namespace-support.ts); no packet leaves it. One publisher
 * serves every phase, since its layers take a while to come up.
 */
const missing = missingPrerequisite();

/** A watcher's decoded video and received audio, from `getStats()` in its page. */
interface Received {
  width: number;
  framesDecoded: number;
  audioPackets: number;
  /** Audio samples that came from packets, not concealment. */
  audioSamples: number;
}

/** A watcher's audio offer (receive only); the mix it receives plays in an audio element. */
async function listenOffer(page: Page): Promise<string> {
  return page.evaluate(`(async () => {
    const audioPeer = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    globalThis.audioPeer = audioPeer;
    audioPeer.addTransceiver('audio', { direction: 'recvonly' });
    audioPeer.addEventListener('track', (event) => {
      const element = new Audio();
      element.autoplay = true;
      element.srcObject = new MediaStream([event.track]);
      globalThis.audioElement = element;
    });
    await audioPeer.setLocalDescription(await audioPeer.createOffer());
    await ${gathered('audioPeer')};
    return audioPeer.localDescription.sdp;
  })()`);
}

async function answerInPage(page: Page, offer: string): Promise<string> {
  return page.evaluate(
    `(async (sdp) => {
      globalThis.peer ??= new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
      const peer = globalThis.peer;
      await peer.setRemoteDescription({ type: 'offer', sdp });
      await peer.setLocalDescription(await peer.createAnswer());
      await ${gathered('peer')};
      return peer.localDescription.sdp;
    })(${JSON.stringify(offer)})`,
  );
}

async function received(page: Page): Promise<Received> {
  return page.evaluate(`(async () => {
    const result = { width: 0, framesDecoded: 0, audioPackets: 0, audioSamples: 0 };
    (await globalThis.peer.getStats()).forEach((report) => {
      if (report.type === 'inbound-rtp' && report.kind === 'video') {
        result.width = report.frameWidth ?? 0;
        result.framesDecoded = report.framesDecoded ?? 0;
      }
    });
    (await globalThis.audioPeer.getStats()).forEach((report) => {
      if (report.type === 'inbound-rtp' && report.kind === 'audio') {
        result.audioPackets = report.packetsReceived ?? 0;
        result.audioSamples = (report.totalSamplesReceived ?? 0) - (report.concealedSamples ?? 0);
      }
    });
    return result;
  })()`);
}

/** Frame width of each simulcast encoding the publisher sends now, by rid. */
async function sentWidths(page: Page): Promise<Record<string, number>> {
  return page.evaluate(`(async () => {
    const widths = {};
    (await globalThis.peer.getStats()).forEach((report) => {
      if (report.type === 'outbound-rtp' && report.kind === 'video' && report.rid && report.frameWidth)
        widths[report.rid] = report.frameWidth;
    });
    return widths;
  })()`);
}

/** What the publisher's encoder does, for messages: per rid its width, frame rate and limitation, and its bandwidth estimate. */
async function publisherState(page: Page): Promise<unknown> {
  return page.evaluate(`(async () => {
    const state = { layers: {}, availableOutgoingBitrate: 0 };
    (await globalThis.peer.getStats()).forEach((report) => {
      if (report.type === 'outbound-rtp' && report.kind === 'video' && report.rid)
        state.layers[report.rid] = [report.frameWidth, report.framesPerSecond, report.qualityLimitationReason, report.active];
      if (report.type === 'candidate-pair' && report.nominated && report.availableOutgoingBitrate)
        state.availableOutgoingBitrate = report.availableOutgoingBitrate;
    });
    return state;
  })()`);
}

/**
 * Seconds to wait for what needs the publisher's higher layers. Chromium's estimate, grown from the
 * SFU's feedback, may collapse when the SFU's process stalls on a busy machine (arrival times taken
 * late look like queuing) and then take a minute to climb back.
 */
const publisherRecovery = 120_000;

/** Limits the egress of `device` to `rate` with a token bucket, or lifts the limit (`undefined`). */
const shape = (device: string, rate: string | undefined) => {
  spawnSync('tc', ['qdisc', 'del', 'dev', device, 'root']);
  if (rate === undefined) return;
  const result = spawnSync(
    'tc',
    ['qdisc', 'add', 'dev', device, 'root', 'tbf', 'rate', rate, 'burst', '8kb', 'latency', '80ms'],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`tc: ${result.stderr}`);
};

describe('simulcast from headless Chromium', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'a Chromium publisher sends layers; Chromium watchers are switched by quality, and by their bandwidth behind a tc-shaped 300 kbit/s link while an unshaped one keeps the high layer, inside private network namespaces',
    async () => {
      if (missing !== undefined) throw new Error(`the browser simulcast test cannot run: ${missing}`);
      const folder = mkdtempSync(path.join(tmpdir(), 'browser-simulcast-'));
      const figuresFile = path.join(folder, 'figures.txt');
      try {
        const run = await runInNamespace(import.meta.url, { SIMULCAST_FIGURES_FILE: figuresFile });
        if (existsSync(figuresFile)) console.info(readFileSync(figuresFile, 'utf8'));
        expectInnerRunPassed(run);
        expect(run.output).toMatch(/1 passed/);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    480_000,
  );

  it.runIf(inNamespace)(
    '(inside the namespace) switches watchers by quality and by bandwidth; the unshaped one keeps the high layer and the shaped one its audio',
    async () => {
      const page = createServer((_request, response) => {
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><title>simulcast</title>');
      });
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      const pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
      const namespaces = [
        sideNamespace('10.78.0', { outer: 'w0', inner: 'w1' }),
        sideNamespace('10.79.0', { outer: 'u0', inner: 'u1' }),
      ];
      const [shapedNamespace, unshapedNamespace] = namespaces as [SideNamespace, SideNamespace];
      const addresses = [
        ...vethAddresses,
        ...namespaces.flatMap((side) => [side.outerAddress, side.innerAddress]),
      ];
      const sfu = createSfu({
        ice: {
          hostAddresses: [vethAddresses[0], ...namespaces.map((side) => side.outerAddress)],
          onlyAddresses: addresses,
        },
        // SIMULCAST_PROBES=off runs it without bandwidth probes (on by default), to compare the shaped watcher's switches.
        bandwidth: {
          allocationIntervalMs: 200,
          upgradeHoldMs: 1_000,
          increasePerSecond: 0.5,
          probe: { enabled: process.env.SIMULCAST_PROBES !== 'off' },
        },
      });
      const browsers: Browser[] = [];
      const startedAt = Date.now();
      const figures: string[] = [];
      const note = (what: string) => {
        figures.push(`${what} at ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
        if (process.env.SIMULCAST_FIGURES_FILE)
          writeFileSync(process.env.SIMULCAST_FIGURES_FILE, `simulcast figures: ${figures.join('; ')}`);
      };
      try {
        const router = sfu.createRouter('simulcast');
        const launch = async (executablePath: string, url: string) => {
          const browser = await launchChromium({ executablePath });
          browsers.push(browser);
          const opened = await browser.newPage();
          await opened.goto(url);
          return opened;
        };
        const publisherPage = await launch(chromiumPath, pageUrl);
        const offers = await publishOffers(publisherPage);
        expect(offers.video).toMatch(/a=simulcast:send l;m;h/);
        const alice = router.createSession('alice');
        await acceptAnswer(publisherPage, 'peer', await alice.publish('video', offers.video));
        await acceptAnswer(publisherPage, 'audioPeer', await alice.answerAudioOffer(offers.audio));
        alice.setAudioEnabled(true);
        const producer = router.getProducer('alice', 'video');
        if (producer === undefined) throw new Error('no producer for alice');

        // The watchers' namespaces have no page server: receiving needs no secure context, so about:blank does.
        const join = async (participantId: string, executablePath: string) => {
          const watcherPage = await launch(executablePath, 'about:blank');
          const session = router.createSession(participantId);
          const subscription = await session.updateSubscriptions({
            subscribe: [{ participantId: 'alice', kind: 'video' }],
            unsubscribe: [],
          });
          await session.acceptSubscriptionAnswer(await answerInPage(watcherPage, subscription.sdp));
          await acceptAnswer(
            watcherPage,
            'audioPeer',
            await session.answerAudioOffer(await listenOffer(watcherPage)),
          );
          return { page: watcherPage, session };
        };
        const [bob, carol] = await Promise.all([
          join('bob', shapedNamespace.chromium),
          join('carol', unshapedNamespace.chromium),
        ]);
        await until(
          async () => ({
            rids: producer.activeLayers().map((layer) => layer.rid),
            publisher: await publisherState(publisherPage),
          }),
          ({ rids }) => rids.length >= 2,
          'two layers from Chromium (its congestion control grows on the SFU feedback)',
          publisherRecovery,
        );
        note(
          `${producer.activeLayers().length} layers (${JSON.stringify(await sentWidths(publisherPage))} pixels wide)`,
        );
        /** Widths of the low layer and of the highest layer the publisher sends now. */
        const layerWidths = async () => {
          const widths = await sentWidths(publisherPage);
          const top = producer.activeLayers().at(-1)?.rid ?? '';
          return { low: widths.l ?? -1, high: widths[top] ?? -1 };
        };
        const watching = async (watcher: { page: Page; session: Session }) => ({
          ...(await received(watcher.page)),
          ...(await layerWidths()),
          estimate: watcher.session.subscriptionBandwidth,
          /** The layer the SFU forwards (or switches to) for this watcher. */
          forwarding: watcher.session.consumers[0]?.paused
            ? 'paused'
            : watcher.session.consumers[0]?.targetLayer?.rid,
          probes: watcher.session.subscriptionProbes,
          rids: producer.activeLayers().map((layer) => layer.rid),
        });
        const onHigh = (stats: Received & { high: number }) =>
          stats.width === stats.high && stats.high >= 640;
        for (const watcher of [bob, carol]) {
          await until(
            () => watching(watcher),
            (stats) => onHigh(stats) && stats.framesDecoded > 20 && stats.audioSamples > 0,
            `${watcher.session.participantId} decoding the high layer and hearing audio`,
            publisherRecovery,
          );
        }
        note('both watchers on the high layer');

        const watchCarol = async (quality: 'low' | 'high') => {
          const subscription = await carol.session.updateSubscriptions({
            subscribe: [{ participantId: 'alice', kind: 'video', quality }],
            unsubscribe: [],
          });
          await carol.session.acceptSubscriptionAnswer(await answerInPage(carol.page, subscription.sdp));
        };
        await watchCarol('low');
        const low = await until(
          () => watching(carol),
          (stats) => stats.width === stats.low,
          'carol on the low layer after asking for low quality',
        );
        await watchCarol('high');
        await until(
          () => watching(carol),
          (stats) => onHigh(stats) && stats.framesDecoded > low.framesDecoded + 20,
          'carol decoding the high layer again after asking for high quality',
        );
        expect(carol.session.consumers[0]?.stats.layerSwitches).toBeGreaterThanOrEqual(2);
        note('quality switches');

        // The publisher's own estimate (from the SFU's feedback) may add or drop its top layer at any
        // time on a busy machine: each watcher is held to the top layer of the moment, with 3 s to
        // follow a change of it (a switch waits for a keyframe of the new layer).
        shape(shapedNamespace.outerDevice, '300kbit');
        let top = { rid: producer.activeLayers().at(-1)?.rid, sinceMs: Date.now() };
        const carolMisses: Array<Received & { high: number }> = [];
        const bobWhileShaped: Array<Received & { low: number; high: number; estimate?: number | undefined }> =
          [];
        const bobSwitchesBefore = bob.session.consumers[0]?.stats.layerSwitches ?? 0;
        const bobProbesBefore = bob.session.subscriptionProbes;
        let carolPolls = 0;
        let lowestEstimate = Number.POSITIVE_INFINITY;
        const bothWatching = async () => {
          const [bobStats, carolStats] = [await watching(bob), await watching(carol)];
          const rid = producer.activeLayers().at(-1)?.rid;
          if (rid !== top.rid) top = { rid, sinceMs: Date.now() };
          carolPolls += 1;
          if (!onHigh(carolStats) && Date.now() - top.sinceMs > 3_000) carolMisses.push(carolStats);
          bobWhileShaped.push(bobStats);
          lowestEstimate = Math.min(lowestEstimate, bob.session.subscriptionBandwidth ?? Infinity);
          return { bob: bobStats, carol: carolStats };
        };
        /**
         * Bob on the low layer while the publisher sends a higher one, and with an estimate of his
         * link under 600 kbit/s: the SFU's choice, for his link.
         */
        const bobOnLow = (stats: Received & { low: number; high: number; estimate?: number | undefined }) =>
          stats.width === stats.low && stats.high > stats.low && (stats.estimate ?? Infinity) < 600_000;
        const shaped = await until(
          bothWatching,
          (stats) => bobOnLow(stats.bob),
          'bob on the low layer behind 300 kbit/s',
          publisherRecovery,
        );
        note('bob on the low layer');
        await until(
          bothWatching,
          (stats) =>
            bobOnLow(stats.bob) &&
            // About 15 s of video behind the limit: long enough for the estimate to outgrow the link
            // (and, without probes, for the layer above to be tried) more than once.
            stats.bob.framesDecoded > shaped.bob.framesDecoded + 360 &&
            stats.bob.audioPackets > shaped.bob.audioPackets + 100 &&
            stats.bob.audioSamples > shaped.bob.audioSamples &&
            onHigh(stats.carol) &&
            stats.carol.framesDecoded > shaped.carol.framesDecoded + 48,
          'bob decoding 15 s of the low layer and audio behind 300 kbit/s, carol decoding the high layer',
          publisherRecovery,
        );
        const firstLow = bobWhileShaped.findIndex(bobOnLow);
        const afterLow = bobWhileShaped.slice(firstLow);
        const stalls = afterLow.filter(
          (stats, index) => stats.framesDecoded === afterLow[index - 1]?.framesDecoded,
        );
        note(
          `bob decoding low video and audio (${afterLow.length} polls from the first on the low layer: ${afterLow.filter((stats) => !bobOnLow(stats)).length} not on it, ${stalls.length} without a new decoded frame; ${(bob.session.consumers[0]?.stats.layerSwitches ?? 0) - bobSwitchesBefore} layer switches; estimate down to ${Math.round(lowestEstimate)} bit/s; ${bob.session.subscriptionProbes.failed - bobProbesBefore.failed} probes failed, ${bob.session.subscriptionProbes.passed - bobProbesBefore.passed} passed, last ${bob.session.subscriptionProbes.last || 'none'})`,
        );
        expect(carolMisses, 'carol below the high layer while bob was shaped').toEqual([]);

        shape(shapedNamespace.outerDevice, undefined);
        const back = await until(
          () => watching(bob),
          (stats) => onHigh(stats),
          'bob on the high layer once the limit is lifted',
          publisherRecovery,
        );
        await until(
          () => watching(bob),
          (stats) =>
            stats.framesDecoded > back.framesDecoded + 20 && stats.audioPackets > back.audioPackets + 50,
          'bob decoding video and audio after the limit was lifted',
        );
        note('bob back on the high layer');
        note(
          `carol polled ${carolPolls} times while bob was shaped, never below the high layer for longer than 3 s`,
        );
      } finally {
        shape(shapedNamespace.outerDevice, undefined);
        await Promise.allSettled(browsers.map((browser) => browser.close()));
        sfu.close();
        for (const namespace of namespaces) namespace.close();
        page.close();
      }
    },
    420_000,
  );
});
