import { ChatError, roomNotFound } from '../errors.js';
import type {
  AttachmentRecord,
  MemberRecord,
  PictureRecord,
  RoomListing,
  RoomRecord,
  RoomUserSettingsRecord,
} from '../model.js';
import type { AttachmentCursor, ChatStore, RoomChanges } from '../ports/chat-store.js';
import { withInProcessRoomLock } from './in-process-room-lock.js';
import { createMemoryMeetingQueries } from './memory-meeting-queries.js';
import { createMemoryMirrorOutbox } from './memory-mirror-outbox.js';
import {
  compareAttachmentsNewestFirst,
  compareMembersInJoinOrder,
  compareRoomsOldestFirst,
  isAfterCursor,
} from './ordering.js';

/** A {@link ChatStore} in memory, for tests and throwaway servers. */
export function createMemoryChatStore(): ChatStore {
  const rooms = new Map<string, RoomRecord>();
  const oneToOneKeys = new Map<string, string>();
  const members = new Map<string, Map<string, MemberRecord>>();
  const roomsOfUser = new Map<string, Set<string>>();
  const settings = new Map<string, RoomUserSettingsRecord>();
  const pictures = new Map<string, PictureRecord>();
  const attachments = new Map<string, AttachmentRecord>();
  const pendingDeletions = new Set<string>();
  const settingsKey = (roomId: string, userId: string) => `${roomId}|${userId}`;

  const existingRoom = (roomId: string): RoomRecord => {
    const room = rooms.get(roomId);
    if (room === undefined) throw roomNotFound(roomId);
    return room;
  };
  const linkUser = (roomId: string, userId: string) => {
    const set = roomsOfUser.get(userId) ?? new Set<string>();
    set.add(roomId);
    roomsOfUser.set(userId, set);
  };
  const unlinkUser = (roomId: string, userId: string) => {
    roomsOfUser.get(userId)?.delete(roomId);
    settings.delete(settingsKey(roomId, userId));
  };
  const membersOf = (roomId: string) =>
    [...(members.get(roomId)?.values() ?? [])]
      .sort(compareMembersInJoinOrder)
      .map((member) => ({ ...member }));
  const upsertSettings = (roomId: string, userId: string, change: Partial<RoomUserSettingsRecord>) => {
    existingRoom(roomId);
    const current = settings.get(settingsKey(roomId, userId)) ?? { muted: false, clearedAt: null };
    settings.set(settingsKey(roomId, userId), { ...current, ...change });
    return current;
  };

  const { deleteMeetingsOfRoom, ...meetingQueries } = createMemoryMeetingQueries({
    roomExists: (roomId) => rooms.has(roomId),
    roomIdsOfUser: (userId) => roomsOfUser.get(userId) ?? [],
    setRoomMeetingId: (roomId, meetingId) => {
      const room = existingRoom(roomId);
      rooms.set(roomId, { ...room, meetingId });
    },
  });

  const { roomChanged, messagesQueued, ...outbox } = createMemoryMirrorOutbox(() => rooms.keys());
  return withInProcessRoomLock({
    ...meetingQueries,
    async insertRoom(room, roomMembers, oneToOneKey, messages) {
      if (oneToOneKey !== undefined && oneToOneKeys.has(oneToOneKey)) {
        throw new ChatError(
          'one_to_one_exists',
          'expected no one_to_one room between these users but one exists',
        );
      }
      rooms.set(room.id, { ...room });
      if (oneToOneKey !== undefined) oneToOneKeys.set(oneToOneKey, room.id);
      members.set(room.id, new Map(roomMembers.map((member) => [member.userId, { ...member }])));
      for (const member of roomMembers) linkUser(room.id, member.userId);
      roomChanged(room.id);
      messagesQueued(messages);
    },
    async getRoom(roomId) {
      const room = rooms.get(roomId);
      return room && { ...room };
    },
    async findOneToOneRoom(key) {
      const roomId = oneToOneKeys.get(key);
      const room = roomId === undefined ? undefined : rooms.get(roomId);
      return room && { ...room };
    },
    async countRoomsOfUser(userId) {
      return roomsOfUser.get(userId)?.size ?? 0;
    },
    async listRoomsOfUser(userId, include, page) {
      const found = [...(roomsOfUser.get(userId) ?? [])]
        .map((roomId) => existingRoom(roomId))
        .sort(compareRoomsOldestFirst);
      const after = page?.after;
      const start = after
        ? found.filter((room) => compareRoomsOldestFirst(room, { ...room, ...after }) <= 0).length
        : 0;
      const selected = page ? found.slice(start, start + page.limit) : found;
      return selected.map((room) => {
        const listing: RoomListing = { room: { ...room } };
        if (include.members)
          listing.members = membersOf(room.id).map(({ userId, owner }) => ({ userId, owner }));
        if (include.settings) {
          const row = settings.get(settingsKey(room.id, userId));
          listing.settings = row ? { ...row } : null;
        }
        return listing;
      });
    },
    async updateRoom(roomId: string, changes: RoomChanges, messages) {
      const room = rooms.get(roomId);
      if (room === undefined) return undefined;
      const updated = { ...room, ...changes };
      rooms.set(roomId, updated);
      if (updated.name !== room.name || updated.description !== room.description) roomChanged(roomId);
      messagesQueued(messages);
      return { ...updated };
    },
    async deleteRoom(roomId) {
      if (!rooms.has(roomId)) return false;
      const picture = pictures.get(roomId);
      if (picture) pendingDeletions.add(picture.blobKey);
      pictures.delete(roomId);
      for (const attachment of [...attachments.values()]) {
        if (attachment.roomId !== roomId) continue;
        pendingDeletions.add(attachment.blobKey);
        attachments.delete(attachment.id);
      }
      for (const userId of members.get(roomId)?.keys() ?? []) unlinkUser(roomId, userId);
      members.delete(roomId);
      for (const [key, value] of oneToOneKeys) if (value === roomId) oneToOneKeys.delete(key);
      deleteMeetingsOfRoom(roomId);
      rooms.delete(roomId);
      roomChanged(roomId);
      return true;
    },
    async getMember(roomId, userId) {
      const member = members.get(roomId)?.get(userId);
      return member && { ...member };
    },
    async listMembers(roomId) {
      return membersOf(roomId);
    },
    async insertMember(roomId, member, memberSettings, messages) {
      existingRoom(roomId);
      const roomMembers = members.get(roomId) ?? new Map<string, MemberRecord>();
      if (roomMembers.has(member.userId)) {
        throw new ChatError('already_member', `expected a new member but ${member.userId} is already one`);
      }
      roomMembers.set(member.userId, { ...member });
      members.set(roomId, roomMembers);
      linkUser(roomId, member.userId);
      if (memberSettings) settings.set(settingsKey(roomId, member.userId), { ...memberSettings });
      roomChanged(roomId);
      messagesQueued(messages);
    },
    async deleteMember(roomId, userId, messages) {
      if (!members.get(roomId)?.delete(userId)) return false;
      unlinkUser(roomId, userId);
      roomChanged(roomId);
      messagesQueued(messages);
      return true;
    },
    async setOwner(roomId, userId, owner) {
      const member = members.get(roomId)?.get(userId);
      if (member === undefined) return false;
      if (member.owner !== owner) roomChanged(roomId);
      member.owner = owner;
      return true;
    },
    async getSettings(roomId, userId) {
      const row = settings.get(settingsKey(roomId, userId));
      return row && { ...row };
    },
    async setMuted(roomId, userId, muted) {
      return upsertSettings(roomId, userId, { muted }).muted !== muted;
    },
    async setClearedAt(roomId, userId, clearedAt) {
      upsertSettings(roomId, userId, { clearedAt });
    },
    async getPicture(roomId) {
      const picture = pictures.get(roomId);
      return picture && { ...picture };
    },
    async setPicture(picture, messages) {
      const room = existingRoom(picture.roomId);
      const previous = pictures.get(picture.roomId);
      if (previous && previous.blobKey !== picture.blobKey) pendingDeletions.add(previous.blobKey);
      pictures.set(picture.roomId, { ...picture });
      rooms.set(room.id, { ...room, pictureUpdatedAt: picture.updatedAt, updatedAt: picture.updatedAt });
      messagesQueued(messages);
    },
    async deletePicture(roomId, updatedAt, messages) {
      const picture = pictures.get(roomId);
      const room = rooms.get(roomId);
      if (picture === undefined || room === undefined) return false;
      pendingDeletions.add(picture.blobKey);
      pictures.delete(roomId);
      rooms.set(roomId, { ...room, pictureUpdatedAt: null, updatedAt });
      messagesQueued(messages);
      return true;
    },
    async insertAttachment(attachment, messages) {
      existingRoom(attachment.roomId);
      attachments.set(attachment.id, { ...attachment });
      messagesQueued(messages);
    },
    async getAttachment(attachmentId) {
      const attachment = attachments.get(attachmentId);
      return attachment && { ...attachment };
    },
    async listAttachments(roomId: string, page: { limit: number; after?: AttachmentCursor }) {
      return [...attachments.values()]
        .filter((attachment) => attachment.roomId === roomId && isAfterCursor(attachment, page.after))
        .sort(compareAttachmentsNewestFirst)
        .slice(0, page.limit)
        .map((attachment) => ({ ...attachment }));
    },
    async deleteAttachment(attachmentId) {
      const attachment = attachments.get(attachmentId);
      if (attachment === undefined) return false;
      pendingDeletions.add(attachment.blobKey);
      attachments.delete(attachmentId);
      return true;
    },
    async findReferencedBlobKeys(blobKeys) {
      const referenced = new Set([
        ...[...attachments.values()].map((attachment) => attachment.blobKey),
        ...[...pictures.values()].map((picture) => picture.blobKey),
      ]);
      return blobKeys.filter((key) => referenced.has(key));
    },
    async listPendingBlobDeletions(limit) {
      return [...pendingDeletions].slice(0, limit);
    },
    async forgetPendingBlobDeletions(blobKeys) {
      for (const key of blobKeys) pendingDeletions.delete(key);
    },
    ...outbox,
    async close() {},
  });
}
