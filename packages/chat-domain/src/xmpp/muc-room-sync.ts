import type { MemberRecord, RoomRecord } from '../model.js';
import { type EjabberdAdminClient, isRejectedCommand } from './ejabberd-admin-client.js';

/** The XMPP names of the mirror: users are `<userId>@domain`, rooms `<roomId>@mucDomain`. */
export interface XmppNames {
  domain: string;
  mucDomain: string;
}

/** What one room sync changed in ejabberd. */
export interface RoomSyncChanges {
  roomId: string;
  created: boolean;
  destroyed: boolean;
  /** The title or description was set. */
  renamed: boolean;
  /**
   * Names of the privacy options ({@link mirroredRoomOptions}) that had drifted (changed in ejabberd
   * by hand or by a client) and were set back.
   */
  optionsRepaired: string[];
  /** Affiliations set (owner, member, or none for those who left). */
  affiliations: number;
  /** Subscriptions added or removed (MUC/Sub: members receive and post without joining). */
  subscriptions: number;
}

/** Whether a sync changed anything. */
export function changedAnything(changes: RoomSyncChanges): boolean {
  return (
    changes.created ||
    changes.destroyed ||
    changes.renamed ||
    changes.optionsRepaired.length > 0 ||
    changes.affiliations > 0 ||
    changes.subscriptions > 0
  );
}

const subscriptionNodes = [
  'urn:xmpp:mucsub:nodes:messages',
  'urn:xmpp:mucsub:nodes:affiliations',
  'urn:xmpp:mucsub:nodes:config',
  'urn:xmpp:mucsub:nodes:subject',
].join(',');

interface AffiliationAnswer {
  username: string;
  domain: string;
  affiliation: string;
}

/**
 * Options every mirrored room has, set at creation and checked (and set back) on every sync: kept,
 * members only, archived, open to MUC/Sub, real JIDs visible to members, not listed, subject and
 * invitations closed to occupants. Not `moderated`: ejabberd remembers the role of an occupant of a
 * moderated room after its affiliation goes, which would let a removed member enter again. No member
 * is a MUC `owner` or `admin` (see {@link syncMucRoom}), so no XMPP client can submit the room
 * configuration form or grant membership; these options change only through mod_http_api.
 */
export const mirroredRoomOptions: Readonly<Record<string, 'true' | 'false'>> = {
  persistent: 'true',
  members_only: 'true',
  mam: 'true',
  allow_subscription: 'true',
  moderated: 'false',
  anonymous: 'false',
  public: 'false',
  public_list: 'false',
  allow_change_subj: 'false',
  allow_user_invites: 'false',
};

/** The MUC title of a room: its name, or the room id for rooms without one (one_to_one). */
const titleOf = (room: RoomRecord) => room.name || room.id;

async function destroyRoom(admin: EjabberdAdminClient, names: XmppNames, roomId: string): Promise<boolean> {
  try {
    await admin.command('destroy_room', { name: roomId, service: names.mucDomain });
    return true;
  } catch (error) {
    if (isRejectedCommand(error)) return false;
    throw error;
  }
}

async function ensureRoom(
  admin: EjabberdAdminClient,
  names: XmppNames,
  room: RoomRecord,
): Promise<{ created: boolean; renamed: boolean; optionsRepaired: string[] }> {
  const answer = await admin.command<Record<string, string> | unknown[] | null>('get_room_options', {
    name: room.id,
    service: names.mucDomain,
  });
  const title = titleOf(room);
  // ejabberd answers an empty list (`{}` or `[]` in JSON) for a room that does not exist.
  const current = answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? answer : {};
  if (Object.keys(current).length === 0) {
    await admin.command('create_room_with_opts', {
      name: room.id,
      service: names.mucDomain,
      host: names.domain,
      options: [
        ...Object.entries(mirroredRoomOptions).map(([name, value]) => ({ name, value })),
        { name: 'title', value: title },
        { name: 'description', value: room.description },
      ],
    });
    return { created: true, renamed: false, optionsRepaired: [] };
  }
  const optionsRepaired: string[] = [];
  for (const [option, value] of Object.entries(mirroredRoomOptions)) {
    if (String(current[option] ?? '') === value) continue;
    await admin.command('change_room_option', { name: room.id, service: names.mucDomain, option, value });
    optionsRepaired.push(option);
  }
  let renamed = false;
  for (const [option, value] of [
    ['title', title],
    ['description', room.description],
  ] as const) {
    if ((current[option] ?? '') === value) continue;
    await admin.command('change_room_option', { name: room.id, service: names.mucDomain, option, value });
    renamed = true;
  }
  return { created: false, renamed, optionsRepaired };
}

