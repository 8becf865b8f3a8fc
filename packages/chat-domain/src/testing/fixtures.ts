import { randomUUID } from 'node:crypto';
import type { AttachmentRecord, MemberRecord, RoomRecord } from '../model.js';

/** A group room record created at `at` (milliseconds since the epoch). */
export function roomFixture(at: number, overrides: Partial<RoomRecord> = {}): RoomRecord {
  return {
    id: randomUUID(),
    type: 'group',
    name: 'Room',
    description: 'About the room',
    meetingId: null,
    createdAt: new Date(at),
    updatedAt: new Date(at),
    pictureUpdatedAt: null,
    ...overrides,
  };
}

/** A member record. */
export function memberFixture(userId: string, owner: boolean, at: number): MemberRecord {
  return { userId, owner, joinedAt: new Date(at) };
}

/** Attachment metadata in `roomId` created at `at`. */
export function attachmentFixture(
  roomId: string,
  at: number,
  overrides: Partial<AttachmentRecord> = {},
): AttachmentRecord {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    roomId,
    userId: randomUUID(),
    name: 'file.txt',
    mimeType: 'text/plain',
    size: 12,
    area: null,
    blobKey: `attachments/${id}`,
    createdAt: new Date(at),
    ...overrides,
  };
}

/** Waits until `check` returns true, polling; fails after `timeoutMs`. */
export async function waitUntil(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Retries `assertion` every 50 ms until it passes; after `timeoutMs` rethrows its last failure. */
export async function eventually(assertion: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
