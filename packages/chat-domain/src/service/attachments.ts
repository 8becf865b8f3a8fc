import { z } from 'zod';
import { ChatError } from '../errors.js';
import { parseId } from '../ids.js';
import { parseInput, storableText } from '../inputs.js';
import type { Actor, Attachment, AttachmentRecord, AttachmentsPage } from '../model.js';
import type { StoredBlob } from '../ports/blob-store.js';
import { checkAttachmentDeletion, requireMember } from '../room-rules.js';
import { decodeAttachmentCursor, encodeAttachmentCursor } from './attachment-cursor.js';
import type { ServiceContext } from './context.js';
import { type AttachmentUpload, attachmentUploadSchema } from './uploads.js';
import { attachmentView } from './views.js';

/** An attachment opened for download. */
export interface AttachmentContent extends StoredBlob {
  attachment: Attachment;
}

/** Attachment operations: upload, list, get, download, delete. */
export function createAttachmentOperations(context: ServiceContext) {
  const { store, blobs, clock, limits } = context;
  const pageQuerySchema = z.object({
    itemsNumber: z.coerce.number().int().min(1).max(limits.maxAttachmentsPage).optional(),
    filter: storableText(z.string().min(1)).optional(),
  });

  async function uploadAttachment(
    actor: Actor,
    roomId: string,
    upload: AttachmentUpload,
  ): Promise<{ id: string }> {
    const { room } = await context.roomAsMember(actor, roomId);
    const metadata = parseInput(attachmentUploadSchema, { ...upload, content: undefined }, 'attachment');
    const maxBytes = limits.maxAttachmentBytes;
    if (metadata.declaredSize !== undefined && metadata.declaredSize > maxBytes) {
      throw new ChatError(
        'payload_too_large',
        `expected at most ${maxBytes} bytes but received ${metadata.declaredSize}`,
        {
          details: { maxBytes },
        },
      );
    }
    const id = context.createId();
    const blobKey = `attachments/${id}`;
    const { size } = await blobs.put(blobKey, upload.content, { maxBytes });
    const record: AttachmentRecord = {
      id,
      roomId: room.id,
      userId: actor.userId,
      name: metadata.fileName,
      mimeType: metadata.mimeType,
      size,
      area: metadata.area ?? null,
      blobKey,
      createdAt: clock.now(),
    };
    const notice = context.outboxMessage({
      type: 'ROOM_ATTACHMENT_ADDED',
      roomId: room.id,
      senderId: actor.userId,
      attachment: {
        id: record.id,
        name: record.name,
        mimeType: record.mimeType,
        size: record.size,
        ...(record.area !== null ? { area: record.area } : {}),
      },
      ...(metadata.description !== undefined ? { description: metadata.description } : {}),
      ...(metadata.messageId !== undefined ? { messageId: metadata.messageId } : {}),
      ...(metadata.replyId !== undefined ? { replyId: metadata.replyId } : {}),
    });
    try {
      await store.insertAttachment(record, [notice]);
    } catch (error) {
      await blobs
        .delete(blobKey)
        .catch((cleanupError) => context.onBackgroundError(cleanupError, `deleting ${blobKey}`));
      throw error;
    }
    const memberIds = (await store.listMembers(room.id)).map((member) => member.userId);
    await context.dispatch(notice.message, memberIds);
    return { id };
  }

  async function listAttachments(
    actor: Actor,
    roomId: string,
    query: { itemsNumber?: unknown; filter?: unknown },
  ) {
    const { room } = await context.roomAsMember(actor, roomId);
    const page = parseInput(pageQuerySchema, query, 'attachments query');
    const after = page.filter === undefined ? undefined : decodeAttachmentCursor(page.filter);
    const limit = page.itemsNumber ?? limits.defaultAttachmentsPage;
    const found = await store.listAttachments(room.id, { limit: limit + 1, ...(after ? { after } : {}) });
    const pageItems = found.slice(0, limit);
    const result: AttachmentsPage = { attachments: pageItems.map(attachmentView) };
    const last = pageItems.at(-1);
    if (found.length > limit && last) result.filter = encodeAttachmentCursor(last);
    return result;
  }

  /** Loads an attachment the caller may see. @throws ChatError `attachment_not_found`, `not_a_member` */
  async function attachmentAsMember(actor: Actor, rawId: string) {
    const id = parseId(rawId, 'attachment_not_found', 'attachment');
    const attachment = await store.getAttachment(id);
    if (attachment === undefined)
      throw new ChatError('attachment_not_found', `expected an existing attachment but ${id} does not exist`);
    const room = await store.getRoom(attachment.roomId);
    if (room === undefined)
      throw new ChatError('attachment_not_found', `expected an existing attachment but ${id} does not exist`);
    const caller = requireMember(room, await store.getMember(room.id, actor.userId));
    return { attachment, caller };
  }

  async function getAttachment(actor: Actor, attachmentId: string): Promise<Attachment> {
    return attachmentView((await attachmentAsMember(actor, attachmentId)).attachment);
  }

  async function openAttachment(actor: Actor, attachmentId: string): Promise<AttachmentContent> {
    const { attachment } = await attachmentAsMember(actor, attachmentId);
    const blob = await blobs.get(attachment.blobKey);
    if (blob === undefined) {
      throw new ChatError(
        'blob_missing',
        `expected the bytes of attachment ${attachment.id} but the blob store has none`,
      );
    }
    return { ...blob, attachment: attachmentView(attachment) };
  }

  async function deleteAttachment(actor: Actor, attachmentId: string): Promise<void> {
    const { attachment, caller } = await attachmentAsMember(actor, attachmentId);
    checkAttachmentDeletion(attachment, caller);
    await store.deleteAttachment(attachment.id);
    await context.purgeBlobs();
  }

  return {
    uploadAttachment,
    listAttachments,
    getAttachment,
    openAttachment,
    deleteAttachment,
    attachmentAsMember,
  };
}
