import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSfu } from '@collab-suite/webrtc-sfu';
import { type ReceivedPacket, VideoTestSubscriber } from '@collab-suite/webrtc-sfu/testing';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectInnerRunPassed,
  inNamespace,
  launchChromium,
  missingPrerequisite,
  mustRun,
  runInNamespace,
  type SideNamespace,
  sideNamespace,
  until,
} from './browser-namespace-support.js';
import { acceptAnswer, publishOffers } from './chromium-simulcast-publisher.js';

/**
 * Headless Chromium publishes its fake camera with three simulcast encodings to the SFU (in this
 * process) from its own network namespace, behind a veth pair whose egress loses about one media
 * packet in sixteen once the video flows (this kernel has no netem: a `tc` filter sends them to a
 * queue that holds nothing). The SFU must ask for each lost packet of a layer and take Chromium's
 * retransmission (RTX on an SSRC named nowhere, with the repaired RID) to that layer, so a werift
 * watcher of the low layer receives every packet, without the SFU asking for keyframes instead.
 * Like the other browser tests it runs itself again inside a private network namespace
 * (browser-namespace-support.ts); no packet leaves it.
 */
const missing = missingPrerequisite();

/** The class of the publisher's egress whose queue holds nothing: what it is given is dropped. */
const dropClass = '1:20';

/**
 * `tc` commands that make `device`'s egress drop about one in sixteen RTP packets (version 2,
 * payload type 96 to 127, so no STUN, DTLS or RTCP) long enough to have a 81st byte: one whose
 * 81st byte (in the encrypted payload, so random) has its four high bits clear. The rest pass.
 */
export function lossyEgress(device: string): string[] {
  return [
    `tc qdisc add dev ${device} root handle 1: htb default 10`,
    `tc class add dev ${device} parent 1: classid 1:10 htb rate 1gbit quantum 60000`,
    `tc class add dev ${device} parent 1: classid ${dropClass} htb rate 1gbit quantum 60000`,
    `tc qdisc add dev ${device} parent ${dropClass} handle 20: pfifo limit 0`,
    [
      `tc filter add dev ${device} parent 1: protocol ip prio 1 u32`,
      'match ip protocol 17 0xff',
      'match u8 0x80 0xc0 at 28',
      'match u8 0x60 0x60 at 29',
      'match u8 0x00 0xf0 at 80',
      `flowid ${dropClass}`,
    ].join(' '),
  ];
}

/** Packets the drop class of `device` dropped, from `tc -s class show` inside `side`. */
function droppedPackets(side: SideNamespace, device: string): number {
  const shown = side.runInside(`tc -s class show dev ${device} classid ${dropClass}`);
  return Number(/dropped (\d+)/.exec(shown)?.[1] ?? 0);
}

/** Per simulcast encoding (by rid) of the publisher: NACKs and PLIs received, packets retransmitted. */
type SentStats = Record<string, { nacks: number; plis: number; retransmitted: number }>;

async function sentStats(page: Page): Promise<SentStats> {
  return page.evaluate(`(async () => {
    const stats = {};
    (await globalThis.peer.getStats()).forEach((report) => {
      if (report.type === 'outbound-rtp' && report.kind === 'video' && report.rid)
        stats[report.rid] = {
          nacks: report.nackCount ?? 0,
          plis: report.pliCount ?? 0,
          retransmitted: report.retransmittedPacketsSent ?? 0,
        };
    });
    return stats;
  })()`);
}

const total = (stats: SentStats, field: 'nacks' | 'plis' | 'retransmitted') =>
  Object.values(stats).reduce((sum, encoding) => sum + encoding[field], 0);

/**
 * Sequence numbers (across the wrap) between the lowest and highest of `window` that are in none
 * of `packets`. Pure.
 */
