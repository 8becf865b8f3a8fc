import { createSfu, type Sfu, type SfuOptionsInput } from '@collab-suite/webrtc-sfu';
import { createSfuMediaServer } from '../sfu-media-server.js';
import {
  isMediaCommand,
  type MediaHostLoad,
  type MediaHostMessage,
  type MediaReply,
  runMediaCommand,
} from './media-protocol.js';

/** Where a media host sends its replies, events and load reports. */
export type MediaHostOutput = (message: MediaReply | MediaHostMessage) => void;

/** The meetings an SFU holds now and how many people are in each. */
export function loadOf(sfu: Sfu): MediaHostLoad {
  const meetings = [...sfu.routers.values()].map((router) => ({
    meetingId: router.id,
    participants: router.sessions.size,
  }));
  return { meetings, participants: meetings.reduce((sum, meeting) => sum + meeting.participants, 0) };
}

/** A media host: the SFU and the commands it takes. */
export interface MediaHost {
  /** Carries out one command (anything not a command is ignored) and sends its reply and new load. */
  receive(message: unknown): Promise<void>;
  load(): MediaHostLoad;
  close(): Promise<void>;
}

/**
 * Runs meetings' media for commands that arrive from elsewhere (another thread, another node): an
 * SFU behind the MediaServer port, with every event and, after each command, the load sent to
 * `output`.
 */
export function createMediaHost(options: SfuOptionsInput, output: MediaHostOutput): MediaHost {
  const sfu = createSfu(options);
  const media = createSfuMediaServer(sfu);
  media.onEvent((event) => output({ kind: 'event', event }));
  return {
    async receive(message) {
      if (!isMediaCommand(message)) return;
      const reply = await runMediaCommand(media, message);
      output(reply);
      output({ kind: 'load', load: loadOf(sfu) });
    },
    load: () => loadOf(sfu),
    close: () => media.close(),
  };
}
