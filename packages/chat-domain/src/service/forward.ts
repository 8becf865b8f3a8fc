import { z } from 'zod';
import { ChatError } from '../errors.js';
import type { RoomMessagePayload } from '../events.js';
import { type ForwardedMessage, forwardMessageSchema, parseInput, storableText } from '../inputs.js';
import type { Actor, AttachmentRecord } from '../model.js';
import { bodyOf, isRequestBody, type RequestBody } from '../parse-bodies.js';
import type { ServiceContext } from './context.js';
import { inspectOriginalMessage } from './original-message.js';

interface PlannedForward {
  originalMessage: string;
  originalMessageSentAt?: string;
  description?: string;
  count: number;
  source?: AttachmentRecord;
}

/** Forwarding messages, with copies of their attachments, into a room. */
export function createForwardOperations(
  context: ServiceContext,
  attachmentAsMember: (actor: Actor, attachmentId: string) => Promise<{ attachment: AttachmentRecord }>,
) {
  const { store, blobs, clock, limits } = context;
  const bodySchema = z
    .array(
      z.strictObject({
        ...forwardMessageSchema.shape,
        originalMessage: storableText(z.string().min(1).max(limits.maxOriginalMessageLength)),
      }),
    )
    .min(1)
    .max(limits.maxForwardedMessages);
  // A request body: the original's shape, unknown keys ignored.
  const requestBodySchema = z
    .array(
      forwardMessageSchema.extend({
        originalMessage: storableText(z.string().min(1).max(limits.maxOriginalMessageLength)),
      }),
    )
    .min(1)
    .max(limits.maxForwardedMessages);

  /** Copies an attachment into the room; the forward `noticeOf` the copy is queued with its metadata. */
  async function copyAttachment(
    actor: Actor,
    roomId: string,
    source: AttachmentRecord,
    noticeOf: (copy: AttachmentRecord) => RoomMessagePayload,
  ): Promise<RoomMessagePayload> {
    const id = context.createId();
    const copy: AttachmentRecord = {
      ...source,
      id,
      roomId,
      userId: actor.userId,
      blobKey: `attachments/${id}`,
      createdAt: clock.now(),
    };
    if (!(await blobs.copy(source.blobKey, copy.blobKey))) {
      throw new ChatError(
        'blob_missing',
        `expected the bytes of attachment ${source.id} but the blob store has none`,
      );
    }
    const notice = context.outboxMessage(noticeOf(copy));
    try {
      await store.insertAttachment(copy, [notice]);
    } catch (error) {
      await blobs
        .delete(copy.blobKey)
        .catch((cleanupError) => context.onBackgroundError(cleanupError, `deleting ${copy.blobKey}`));
      throw error;
    }
    return notice.message;
  }

  /**
   * Checks every item (XML, attachment existence, the caller's membership of its room) before
   * anything is copied or sent, then copies and delivers them in order.
   */
  async function forwardMessages(
    actor: Actor,
    roomId: string,
    messages: readonly ForwardedMessage[] | RequestBody<readonly ForwardedMessage[]>,
  ): Promise<void> {
    const { room } = await context.roomAsMember(actor, roomId);
    const items = isRequestBody(messages)
      ? parseInput(requestBodySchema, bodyOf(messages), 'forward')
      : parseInput(bodySchema, messages, 'forward');
    const planned: PlannedForward[] = [];
    for (const item of items) {
      const facts = inspectOriginalMessage(item.originalMessage);
      const source = facts.attachmentId
        ? (await attachmentAsMember(actor, facts.attachmentId)).attachment
        : undefined;
      planned.push({ ...item, count: facts.forwardCount + 1, ...(source ? { source } : {}) });
    }
    const memberIds = (await store.listMembers(room.id)).map((member) => member.userId);
    for (const { source, ...item } of planned) {
      const noticeOf = (copy?: AttachmentRecord): RoomMessagePayload => ({
        type: 'ROOM_MESSAGE_FORWARDED',
        roomId: room.id,
        senderId: actor.userId,
        ...item,
        ...(copy
          ? { attachment: { id: copy.id, name: copy.name, mimeType: copy.mimeType, size: copy.size } }
          : {}),
      });
      let notice: RoomMessagePayload;
      if (source) {
        notice = await copyAttachment(actor, room.id, source, noticeOf);
      } else {
        const queued = context.outboxMessage(noticeOf());
        await store.queueMirrorMessages([queued]);
        notice = queued.message;
      }
      await context.dispatch(notice, memberIds, true);
    }
  }

  return { forwardMessages };
}
