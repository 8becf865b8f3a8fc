import {
  ChatError,
  type ChatErrorCode,
  isChatError,
  type MediaServer,
  type MediaServerEvent,
} from '@collab-suite/chat-domain';
import type { SfuStats } from '@collab-suite/webrtc-sfu';

/**
 * The MediaServer methods a media host carries out on command: every method of the port that does
 * work, each taking and giving plain data only (so a command crosses a thread or a network).
 */
export const mediaMethods = [
  'openMeeting',
  'closeMeeting',
  'addParticipant',
  'removeParticipant',
  'answerAudioOffer',
  'setAudioEnabled',
  'publish',
  'setStreamEnabled',
  'updateSubscriptions',
  'acceptSubscriptionAnswer',
] as const satisfies readonly (keyof MediaServer)[];

export type MediaMethod = (typeof mediaMethods)[number];

/** One call of a MediaServer method, numbered so its reply finds it. */
export interface MediaCommand {
  readonly id: number;
  readonly method: MediaMethod;
  readonly args: readonly unknown[];
}

/** The reply to one {@link MediaCommand}: the value, or the ChatError it failed with. */
export type MediaReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      readonly code: ChatErrorCode;
      readonly message: string;
      readonly details?: Record<string, unknown> | undefined;
    };

/** What a media host reports about itself: the meetings it holds and their participants. */
export interface MediaHostLoad {
  readonly meetings: { readonly meetingId: string; readonly participants: number }[];
  readonly participants: number;
}

/** Messages a media host sends besides replies; `stats` answers a `'stats'` request. */
export type MediaHostMessage =
  | { readonly kind: 'event'; readonly event: MediaServerEvent }
  | { readonly kind: 'load'; readonly load: MediaHostLoad }
  | { readonly kind: 'stats'; readonly stats: SfuStats };

/** True for a command a host should carry out (anything else it answers as malformed). */
export function isMediaCommand(value: unknown): value is MediaCommand {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as MediaCommand;
  return (
    typeof candidate.id === 'number' &&
    (mediaMethods as readonly string[]).includes(candidate.method) &&
    Array.isArray(candidate.args)
  );
}

/** The failed reply for `error`: a ChatError keeps its code; anything else says only that media failed. */
export function failedReply(id: number, error: unknown): MediaReply {
  if (isChatError(error)) {
    return { id, ok: false, code: error.code, message: error.message, details: error.details };
  }
  return { id, ok: false, code: 'media_failed', message: 'the media server failed to carry out the request' };
}

/** The ChatError a failed reply stands for. */
export function replyError(reply: Extract<MediaReply, { ok: false }>): ChatError {
  return new ChatError(reply.code, reply.message, reply.details ? { details: reply.details } : {});
}

/** Runs `command` on `media` and gives the reply to send back; it never throws. */
export async function runMediaCommand(media: MediaServer, command: MediaCommand): Promise<MediaReply> {
  try {
    const method = media[command.method] as (...args: readonly unknown[]) => Promise<unknown>;
    const value = await method.apply(media, [...command.args]);
    return { id: command.id, ok: true, value: value ?? null };
  } catch (error) {
    return failedReply(command.id, error);
  }
}
