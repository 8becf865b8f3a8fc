import type { ForwardedMessage, MemberToInsert, RoomCreationFields, RoomEditableFields } from './inputs.js';
import type { Actor, Attachment, AttachmentsPage, Member, MemberInserted, Room } from './model.js';
import type {
  parseForwardMessages,
  parseMemberToInsert,
  parseRoomCreation,
  parseRoomEdit,
  RequestBody,
  requestBody,
} from './parse-bodies.js';
import type { BlobSweepResult } from './ports/blob-store.js';
import type { AttachmentContent } from './service/attachments.js';
import { createAttachmentOperations } from './service/attachments.js';
import { createServiceContext } from './service/context.js';
import { createForwardOperations } from './service/forward.js';
import { createMemberOperations } from './service/members.js';
import {
  type ChatServiceOptions,
  type ResolvedChatServiceOptions,
  resolveChatServiceOptions,
} from './service/options.js';
import { createPictureOperations, type RoomPicture } from './service/pictures.js';
import { createRoomOperations } from './service/rooms.js';
import { createSettingsOperations } from './service/settings.js';
import type { AttachmentUpload, FileUpload } from './service/uploads.js';

/**
 * Chat rooms on behalf of a user. Ids in paths that are not UUIDs fail like unknown ids. Checks run
 * in the original's order: input shape (`invalid_input`), then `room_not_found`, `not_a_member`,
 * `not_an_owner`, then the room's rules.
 */
export interface ChatService {
  /** Rooms of the caller; `extraFields` (`members`, `settings`, repeated or comma-joined) adds them. @throws ChatError `invalid_input` */
  listRooms(actor: Actor, extraFields?: unknown): Promise<Room[]>;
  /**
   * One page of the caller's rooms, oldest first: at most `limit`, after the room `cursor` names
   * (from the previous page's `nextCursor`); `nextCursor` is undefined on the last page.
   * @throws ChatError `invalid_input` (bad extraFields or cursor)
   */
  listRoomsPage(
    actor: Actor,
    extraFields: unknown,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ rooms: Room[]; nextCursor: string | undefined }>;
  /**
   * Creates a room; the caller becomes an owner. HTTP layers parse a body with {@link parseRoomCreation}, or pass it
   * as {@link requestBody}(body) to have it checked where the original API checks it.
   * @throws ChatError `invalid_input`, `operation_not_allowed`, `room_full`, `one_to_one_exists`, `user_not_found`, `too_many_rooms`
   */
  createRoom(actor: Actor, fields: RoomCreationFields | RequestBody<RoomCreationFields>): Promise<Room>;
  /** A room with members and the caller's settings. @throws ChatError `room_not_found`, `not_a_member` */
  getRoom(actor: Actor, roomId: string): Promise<Room>;
  /**
   * Renames or redescribes a group or temporary room (owners only). HTTP layers parse a body with
   * {@link parseRoomEdit}.
   * @throws ChatError `invalid_input`, `room_not_found`, `not_a_member`, `operation_not_allowed`, `not_an_owner`
   */
  updateRoom(
    actor: Actor,
    roomId: string,
    fields: RoomEditableFields | RequestBody<RoomEditableFields>,
  ): Promise<Room>;
  /**
   * Deletes a group or temporary room with its picture, attachments and settings (owners only).
   * @throws ChatError `room_not_found`, `not_a_member`, `forbidden`, `not_an_owner`
   */
  deleteRoom(actor: Actor, roomId: string): Promise<void>;

  /** @throws ChatError `room_not_found`, `not_a_member` */
  listMembers(actor: Actor, roomId: string): Promise<Member[]>;
  /**
   * Adds a member (owners only); `owner` and `historyCleared` default to false. HTTP layers parse a
   * body with {@link parseMemberToInsert}, which requires all three fields as the original API does,
   * or pass {@link requestBody}(body), checked the same way after the access checks.
   * @throws ChatError `invalid_input`, `user_not_found`, `room_not_found`, `not_a_member`, `not_an_owner`, `operation_not_allowed`, `room_full`, `already_member`
   */
  addMember(
    actor: Actor,
    roomId: string,
    member: MemberToInsert | RequestBody<MemberToInsert>,
  ): Promise<MemberInserted>;
  /**
   * Removes a member (owners) or leaves (the caller); the last member leaving deletes the room.
   * @throws ChatError `room_not_found`, `not_a_member`, `not_an_owner`, `operation_not_allowed`, `member_not_found`, `last_owner`
   */
  removeMember(actor: Actor, roomId: string, userId: string): Promise<void>;
  /**
   * Promotes (`owner` true) or demotes another member (owners only).
   * @throws ChatError `operation_not_allowed`, `room_not_found`, `not_a_member`, `not_an_owner`, `forbidden`
   */
  setOwner(actor: Actor, roomId: string, userId: string, owner: boolean): Promise<void>;

