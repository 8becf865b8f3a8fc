import { describe, expect, it } from 'vitest';
// @ts-expect-error the chat page is plain JavaScript without declarations; the calls are typed below.
import * as chatText from '../../../../examples/chat-web/chat-text.js';

/** The pure functions of examples/chat-web/chat-text.js, as the page calls them. */
const { createNames, sentenceOf, dayLabelOf } = chatText as {
  createNames(input: {
    directory?: Record<string, string>;
    userId: string;
    tokenName?: string;
  }): (id: string) => string;
  sentenceOf(
    message: { operation: string; fields?: Record<string, string>; senderId: string },
    nameOf: (id: string) => string,
  ): string;
  dayLabelOf(date: Date, now?: Date): string;
};

const [ana, bo, cy] = ['a1', 'b2', 'c3'];
const nameOf = createNames({ directory: { [ana]: 'Ana', [bo]: 'Bo' }, userId: cy, tokenName: 'Cy' });

describe('the chat page text', () => {
  it('names people from the directory, the own token, or falls back to the id', () => {
    expect([nameOf(ana), nameOf(cy), nameOf('d4')]).toEqual(['Ana', 'Cy', 'd4']);
  });

  it('writes system messages as sentences', () => {
    const sentence = (operation: string, fields: Record<string, string>, senderId = ana) =>
      sentenceOf({ operation, fields, senderId }, nameOf);
    expect(sentence('memberAdded', { userId: bo })).toBe('Ana added Bo');
    expect(sentence('memberRemoved', { userId: bo })).toBe('Ana removed Bo');
    expect(sentence('memberRemoved', { userId: bo }, bo)).toBe('Bo left');
    expect(sentence('roomNameChanged', { value: 'Plans' })).toBe('Ana renamed the room “Plans”');
    expect(sentence('roomPictureDeleted', {})).toBe('Ana removed the room picture');
  });

  it('labels day breaks Today, Yesterday, or with the date', () => {
    const now = new Date(2024, 4, 2, 9, 30);
    expect(dayLabelOf(new Date(2024, 4, 2, 0, 5), now)).toBe('Today');
    expect(dayLabelOf(new Date(2024, 4, 1, 23, 55), now)).toBe('Yesterday');
    expect(dayLabelOf(new Date(2024, 3, 30, 12, 0), now)).toContain('2024');
  });
});
