import { describe, expect, it } from 'vitest';
import { attachmentFixture } from '../testing/fixtures.js';
import { decodeAttachmentCursor, encodeAttachmentCursor } from './attachment-cursor.js';

describe('attachment cursor', () => {
  it('round-trips and accepts the standard base64 of the original', () => {
    const attachment = attachmentFixture('room', Date.parse('2024-02-03T04:05:06.789Z'));
    expect(decodeAttachmentCursor(encodeAttachmentCursor(attachment))).toEqual({
      id: attachment.id,
      createdAt: attachment.createdAt,
    });
    const standard = Buffer.from(
      JSON.stringify({ id: attachment.id, createdAt: '2024-02-03T04:05:06.789Z' }),
    ).toString('base64');
    expect(decodeAttachmentCursor(standard).id).toBe(attachment.id);
  });

  it('refuses anything else with invalid_input', () => {
    for (const filter of [
      'nope',
      Buffer.from('{"id":1}').toString('base64'),
      Buffer.from('[]').toString('base64'),
    ]) {
      expect(() => decodeAttachmentCursor(filter)).toThrow(
        expect.objectContaining({ code: 'invalid_input' }),
      );
    }
  });
});
