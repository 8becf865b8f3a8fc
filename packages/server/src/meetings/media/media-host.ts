import type { MediaServerEvent } from '@collab-suite/chat-domain';
import { createSfu, type Sfu, type SfuOptionsInput, type SfuStats } from '@collab-suite/webrtc-sfu';
import { createSfuMediaServer } from '../sfu-media-server.js';
import { type MediaCommand, type MediaHostLoad, type MediaReply, runMediaCommand } from './media-protocol.js';

/** The meetings an SFU holds now and how many people are in each. */
export function loadOf(sfu: Sfu): MediaHostLoad {
  const meetings = [...sfu.routers.values()].map((router) => ({
    meetingId: router.id,
    participants: router.sessions.size,
  }));
  return { meetings, participants: meetings.reduce((sum, meeting) => sum + meeting.participants, 0) };
}

/** A media host: the SFU, the commands it carries out and what it reports. */
export interface MediaHost {
  /** Carries out one command; the reply says how it went (it never throws). */
  run(command: MediaCommand): Promise<MediaReply>;
  /** The meetings held now. */
  load(): MediaHostLoad;
  /** The SFU's sessions and traffic (see {@link Sfu.stats}). */
  stats(): SfuStats;
  /** Listens to talking changes; returns a function that stops listening. */
  onEvent(listener: (event: MediaServerEvent) => void): () => void;
  close(): Promise<void>;
}

/**
 * Runs meetings' media for commands that arrive from elsewhere (another thread, another node): an
 * SFU behind the MediaServer port.
 */
export function createMediaHost(options: SfuOptionsInput): MediaHost {
  const sfu = createSfu(options);
  const media = createSfuMediaServer(sfu);
  return {
    run: (command) => runMediaCommand(media, command),
    load: () => loadOf(sfu),
    stats: () => sfu.stats(),
    onEvent: (listener) => media.onEvent(listener),
    close: () => media.close(),
  };
}
