import type { Worker } from 'node:worker_threads';
import type { IceServerConfig } from '@collab-suite/chat-domain';
import { createSfuWorker, type SfuOptionsInput, type SfuStats } from '@collab-suite/webrtc-sfu';
import type { Logger } from 'pino';
import type { MediaHostLoad, MediaHostMessage, MediaReply } from './media-protocol.js';
import { createRemoteMediaServer, type RemoteMediaServer } from './remote-media-server.js';

/** The media worker thread's module: the build's, or a loader of the sources under tests. */
function workerFilename(): URL {
  const fromSources = import.meta.url.endsWith('.ts');
  return new URL(fromSources ? './media-worker.dev.mjs' : './media-worker.js', import.meta.url);
}

/** The MediaServer of a process running both roles, with what its health entry shows. */
export interface WorkerMediaServer extends RemoteMediaServer {
  /** The meetings the worker holds, as it last reported them. */
  load(): MediaHostLoad;
  /**
   * Asks the worker for its SFU's sessions and traffic; undefined when it does not answer within
   * {@link STATS_TIMEOUT_MS} (busy, or being replaced). A replaced worker starts its totals at zero.
   */
  stats(): Promise<SfuStats | undefined>;
  /** Times the worker stopped on its own and was replaced since the start. */
  readonly restarts: number;
  /** The worker thread now (for monitoring and fault tests). */
  readonly thread: Worker;
}

const EMPTY_LOAD: MediaHostLoad = { meetings: [], participants: 0 };

/** How long a scrape waits for the worker's statistics: a worker that slow is reported as silent. */
const STATS_TIMEOUT_MS = 2000;

/**
 * Runs the SFU in a worker thread of this process, so its packets, audio mixing and timers never
 * wait behind the API's event loop (nor hold it up). A worker that stops on its own takes its
 * meetings' media with it: every waiting call fails with `media_failed`, listeners get a
 * `media-lost` event naming the meetings it held, and a new worker takes the next meeting.
 */
export function createWorkerMediaServer(options: {
  sfuOptions: SfuOptionsInput;
  iceServers: IceServerConfig[];
  logger: Logger;
}): WorkerMediaServer {
  let load = EMPTY_LOAD;
  let closing = false;
  const statsWaiters = new Set<(stats: SfuStats | undefined) => void>();

  // webrtc-sfu's worker host starts the thread, replaces it when it ends on its own and stops it.
  const worker = createSfuWorker({ entry: workerFilename(), sfuOptions: options.sfuOptions });
  worker.onMessage((received) => {
    const message = received as MediaReply | MediaHostMessage;
    if ('kind' in message && message.kind === 'load') load = message.load;
    else if ('kind' in message && message.kind === 'stats') {
      for (const waiter of [...statsWaiters]) waiter(message.stats);
    } else media.receive(message);
  });
  worker.onError((error) => options.logger.error({ err: error }, 'the media worker failed'));
  worker.onRestart((code) => {
    const lost = load.meetings.map((meeting) => meeting.meetingId);
    load = EMPTY_LOAD;
    options.logger.error({ code, meetings: lost }, 'the media worker stopped; starting a new one');
    media.hostLost('the media server stopped while carrying out the request');
    if (lost.length > 0) {
      media.receive({
        kind: 'event',
        event: { type: 'media-lost', meetingIds: lost, reason: 'media_server_failed' },
      });
    }
  });

  const media = createRemoteMediaServer({
    iceServers: options.iceServers,
    link: {
      send: (command) => worker.send(command),
      async close() {
        closing = true;
        await worker.close();
      },
    },
  });
  const stats = () =>
    new Promise<SfuStats | undefined>((resolve) => {
      if (closing) return resolve(undefined);
      const timer = setTimeout(() => done(undefined), STATS_TIMEOUT_MS);
      const done = (stats: SfuStats | undefined) => {
        clearTimeout(timer);
        statsWaiters.delete(done);
        resolve(stats);
      };
      statsWaiters.add(done);
      // One request serves every waiter: the first answer resolves them all.
      if (statsWaiters.size === 1) worker.send('stats');
    });
  return Object.defineProperties(media as WorkerMediaServer, {
    load: { value: () => load },
    stats: { value: stats },
    restarts: { get: () => worker.restarts },
    thread: { get: () => worker.thread },
  });
}
