import { collectBytes } from '../adapters/blob-keys.js';
import { ChatError, isChatError } from '../errors.js';
import { detectImageType } from '../image-sniff.js';
import { parseInput } from '../inputs.js';
import type { Actor } from '../model.js';
import type { StoredBlob } from '../ports/blob-store.js';
import { checkPictureUpload, requireOwner } from '../room-rules.js';
import type { ServiceContext } from './context.js';
import { type FileUpload, fileUploadSchema } from './uploads.js';

/** A room picture opened for reading. */
export interface RoomPicture extends StoredBlob {
  name: string;
  mimeType: string;
  updatedAt: string;
}

async function readPicture(upload: FileUpload, maxBytes: number): Promise<Buffer> {
  try {
    return await collectBytes(upload.content, maxBytes);
  } catch (error) {
    if (!isChatError(error, 'payload_too_large')) throw error;
    throw new ChatError(
      'picture_too_large',
      `expected a picture of at most ${maxBytes} bytes but received more`,
      {
        details: { maxBytes },
      },
    );
  }
}

/** Room picture operations: set, get, delete. */
export function createPictureOperations(context: ServiceContext) {
  const { store, blobs, clock, limits } = context;
  const memberIdsOf = async (roomId: string) =>
    (await store.listMembers(roomId)).map((member) => member.userId);

  async function setPicture(actor: Actor, roomId: string, upload: FileUpload): Promise<void> {
    const { room, caller } = await context.roomAsMember(actor, roomId);
    requireOwner(room, caller);
    const metadata = parseInput(fileUploadSchema, { ...upload, content: undefined }, 'picture');
    checkPictureUpload(room, metadata.declaredSize, metadata.mimeType, limits.maxPictureBytes);
    const bytes = await readPicture(upload, limits.maxPictureBytes);
    const detected = detectImageType(bytes);
    if (detected === undefined) {
      throw new ChatError(
        'invalid_picture',
        'expected the bytes of a PNG, JPEG, GIF, WebP, BMP, AVIF or HEIC image but received something else',
      );
    }
    const pictureId = context.createId();
    const blobKey = `pictures/${room.id}/${pictureId}`;
    await blobs.put(blobKey, bytes);
    const updatedAt = clock.now();
    const notice = context.systemNotice(room.id, actor.userId, 'roomPictureUpdated', {
      pictureId,
      pictureName: metadata.fileName,
    });
    try {
      await store.setPicture(
        {
          roomId: room.id,
          blobKey,
          name: metadata.fileName,
          mimeType: detected,
          size: bytes.byteLength,
          userId: actor.userId,
          updatedAt,
        },
        [notice],
      );
    } catch (error) {
      await blobs
        .delete(blobKey)
        .catch((cleanupError) => context.onBackgroundError(cleanupError, `deleting ${blobKey}`));
      throw error;
    }
    await context.purgeBlobs();
    const memberIds = await memberIdsOf(room.id);
    await context.notify(memberIds, {
      type: 'ROOM_PICTURE_CHANGED',
      roomId: room.id,
      updatedAt: updatedAt.toISOString(),
    });
    await context.dispatch(notice.message, memberIds);
  }

  async function getPicture(actor: Actor, roomId: string): Promise<RoomPicture> {
    const { room } = await context.roomAsMember(actor, roomId);
    const picture = await store.getPicture(room.id);
    if (picture === undefined)
      throw new ChatError('picture_not_found', `expected a picture but room ${room.id} has none`);
    const blob = await blobs.get(picture.blobKey);
    if (blob === undefined) {
      throw new ChatError(
        'blob_missing',
        `expected the bytes of the picture of room ${room.id} but the blob store has none`,
      );
    }
    return {
      ...blob,
      name: picture.name,
      mimeType: picture.mimeType,
      updatedAt: picture.updatedAt.toISOString(),
    };
  }

  async function deletePicture(actor: Actor, roomId: string): Promise<void> {
    const { room, caller } = await context.roomAsMember(actor, roomId);
    requireOwner(room, caller);
    const notice = context.systemNotice(room.id, actor.userId, 'roomPictureDeleted');
    if (!(await store.deletePicture(room.id, clock.now(), [notice]))) {
      throw new ChatError('picture_not_found', `expected a picture but room ${room.id} has none`);
    }
    await context.purgeBlobs();
    const memberIds = await memberIdsOf(room.id);
    await context.notify(memberIds, { type: 'ROOM_PICTURE_DELETED', roomId: room.id });
    await context.dispatch(notice.message, memberIds);
  }

  return { setPicture, getPicture, deletePicture };
}
