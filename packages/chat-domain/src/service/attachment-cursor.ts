import { ChatError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { AttachmentRecord } from '../model.js';
import type { AttachmentCursor } from '../ports/chat-store.js';

/** The opaque `filter` pointing after `attachment`: base64url of `{"id","createdAt"}`. */
export function encodeAttachmentCursor(attachment: AttachmentRecord): string {
  const json = JSON.stringify({ id: attachment.id, createdAt: attachment.createdAt.toISOString() });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/**
 * Reads a `filter` made by {@link encodeAttachmentCursor} (standard base64 is accepted too).
 * @throws ChatError `invalid_input` when it is not one
 */
export function decodeAttachmentCursor(filter: string): AttachmentCursor {
  const invalid = () =>
    new ChatError(
      'invalid_input',
      `invalid \`filter\`: expected a filter returned by a previous page but received ${JSON.stringify(filter.slice(0, 60))}`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(filter, 'base64').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { id, createdAt } = (parsed ?? {}) as { id?: unknown; createdAt?: unknown };
  if (!isUuid(id) || typeof createdAt !== 'string') throw invalid();
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime())) throw invalid();
  return { id: id.toLowerCase(), createdAt: date };
}
