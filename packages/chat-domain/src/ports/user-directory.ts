import type { Actor } from '../model.js';

/** Decides whether a user id belongs to a real user before it is invited into a room. */
export interface UserDirectory {
  /**
   * Whether `userId` is a user, asked on behalf of `requester`.
   * @throws ChatError `dependency_failed` when the directory cannot answer
   */
  userExists(userId: string, requester: Actor): Promise<boolean>;
}

/** The default directory: every well-formed UUID is a user. */
export function createOpenUserDirectory(): UserDirectory {
  return { userExists: async () => true };
}

/** A directory knowing exactly the given users, for tests and small setups. */
export function createStaticUserDirectory(userIds: Iterable<string>): UserDirectory & {
  add(userId: string): void;
} {
  const known = new Set(Array.from(userIds, (id) => id.toLowerCase()));
  return {
    userExists: async (userId) => known.has(userId.toLowerCase()),
    add: (userId) => {
      known.add(userId.toLowerCase());
    },
  };
}
