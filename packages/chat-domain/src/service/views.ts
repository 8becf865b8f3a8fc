import type {
  Attachment,
  AttachmentRecord,
  Member,
  MemberRecord,
  Room,
  RoomRecord,
  RoomUserSettings,
  RoomUserSettingsRecord,
} from '../model.js';

/** A member as the API shows it. */
export function memberView(member: MemberRecord): Member {
  return { userId: member.userId, owner: member.owner };
}

/** Settings as the API shows them; no row means not muted and never cleared. */
export function settingsView(settings: RoomUserSettingsRecord | null | undefined): RoomUserSettings {
  const view: RoomUserSettings = { muted: settings?.muted ?? false };
  if (settings?.clearedAt) view.clearedAt = settings.clearedAt.toISOString();
  return view;
}

/**
 * A room as the API shows it; `members` is empty unless given (and used as given, not copied),
 * `userSettings` absent unless given.
 */
export function roomView(
  room: RoomRecord,
  members?: readonly Member[],
  settings?: RoomUserSettingsRecord | null,
): Room {
  const view: Room = {
    id: room.id,
    type: room.type,
    name: room.name,
    description: room.description,
    createdAt: room.createdAt.toISOString(),
    updatedAt: room.updatedAt.toISOString(),
    members: (members ?? []) as Member[],
  };
  if (room.meetingId !== null) view.meetingId = room.meetingId;
  if (room.pictureUpdatedAt !== null) view.pictureUpdatedAt = room.pictureUpdatedAt.toISOString();
  if (settings !== undefined) view.userSettings = settingsView(settings);
  return view;
}

/** Attachment metadata as the API shows it. */
export function attachmentView(attachment: AttachmentRecord): Attachment {
  const view: Attachment = {
    id: attachment.id,
    name: attachment.name,
    size: attachment.size,
    mimeType: attachment.mimeType,
    userId: attachment.userId,
    roomId: attachment.roomId,
    createdAt: attachment.createdAt.toISOString(),
  };
  if (attachment.area !== null) view.area = attachment.area;
  return view;
}
