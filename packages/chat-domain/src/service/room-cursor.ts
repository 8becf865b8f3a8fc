import { ChatError } from '../errors.js';
import type { RoomCursor } from '../ports/chat-store.js';

/** The opaque cursor of a page of rooms: the creation time and id of the page's last room. */
export function encodeRoomCursor(cursor: RoomCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.getTime(), cursor.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeRoomCursor}.
 * @throws ChatError `invalid_input` for anything else
 */
export function decodeRoomCursor(text: string): RoomCursor {
  try {
    const [time, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof time === 'number' &&
      Number.isSafeInteger(time) &&
      typeof id === 'string' &&
      /^[0-9a-f-]{36}$/.test(id)
    ) {
      return { createdAt: new Date(time), id };
    }
  } catch {
    // Falls through to the error below.
  }
  throw new ChatError(
    'invalid_input',
    'expected a cursor from a previous page of rooms but received something else',
    {
      details: { cursor: text.slice(0, 100) },
    },
  );
}