  /** @throws ChatError `room_not_found`, `not_a_member` */
  muteRoom(actor: Actor, roomId: string): Promise<void>;
  /** @throws ChatError `room_not_found`, `not_a_member` */
  unmuteRoom(actor: Actor, roomId: string): Promise<void>;
  /** Sets the caller's history watermark to now. @throws ChatError `room_not_found`, `not_a_member` */
  clearHistory(actor: Actor, roomId: string): Promise<{ clearedAt: string }>;

  /**
   * Sets a group room's picture (owners only); the bytes must be a raster image.
   * @throws ChatError `invalid_input`, `room_not_found`, `not_a_member`, `not_an_owner`, `operation_not_allowed`, `picture_too_large`, `invalid_picture`
   */
  setPicture(actor: Actor, roomId: string, upload: FileUpload): Promise<void>;
  /** @throws ChatError `room_not_found`, `not_a_member`, `picture_not_found`, `blob_missing` */
  getPicture(actor: Actor, roomId: string): Promise<RoomPicture>;
  /** @throws ChatError `room_not_found`, `not_a_member`, `not_an_owner`, `picture_not_found` */
  deletePicture(actor: Actor, roomId: string): Promise<void>;

  /**
   * Stores an attachment and announces it in the room.
   * @throws ChatError `invalid_input`, `room_not_found`, `not_a_member`, `payload_too_large`
   */
  uploadAttachment(actor: Actor, roomId: string, upload: AttachmentUpload): Promise<{ id: string }>;
  /** Newest first; `filter` from a previous page continues. @throws ChatError `invalid_input`, `room_not_found`, `not_a_member` */
  listAttachments(
    actor: Actor,
    roomId: string,
    query: { itemsNumber?: unknown; filter?: unknown },
  ): Promise<AttachmentsPage>;
  /** @throws ChatError `attachment_not_found`, `not_a_member` */
  getAttachment(actor: Actor, attachmentId: string): Promise<Attachment>;
  /** @throws ChatError `attachment_not_found`, `not_a_member`, `blob_missing` */
  openAttachment(actor: Actor, attachmentId: string): Promise<AttachmentContent>;
  /** Uploader or owner only. @throws ChatError `attachment_not_found`, `not_a_member`, `forbidden` */
  deleteAttachment(actor: Actor, attachmentId: string): Promise<void>;

  /**
   * Forwards messages into a room, copying their attachments. HTTP layers parse a body with
   * {@link parseForwardMessages}; the configured limits are checked here.
   * @throws ChatError `invalid_input`, `room_not_found`, `not_a_member`, `attachment_not_found`, `blob_missing`, `dependency_failed`
   */
  forwardMessages(
    actor: Actor,
    roomId: string,
    messages: readonly ForwardedMessage[] | RequestBody<readonly ForwardedMessage[]>,
  ): Promise<void>;

  /** Deletes bytes left behind by earlier deletions that failed midway; returns how many. */
  purgeDeletedBlobs(): Promise<number>;
  /**
   * Removes what a crash during an upload leaves in the blob store: temporary files, and complete
   * blobs whose attachment or picture row was never written, when last written more than `graceMs`
   * ago (longer than any upload takes). Blobs a row points at are never touched. Stores without a
   * sweep report nothing removed.
   */
  sweepBlobs(options: { graceMs: number }): Promise<BlobSweepResult>;
  /** The resolved options, ports included. */
  readonly options: ResolvedChatServiceOptions;
}

/** Creates the chat service facade; options are parsed once. @throws ChatError `invalid_input` for bad options */
export function createChatService(options: ChatServiceOptions = {}): ChatService {
  const resolved = resolveChatServiceOptions(options);
  const context = createServiceContext(resolved);
  const rooms = createRoomOperations(context);
  const members = createMemberOperations(context, rooms.removeRoom);
  const attachments = createAttachmentOperations(context);
  const { removeRoom: _removeRoom, ...roomOperations } = rooms;
  const { attachmentAsMember, ...attachmentOperations } = attachments;
  return {
    ...roomOperations,
    ...members,
    ...createSettingsOperations(context),
    ...createPictureOperations(context),
    ...attachmentOperations,
    ...createForwardOperations(context, attachmentAsMember),
    purgeDeletedBlobs: () => context.purgeBlobs(),
    async sweepBlobs({ graceMs }) {
      const sweep = resolved.blobs.sweep;
      if (sweep === undefined) return { temporaries: 0, unreferenced: 0 };
      return sweep.call(resolved.blobs, {
        olderThan: new Date(resolved.clock.now().getTime() - graceMs),
        isReferenced: (keys) => resolved.store.findReferencedBlobKeys(keys),
      });
    },
    options: resolved,
  };
}
