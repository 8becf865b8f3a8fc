import type { ChatStore } from '../ports/chat-store.js';
import type { EjabberdAdminClient } from './ejabberd-admin-client.js';
import { changedAnything, type RoomSyncChanges, type XmppNames } from './muc-room-sync.js';

/** What a full resync changed. Every count is 0 when XMPP already matched the store. */
export interface ResyncReport {
  /** Rooms of the store that were checked. */
  roomsChecked: number;
  roomsCreated: number;
  /** MUC rooms destroyed because the store has no such room. */
  roomsDestroyed: number;
  roomsRenamed: number;
  /** Privacy options set back, as `<roomId>: <option>` (a room opened by hand or by a client). */
  optionsRepaired: string[];
  affiliationsChanged: number;
  subscriptionsChanged: number;
  /** Ids of the rooms something was changed for. */
  changedRoomIds: string[];
}

/** Rooms read from the store per page. */
const page = 500;

/**
 * Syncs every room of the store, then destroys the MUC rooms of the mirror's service that the store
 * does not have (a room deleted while the mirror was down and its outbox lost).
 */
export async function resyncAllRooms(input: {
  admin: EjabberdAdminClient;
  names: XmppNames;
  store: ChatStore;
  syncRoom(roomId: string): Promise<RoomSyncChanges>;
}): Promise<ResyncReport> {
  const { admin, names, store } = input;
  const report: ResyncReport = {
    roomsChecked: 0,
    roomsCreated: 0,
    roomsDestroyed: 0,
    roomsRenamed: 0,
    optionsRepaired: [],
    affiliationsChanged: 0,
    subscriptionsChanged: 0,
    changedRoomIds: [],
  };
  const add = (changes: RoomSyncChanges) => {
    report.roomsCreated += Number(changes.created);
    report.roomsDestroyed += Number(changes.destroyed);
    report.roomsRenamed += Number(changes.renamed);
    for (const option of changes.optionsRepaired) report.optionsRepaired.push(`${changes.roomId}: ${option}`);
    report.affiliationsChanged += changes.affiliations;
    report.subscriptionsChanged += changes.subscriptions;
    if (changedAnything(changes)) report.changedRoomIds.push(changes.roomId);
  };
  const known = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const ids = await store.listRoomIds({ limit: page, after });
    for (const roomId of ids) {
      known.add(roomId);
      report.roomsChecked += 1;
      add(await input.syncRoom(roomId));
    }
    if (ids.length < page) break;
    after = ids.at(-1);
  }
  const mucRooms = await admin.command<string[]>('muc_online_rooms', { service: names.mucDomain });
  for (const roomJid of mucRooms) {
    const roomId = roomJid.slice(0, roomJid.indexOf('@'));
    if (known.has(roomId) || (await store.getRoom(roomId)) !== undefined) continue;
    add(await input.syncRoom(roomId));
  }
  return report;
}
