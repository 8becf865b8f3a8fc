import type { Page } from 'playwright-core';

/** What a test reads of the meeting page (examples/meeting-web) in a browser. */
export interface PageState {
  framesDecoded: number;
  rejoins: number;
  status: string;
  notice: string;
  cameraPressed: boolean;
}

/** Reads the page's decoded frames, rejoins, status, notice and Camera button. */
export function pageState(page: Page): Promise<PageState> {
  return page.evaluate(async () => {
    const scope = globalThis as unknown as {
      meetingPage: { stats(): Promise<{ framesDecoded: number }>; rejoins(): number };
      document: {
        getElementById(
          id: string,
        ): { textContent: string | null; getAttribute(name: string): string | null } | null;
      };
    };
    const { framesDecoded } = await scope.meetingPage.stats();
    const text = (id: string) => scope.document.getElementById(id)?.textContent ?? '';
    return {
      framesDecoded,
      rejoins: scope.meetingPage.rejoins(),
      status: text('status'),
      notice: text('notice'),
      cameraPressed: scope.document.getElementById('camera')?.getAttribute('aria-pressed') === 'true',
    };
  });
}

/** Reads the page every 200 ms until `done` holds or `timeoutMs` passed; resolves with the last state. */
export async function waitForPage(
  page: Page,
  done: (state: PageState) => boolean,
  timeoutMs: number,
): Promise<PageState> {
  const deadline = Date.now() + timeoutMs;
  let last = await pageState(page);
  while (!done(last) && Date.now() <= deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = await pageState(page);
  }
  return last;
}

/** One change of the page's `#status` or `#notice`, with the page's clock (ms since 1970). */
export interface StatusEntry {
  at: number;
  id: string;
  text: string;
}

/** Starts recording every change of `#status` and `#notice` in the page (read with {@link statusLog}). */
export async function recordStatuses(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    globalThis.statusLog = [];
    for (const id of ['status', 'notice']) {
      const element = document.getElementById(id);
      new MutationObserver(() =>
        globalThis.statusLog.push({ at: Date.now(), id, text: element.textContent ?? '' }),
      ).observe(element, { childList: true, characterData: true, subtree: true });
    }
  })()`);
}

/** What {@link recordStatuses} recorded so far. */
export function statusLog(page: Page): Promise<StatusEntry[]> {
  return page.evaluate('globalThis.statusLog ?? []') as Promise<StatusEntry[]>;
}

/** The meeting events the page received (its `meetingPage.events()`), as {@link StatusEntry} lines. */
export async function eventEntries(page: Page): Promise<StatusEntry[]> {
  const events = (await page.evaluate('meetingPage.events()')) as {
    type: string;
    userId?: string;
    at: number;
  }[];
  return events
    .filter((event) => !/TALKING|DOMINANT_SPEAKER/.test(event.type))
    .map((event) => ({
      at: event.at,
      id: 'event',
      text: `${event.type} ${event.userId?.slice(0, 8) ?? ''}`,
    }));
}

/** What {@link pollMeetingStats} read of a meeting page. */
export interface MeetingStats {
  framesDecoded: number;
  audioPacketsReceived: number;
  remoteAudioLevel: number;
  /** Every user the page was told talks, while polling. */
  talkingSeen: string[];
  status: string;
}

/** What both browser drivers' pages (Playwright's, puppeteer's) offer: running a function in the page. */
export interface EvaluatingPage {
  evaluate<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Reads the meeting page's stats every 250 ms until it decoded video, received audio (heard it,
 * above a level of 0.01, with `audible`; else over 50 packets) and saw `otherUserId` talk, or
 * `timeoutMs` passed; resolves with the last reading.
 */
export async function pollMeetingStats(
  page: EvaluatingPage,
  otherUserId: string,
  options: { audible: boolean; timeoutMs: number },
): Promise<MeetingStats> {
  const deadline = Date.now() + options.timeoutMs;
  const talkingSeen = new Set<string>();
  let last: MeetingStats = {
    framesDecoded: 0,
    audioPacketsReceived: 0,
    remoteAudioLevel: 0,
    talkingSeen: [],
    status: '',
  };
  while (Date.now() < deadline) {
    const stats = await page.evaluate(async () => {
      const scope = globalThis as unknown as {
        meetingPage: {
          stats(): Promise<{ framesDecoded: number; audioPacketsReceived: number; remoteAudioLevel: number }>;
          talking(): string[];
        };
        document: { getElementById(id: string): { textContent: string | null } | null };
      };
      const { framesDecoded, audioPacketsReceived, remoteAudioLevel } = await scope.meetingPage.stats();
      const status = scope.document.getElementById('status')?.textContent ?? '';
      return {
        framesDecoded,
        audioPacketsReceived,
        remoteAudioLevel,
        talking: scope.meetingPage.talking(),
        status,
      };
    });
    for (const userId of stats.talking) talkingSeen.add(userId);
    last = {
      framesDecoded: stats.framesDecoded,
      audioPacketsReceived: stats.audioPacketsReceived,
      remoteAudioLevel: stats.remoteAudioLevel,
      talkingSeen: [...talkingSeen],
      status: stats.status,
    };
    const heard = options.audible ? last.remoteAudioLevel > 0.01 : last.audioPacketsReceived > 50;
    if (last.framesDecoded > 10 && heard && talkingSeen.has(otherUserId)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

/** The video a meeting page decodes from one other user's camera, from its `getStats()`. */
export interface WatchedVideo {
  /** Width of the last decoded frame (0 before the first). */
  frameWidth: number;
  framesDecoded: number;
}

/** Reads the decoded width and frames of `userId`'s camera in the page's incoming-video connection. */
export function watchedVideo(page: Page, userId: string): Promise<WatchedVideo> {
  return page.evaluate(`(async () => {
    const meeting = meetingPage.state.meeting;
    const result = { frameWidth: 0, framesDecoded: 0 };
    if (!meeting?.subscriber) return result;
    (await meeting.subscriber.getStats()).forEach((entry) => {
      const stream = meeting.mids.get(entry.mid);
      if (entry.type !== 'inbound-rtp' || entry.kind !== 'video' || stream?.userId !== ${JSON.stringify(userId)}) return;
      if (stream.type.toLowerCase() !== 'video') return;
      result.frameWidth = entry.frameWidth ?? 0;
      result.framesDecoded = entry.framesDecoded ?? 0;
    });
    return result;
  })()`);
}