async function syncAffiliations(
  admin: EjabberdAdminClient,
  names: XmppNames,
  roomId: string,
  wanted: Set<string>,
): Promise<number> {
  const room = { name: roomId, service: names.mucDomain };
  const answer = await admin.command<AffiliationAnswer[]>('get_room_affiliations', room);
  const current = new Map(
    answer.map((entry) => [`${entry.username}@${entry.domain}`.toLowerCase(), entry.affiliation]),
  );
  const changes: [string, string][] = [];
  for (const jid of wanted) if (current.get(jid) !== 'member') changes.push([jid, 'member']);
  for (const [jid, affiliation] of current)
    if (!wanted.has(jid) && affiliation !== 'none') changes.push([jid, 'none']);
  for (const [jid, affiliation] of changes) {
    await admin.command('set_room_affiliation', { ...room, jid, affiliation });
  }
  return changes.length;
}

async function syncSubscriptions(
  admin: EjabberdAdminClient,
  names: XmppNames,
  roomId: string,
  wanted: Set<string>,
): Promise<number> {
  const roomJid = `${roomId}@${names.mucDomain}`;
  const answer = await admin.command<string[]>('get_subscribers', { name: roomId, service: names.mucDomain });
  const current = new Set(answer.map((jid) => jid.toLowerCase()));
  let changes = 0;
  for (const jid of wanted) {
    if (current.has(jid)) continue;
    const nick = jid.slice(0, jid.indexOf('@'));
    await admin.command('subscribe_room', { user: jid, nick, room: roomJid, nodes: subscriptionNodes });
    changes += 1;
  }
  if (changes > 0) {
    // ejabberd 23.01's subscribe_room lifts members_only while it subscribes and stores the room in
    // that state (mod_muc_room, `muc_subscribe`): the room it restores after a restart would be open.
    // Setting the option again stores the configuration as it is in memory.
    await admin.command('change_room_option', {
      name: roomId,
      service: names.mucDomain,
      option: 'members_only',
      value: 'true',
    });
  }
  for (const jid of current) {
    if (wanted.has(jid)) continue;
    await admin.command('unsubscribe_room', { user: jid, room: roomJid });
    changes += 1;
  }
  return changes;
}

/**
 * Brings the MUC room `<roomId>@mucDomain` in line with the stored room: absent (`room`
 * undefined) it is destroyed; otherwise it exists with the room's name as title, the
 * {@link mirroredRoomOptions} (drifted ones set back), every member affiliated `member` and
 * subscribed, anyone else `none`. Room owners of the API are plain MUC members too: a MUC `owner`
 * could submit the configuration form (open the room) and a MUC `admin` could grant membership to
 * anyone, so ownership stays in the API. Applying it again changes nothing.
 * @throws ChatError `dependency_failed` when ejabberd fails
 */
export async function syncMucRoom(
  admin: EjabberdAdminClient,
  names: XmppNames,
  roomId: string,
  room: { record: RoomRecord; members: readonly MemberRecord[] } | undefined,
): Promise<RoomSyncChanges> {
  const none = {
    roomId,
    created: false,
    destroyed: false,
    renamed: false,
    optionsRepaired: [],
    affiliations: 0,
    subscriptions: 0,
  };
  if (room === undefined) return { ...none, destroyed: await destroyRoom(admin, names, roomId) };
  const { created, renamed, optionsRepaired } = await ensureRoom(admin, names, room.record);
  const wanted = new Set(room.members.map((member) => `${member.userId}@${names.domain}`.toLowerCase()));
  const affiliations = await syncAffiliations(admin, names, roomId, wanted);
  const subscriptions = await syncSubscriptions(admin, names, roomId, wanted);
  return { ...none, created, renamed, optionsRepaired, affiliations, subscriptions };
}