export function missingSequenceNumbers(window: ReceivedPacket[], packets: ReceivedPacket[]): number[] {
  const first = window[0]?.packet.header.sequenceNumber ?? 0;
  const offset = (number: number) => (number - first + 0x1_0000) % 0x1_0000;
  const windowOffsets = window.map((received) => offset(received.packet.header.sequenceNumber));
  // Numbers a little before the first count too (reordered), not ones from the far side of the wrap.
  const highest = Math.max(0, ...windowOffsets.filter((value) => value < 0x8000));
  const present = new Set(packets.map((received) => offset(received.packet.header.sequenceNumber)));
  const result: number[] = [];
  for (let value = 0; value <= highest; value += 1) {
    if (!present.has(value)) result.push((first + value) % 0x1_0000);
  }
  return result;
}

/**
 * How many of `packets` arrived after one numbered higher (across the wrap): late, as a packet
 * the publisher retransmitted is. Pure.
 */
export function latePackets(packets: ReceivedPacket[]): number {
  let highest: number | undefined;
  let late = 0;
  for (const received of packets) {
    const number = received.packet.header.sequenceNumber;
    if (highest === undefined || (number - highest + 0x1_0000) % 0x1_0000 < 0x8000) highest = number;
    else late += 1;
  }
  return late;
}

