import type { Database, Statement } from 'better-sqlite3';
import type { Member } from '../model.js';

/** Rooms whose member lists the store keeps in memory; past it the cache starts over. */
const maxCachedRooms = 50_000;
/** Rooms whose member lists one query reads: about 3 ms of SQLite and JSON at 128 members a room. */
const roomsPerQuery = 16;
/**
 * Longest stretch of member queries before the event loop serves other work: a quarter of the 20
 * ms a server can stall unnoticed (one query of 16 rooms can overrun it). 500 rooms of 128 members take 60 to 100 ms to read.
 */
const sliceMilliseconds = 5;

/** Member lists of rooms, cached in memory and read from SQLite a few rooms at a time. */
export interface SqliteMemberLists {
  /**
   * The member list of each of `roomIds` (`[]` for a room without members), in join order, frozen.
   * Lists missing from the cache are read in queries of 16 rooms, letting the event loop run every
   * 10 ms or so.
   */
  of(roomIds: readonly string[]): Promise<Map<string, readonly Member[]>>;
  /** Drops the cached list of `roomId`; call whenever its members change. */
  forget(roomId: string): void;
}

/** Members aggregated by SQLite as `[{userId, owner}, ...]` in join order, frozen for sharing. */
function membersFromJson(json: string): readonly Member[] {
  const members = JSON.parse(json) as Member[];
  for (const member of members) Object.freeze(member);
  return Object.freeze(members);
}

/**
 * Resolves on the next turn of the event loop that has run its timers and polled for I/O. A timer,
 * not `setImmediate`: work started from an I/O callback would run its next slice in the same turn's
 * check phase, and timers and I/O would wait for two slices instead of one.
 */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The member lists of the rooms in `database`'s `chat_room_members`. */
export function createSqliteMemberLists(database: Database): SqliteMemberLists {
  const cache = new Map<string, readonly Member[]>();
  // One row per room id of the JSON array bound to `?`, in its order: the id and its members as JSON.
  const query = database
    .prepare(
      `SELECT j.value, (SELECT json_group_array(json_object('userId', a.user_id, 'owner', json(CASE a.owner WHEN 1 THEN 'true' ELSE 'false' END)))
         FROM (SELECT user_id, owner FROM chat_room_members WHERE room_id = j.value ORDER BY joined_at, owner DESC, user_id) a)
       FROM json_each(?) j`,
    )
    .raw(true) as Statement<[string], [string, string]>;

  const read = (roomIds: readonly string[], into: Map<string, readonly Member[]>) => {
    const rows = query.all(JSON.stringify(roomIds));
    if (cache.size + rows.length > maxCachedRooms) cache.clear();
    for (const [roomId, json] of rows) {
      const members = membersFromJson(json);
      into.set(roomId, members);
      // A room without members is one deleted since it was listed: nothing to keep.
      if (members.length > 0) cache.set(roomId, members);
    }
  };

  return {
    async of(roomIds) {
      const lists = new Map<string, readonly Member[]>();
      const missing: string[] = [];
      for (const roomId of roomIds) {
        const cached = cache.get(roomId);
        if (cached) lists.set(roomId, cached);
        else missing.push(roomId);
      }
      let sliceStart = performance.now();
      for (let start = 0; start < missing.length; start += roomsPerQuery) {
        if (performance.now() - sliceStart >= sliceMilliseconds) {
          await nextTurn();
          sliceStart = performance.now();
        }
        read(missing.slice(start, start + roomsPerQuery), lists);
      }
      return lists;
    },
    forget(roomId) {
      cache.delete(roomId);
    },
  };
}
