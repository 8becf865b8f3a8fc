import type { Producer, Sfu } from '@collab-suite/webrtc-sfu';
import type { Page as ChromiumPage } from 'playwright-core';
import type { Page as FirefoxPage } from 'puppeteer-core';
import { expect } from 'vitest';
import { until } from './browser-namespace-support.js';
import { type WatchedVideo, watchedVideo } from './meeting-page-probe.js';

/**
 * The simulcast part of browser-firefox.test.ts: Firefox publishes its camera with the meeting
 * page's three encodings (rids l, m, h), and Chromium watches it in a tile whose size decides the
 * quality the page asks the SFU for.
 */

/**
 * Chromium's page size: 800x600 CSS pixels at a device pixel ratio of 2, where a remote tile is
 * about 490 CSS pixels wide, 980 device pixels, so the page asks for high quality.
 */
export const chromiumScreen = { viewport: { width: 800, height: 600 }, deviceScaleFactor: 2 };
/** The tile width (CSS pixels) that makes Chromium's page ask for low quality: 192 device pixels. */
const smallTile = '96px';

/**
 * Bounds for a stuck step, not measurements: Firefox enables its layers as its bandwidth estimate
 * grows on the SFU's feedback, and a switch waits for a negotiation and a keyframe of the new layer.
 */
const layersWithinMs = 45_000;
const switchWithinMs = 60_000;

/** What Firefox sends of one simulcast encoding, from its `outbound-rtp` statistics. */
interface SentEncoding {
  width: number;
  bytesSent: number;
  framesEncoded: number;
}

/**
 * Firefox's camera connection: the simulcast lines of its offer (with how many `a=ssrc` and
 * `a=ssrc-group` lines it has, where Chromium has none) and of the SFU's answer (with its
 * transport-cc feedback), and what it sent so far, per rid.
 */
interface FirefoxCamera {
  offer: string[];
  answer: string[];
  sent: Record<string, SentEncoding>;
}

async function firefoxCamera(page: FirefoxPage): Promise<FirefoxCamera> {
  return (await page.evaluate(`(async () => {
    const publisher = meetingPage.state.meeting?.publishers.get('video');
    const lines = (description, pattern) =>
      (description?.sdp ?? '').split(/\\r?\\n/).filter((line) => pattern.test(line));
    const simulcast = /^a=(simulcast|rid):|rtp-stream-id/;
    const local = publisher?.peer.localDescription;
    const offer = [
      ...lines(local, simulcast),
      lines(local, /^a=ssrc:/).length + ' a=ssrc lines',
      lines(local, /^a=ssrc-group:/).length + ' a=ssrc-group lines',
    ];
    const answer = lines(publisher?.peer.remoteDescription, /^a=(simulcast|rid):|rtp-stream-id|transport-cc/);
    const sent = {};
    if (publisher !== undefined)
      (await publisher.peer.getStats()).forEach((entry) => {
        if (entry.type !== 'outbound-rtp' || entry.kind !== 'video') return;
        sent[entry.rid ?? '-'] = {
          width: entry.frameWidth ?? 0,
          bytesSent: entry.bytesSent ?? 0,
          framesEncoded: entry.framesEncoded ?? 0,
        };
      });
    return { offer, answer, sent };
  })()`)) as FirefoxCamera;
}

/** Firefox's encodings for the figures: per rid its width, kilobytes and frames sent. */
function sentOf(sent: Record<string, SentEncoding>): string {
  return Object.entries(sent)
    .map(
      ([rid, encoding]) =>
        `${rid}: ${encoding.width} px, ${Math.round(encoding.bytesSent / 1000)} kB, ${encoding.framesEncoded} frames`,
    )
    .join(', ');
}

/** Each received layer of a producer: its rid, keyframe width, bit/s, packets and whether it is active. */
function layersOf(producer: Producer): string {
  const now = performance.now();
  return producer.layers
    .map(
      (layer) =>
        `${layer.rid}: ${layer.frameWidth ?? '?'} px, ${Math.round(layer.bitrate / 1000)} kbit/s, ${layer.packetsReceived} packets${layer.isActive(now) ? '' : ' (inactive)'}`,
    )
    .join(', ');
}

/** Sets the grid's column width in Chromium's page (every tile is one column wide); '' restores it. */
async function setTileWidth(page: ChromiumPage, width: string): Promise<void> {
  await page.evaluate(
    `document.getElementById('tiles').style.gridTemplateColumns = ${JSON.stringify(width)}`,
  );
}

/**
 * With both browsers decoding: every encoding Firefox sends (two or more) is an active layer at the
 * SFU, and Chromium decodes the top one, the lowest while its tile is small, and the top again.
 */