describe('a Chromium simulcast publisher behind a lossy link', () => {
  it.skipIf(inNamespace || (missing !== undefined && !mustRun))(
    'has its lost packets repaired by RTX, each reaching its layer, without keyframes, inside private network namespaces',
    async () => {
      if (missing !== undefined) throw new Error(`the browser simulcast loss test cannot run: ${missing}`);
      const folder = mkdtempSync(path.join(tmpdir(), 'browser-simulcast-loss-'));
      const figuresFile = path.join(folder, 'figures.txt');
      try {
        const run = await runInNamespace(import.meta.url, { SIMULCAST_LOSS_FIGURES_FILE: figuresFile });
        if (existsSync(figuresFile)) console.info(readFileSync(figuresFile, 'utf8'));
        expectInnerRunPassed(run);
        expect(run.output).toMatch(/1 passed/);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    240_000,
  );

  it.runIf(inNamespace)(
    '(inside the namespace) repairs the losses of the publisher link with RTX; the watcher of the low layer misses no packet',
    async () => {
      const folder = mkdtempSync(path.join(tmpdir(), 'browser-simulcast-loss-page-'));
      // A file page is a secure context (getUserMedia) and needs no server in the publisher's namespace.
      const pageFile = path.join(folder, 'publisher.html');
      writeFileSync(pageFile, '<!doctype html><title>publisher</title>');
      const side = sideNamespace('10.81.0', { outer: 'p0', inner: 'p1' });
      const sfu = createSfu({
        ice: {
          hostAddresses: [side.outerAddress, '127.0.0.1'],
          onlyAddresses: [side.outerAddress, side.innerAddress, '127.0.0.1'],
        },
      });
      const subscriber = new VideoTestSubscriber();
      let browser: Browser | undefined;
      const figures: string[] = [];
      const note = (what: string) => {
        figures.push(what);
        if (process.env.SIMULCAST_LOSS_FIGURES_FILE)
          writeFileSync(
            process.env.SIMULCAST_LOSS_FIGURES_FILE,
            `simulcast loss figures: ${figures.join('; ')}`,
          );
      };
      try {
        const router = sfu.createRouter('simulcast-loss');
        browser = await launchChromium({ executablePath: side.chromium });
        const page = await browser.newPage();
        await page.goto(pathToFileURL(pageFile).href);
        const offers = await publishOffers(page);
        expect(offers.video).toMatch(/a=simulcast:send l;m;h/);
        expect(offers.video).toMatch(/a=rtpmap:\d+ rtx\/90000/);
        await acceptAnswer(page, 'peer', await router.createSession('alice').publish('video', offers.video));
        const producer = router.getProducer('alice', 'video');
        if (producer === undefined) throw new Error('no producer for alice');

        const bob = router.createSession('bob');
        const subscription = await bob.updateSubscriptions({
          subscribe: [{ participantId: 'alice', kind: 'video', quality: 'low' }],
          unsubscribe: [],
        });
        await bob.acceptSubscriptionAnswer(await subscriber.answer(subscription.sdp));
        const mid = subscription.streams.find((stream) => stream.participantId === 'alice')?.mid ?? '';
        const stream = () => subscriber.packets.filter((received) => received.mid === mid);
        await until(
          async () => ({
            packets: subscriber.count(mid),
            rids: producer.activeLayers().map((layer) => layer.rid),
          }),
          ({ packets }) => packets >= 50,
          'the low layer at the watcher',
        );
        const lowLayer = producer.layers.find((layer) => layer.rid === 'l');
        if (lowLayer === undefined) throw new Error('no low layer at the SFU');

        for (const command of lossyEgress(side.innerDevice)) side.runInside(command);
        const before = {
          sent: await sentStats(page),
          keyframeRequests: lowLayer.keyframeRequests,
          retransmissions: lowLayer.retransmissionsReceived,
          packets: stream().length,
        };
        const lossy = await until(
          async () => ({
            drops: droppedPackets(side, side.innerDevice),
            sent: await sentStats(page),
            packets: stream().length - before.packets,
          }),
          ({ drops, sent, packets }) =>
            drops >= 20 && (sent.l?.nacks ?? 0) - (before.sent.l?.nacks ?? 0) >= 3 && packets >= 240,
          'packets of the low layer lost on the publisher link and asked for',
        );
        // Every packet of this window must reach the watcher; the last ones' repairs may be under way.
        const window = stream().slice(before.packets);
        await until(
          async () => stream().length,
          (packets) => packets >= before.packets + window.length + 48,
          'two more seconds of the low layer at the watcher',
        );
        const after = {
          drops: droppedPackets(side, side.innerDevice),
          sent: await sentStats(page),
          keyframeRequests: lowLayer.keyframeRequests - before.keyframeRequests,
          retransmissions: Object.fromEntries(
            producer.layers.map((layer) => [layer.rid, layer.retransmissionsReceived]),
          ),
        };
        const lost = missingSequenceNumbers(window, stream());
        const repaired = latePackets(stream().slice(before.packets));
        note(
          `${after.drops} packets dropped on the publisher link (${lossy.drops} when the window closed); ` +
            `NACKs ${total(after.sent, 'nacks') - total(before.sent, 'nacks')} (low layer ${(after.sent.l?.nacks ?? 0) - (before.sent.l?.nacks ?? 0)}), ` +
            `Chromium retransmitted ${total(after.sent, 'retransmitted') - total(before.sent, 'retransmitted')} packets, ` +
            `SFU took retransmissions to layers ${JSON.stringify(after.retransmissions)}; ` +
            `SFU keyframe requests for the low layer ${after.keyframeRequests}, PLIs at Chromium ${total(after.sent, 'plis') - total(before.sent, 'plis')}; ` +
            `watcher: ${window.length} packets in the window, ${lost.length} missing, ${repaired} arrived late (repaired)`,
        );

        expect(after.drops).toBeGreaterThanOrEqual(20);
        expect(total(after.sent, 'nacks')).toBeGreaterThan(total(before.sent, 'nacks'));
        expect(total(after.sent, 'retransmitted')).toBeGreaterThan(0);
        expect(lost).toEqual([]);
        expect(repaired).toBeGreaterThanOrEqual(3);
        expect(lowLayer.retransmissionsReceived - before.retransmissions).toBeGreaterThanOrEqual(3);
        expect(after.keyframeRequests).toBeLessThan(after.drops / 2);
      } finally {
        await browser?.close().catch(() => {});
        await subscriber.close().catch(() => {});
        sfu.close();
        side.close();
        rmSync(folder, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
