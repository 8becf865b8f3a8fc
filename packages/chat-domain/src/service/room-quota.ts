import { ChatError } from '../errors.js';
import type { ServiceContext } from './context.js';

/**
 * Refuses when one of `userIds` is already in as many rooms as a user may be in. A bound on what
 * one listing returns, not a lock: two rooms created at the same moment may pass it by one each.
 * @throws ChatError `too_many_rooms` naming the first such user
 */
export async function requireRoomQuota(context: ServiceContext, userIds: readonly string[]): Promise<void> {
  const { maxRoomsPerUser } = context.limits;
  for (const userId of userIds) {
    if ((await context.store.countRoomsOfUser(userId)) < maxRoomsPerUser) continue;
    throw new ChatError(
      'too_many_rooms',
      `expected ${userId} to be in fewer than ${maxRoomsPerUser} rooms but the user is in that many; leave or delete rooms first`,
      { details: { userId, maxRoomsPerUser } },
    );
  }
}