export async function expectChromiumFollowsFirefoxLayers(meeting: {
  sfu: Sfu;
  firefoxPage: FirefoxPage;
  chromiumPage: ChromiumPage;
  /** Firefox's user, and Chromium's. */
  alice: string;
  bob: string;
  /** Gets each step, with its time since the first. */
  figures: string[];
  /** Called after each step (the figures reach the outer run even when a later step fails). */
  save(): void;
}): Promise<void> {
  const { sfu, firefoxPage, chromiumPage, alice, bob, figures } = meeting;
  const startedAt = Date.now();
  const note = (what: string) => {
    figures.push(`${what} at ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    meeting.save();
  };
  const camera = await firefoxCamera(firefoxPage);
  figures.push(
    `Firefox offered ${camera.offer.join(' | ')}`,
    `the SFU answered ${camera.answer.join(' | ')}`,
  );
  meeting.save();
  const router = [...sfu.routers.values()].find((candidate) => candidate.getSession(alice) !== undefined);
  const producer = router?.getProducer(alice, 'video');
  const watcher = router?.getSession(bob);
  const consumer = watcher?.consumers.find((candidate) => candidate.producer === producer);
  if (producer === undefined || consumer === undefined)
    throw new Error('the SFU has no camera stream from Firefox forwarded to Chromium');

  /** The active layers' keyframe widths, lowest first, once every active layer sent a keyframe. */
  const activeWidths = () => producer.activeLayers().map((layer) => layer.frameWidth ?? 0);
  // Firefox's bandwidth estimate decides which encodings it sends at a time: each one it is
  // sending (its bytes grew since the last reading) must be an active layer at the SFU.
  let previous = camera.sent;
  const layered = await until(
    async () => {
      const { sent } = await firefoxCamera(firefoxPage);
      const sending = Object.keys(sent).filter(
        (rid) => (sent[rid]?.bytesSent ?? 0) > (previous[rid]?.bytesSent ?? 0),
      );
      previous = sent;
      return {
        sending,
        active: producer.activeLayers().map((layer) => layer.rid ?? '-'),
        widths: activeWidths(),
        layers: layersOf(producer),
        sent: sentOf(sent),
      };
    },
    ({ sending, active, widths }) =>
      sending.length >= 2 &&
      sending.every((rid) => active.includes(rid)) &&
      widths.length >= 2 &&
      widths.every((width, index) => width > (widths[index - 1] ?? 0)),
    `every encoding Firefox sends (two or more) active at the SFU, each with a keyframe (Firefox offered ${camera.offer.join(' | ')})`,
    layersWithinMs,
  );
  expect(layered.sending.filter((rid) => !layered.active.includes(rid))).toEqual([]);
  expect(layered.widths.length).toBeGreaterThanOrEqual(2);
  note(
    `${layered.widths.length} active layers at the SFU of the ${layered.sending.length} encodings Firefox sends (${layered.layers}; Firefox sent ${layered.sent})`,
  );

  const watching = async (): Promise<
    WatchedVideo & {
      widths: number[];
      quality: string;
      forwarding?: string;
      target?: string;
      paused: boolean;
      estimate?: number;
      keyframeRequests: number[];
      switches: number;
    }
  > => ({
    ...(await watchedVideo(chromiumPage, alice)),
    widths: activeWidths(),
    quality: consumer.quality,
    // Why a step is stuck: what the SFU forwards, waits for, and whether the estimate paused it.
    forwarding: consumer.currentLayer?.rid,
    target: consumer.targetLayer?.rid,
    paused: consumer.paused,
    estimate: watcher?.subscriptionBandwidth,
    keyframeRequests: producer.layers.map((layer) => layer.keyframeRequests),
    switches: consumer.stats.layerSwitches,
  });
  const onTop = (stats: WatchedVideo & { widths: number[] }) =>
    stats.widths.length >= 2 && stats.frameWidth === stats.widths.at(-1);
  const top = await until(
    watching,
    onTop,
    'Chromium decoding the top layer of Firefox camera',
    switchWithinMs,
  );
  note(`Chromium decoding the top layer, ${top.frameWidth} px`);

  await setTileWidth(chromiumPage, smallTile);
  const low = await until(
    watching,
    (stats) =>
      stats.widths.length >= 2 &&
      stats.frameWidth === stats.widths[0] &&
      stats.framesDecoded > top.framesDecoded,
    'Chromium decoding the lowest layer of Firefox camera once its tile is small',
    switchWithinMs,
  );
  note(`Chromium on the lowest layer, ${low.frameWidth} px, with a ${smallTile} tile`);

  await setTileWidth(chromiumPage, '');
  const back = await until(
    watching,
    (stats) => onTop(stats) && stats.framesDecoded > low.framesDecoded + 10,
    'Chromium decoding the top layer of Firefox camera again once its tile is back',
    switchWithinMs,
  );
  expect(back.switches).toBeGreaterThanOrEqual(top.switches + 2);
  note(
    `Chromium back on the top layer, ${back.frameWidth} px (${back.switches - top.switches} layer switches since the top layer; ${producer.stats.packetsRepeated} repeated packets from Firefox not forwarded; SFU layers ${layersOf(producer)}; Firefox sent ${sentOf((await firefoxCamera(firefoxPage)).sent)})`,
  );
}
