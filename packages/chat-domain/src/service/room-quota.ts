import { ChatError } from '../errors.js';
import type { ServiceContext } from './context.js';

/**
 * How many rooms a user may be in before a room is refused: `maxRoomsPerUser` when others put the
 * user in (an invitee of someone's room, a member someone adds), twice that when the user creates the
 * room. So others can fill at most `maxRoomsPerUser` of a user's rooms, and the user always keeps at
 * least `maxRoomsPerUser` creations of their own; a listing holds at most `2 × maxRoomsPerUser` rooms.
 * Pure.
 */
export function roomLimitFor(maxRoomsPerUser: number, byThemselves: boolean): number {
  return byThemselves ? 2 * maxRoomsPerUser : maxRoomsPerUser;
}

/**
 * Refuses when one of `userIds` is already in as many rooms as {@link roomLimitFor} allows: the
 * actor's own limit for `actorId`, the limit of additions by others for everyone else. A bound on
 * what one listing returns, not a lock: two rooms created at the same moment may pass it by one each.
 * @throws ChatError `too_many_rooms` naming the first such user
 */
export async function requireRoomQuota(
  context: ServiceContext,
  actorId: string,
  userIds: readonly string[],
): Promise<void> {
  const { maxRoomsPerUser } = context.limits;
  for (const userId of userIds) {
    const byThemselves = userId === actorId;
    const limit = roomLimitFor(maxRoomsPerUser, byThemselves);
    if ((await context.store.countRoomsOfUser(userId)) < limit) continue;
    const message = byThemselves
      ? `expected ${userId} to be in fewer than ${limit} rooms (twice CHAT_MAX_ROOMS_PER_USER, for rooms of one's own) but the user is in that many; leave or delete rooms first`
      : `expected ${userId} to be in fewer than ${limit} rooms to be added by someone else but the user is in that many; the user can still create rooms of their own`;
    throw new ChatError('too_many_rooms', message, {
      details: { userId, maxRoomsPerUser, limit },
    });
  }
}
