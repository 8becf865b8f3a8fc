import { ChatError, roomNotFound } from '../errors.js';

/** The columns of `chat_rooms` (aliased `r`) that both SQL stores read into a `RoomRow`. */
export const roomColumns =
  'r.id, r.type, r.name, r.description, r.meeting_id, r.picture_updated_at, r.created_at, r.updated_at';

/** A constraint of the chat schema, as each SQL engine reports its violation. */
export type ConstraintViolation = 'missing_room' | 'duplicate_key' | 'duplicate_one_to_one' | undefined;

/**
 * Turns a violated constraint into the `ChatError` a caller expects: a foreign key to a room that
 * is gone, a member added twice (when `userId` is given), or a second one_to_one room.
 * @throws ChatError `room_not_found`, `already_member` or `one_to_one_exists`; the original error otherwise.
 */
export function throwConstraintViolation(
  violation: ConstraintViolation,
  error: unknown,
  roomId: string,
  userId?: string,
): never {
  if (violation === 'missing_room') {
    throw roomNotFound(roomId, error);
  }
  if (violation === 'duplicate_key' && userId !== undefined) {
    throw new ChatError('already_member', `expected a new member but ${userId} is already one`, {
      cause: error,
    });
  }
  if (violation === 'duplicate_one_to_one') {
    throw new ChatError(
      'one_to_one_exists',
      'expected no one_to_one room between these users but one exists',
      {
        cause: error,
      },
    );
  }
  throw error;
}
