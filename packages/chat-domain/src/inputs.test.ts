import { describe, expect, it } from 'vitest';
import {
  extraFieldsSchema,
  isStorableText,
  memberToInsertSchema,
  parseInput,
  roomCreationSchema,
} from './inputs.js';

describe('parseInput', () => {
  it('names the field, what was expected and what came', () => {
    expect(() => parseInput(roomCreationSchema, { type: 'group', name: 42 }, 'room')).toThrow(
      /invalid room: `name`: expected string but received number 42/,
    );
    expect(() => parseInput(roomCreationSchema, { type: 'circle' }, 'room')).toThrow(
      /`type`: .*but received "circle"/,
    );
    expect(() => parseInput(roomCreationSchema, 'text', 'room')).toThrow(
      /value: expected object but received "text"/,
    );
  });

  it('makes a missing historyCleared a clear invalid_input, not a crash', () => {
    expect(() =>
      parseInput(
        memberToInsertSchema,
        { userId: '00000000-0000-4000-8000-000000000001', owner: false },
        'member',
      ),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/historyCleared/) }),
    );
  });

  it('lower-cases UUIDs and room types', () => {
    expect(
      parseInput(
        roomCreationSchema,
        { type: 'GROUP', name: 'n', membersIds: ['AAAAAAAA-0000-4000-8000-000000000001'] },
        'room',
      ),
    ).toEqual({ type: 'group', name: 'n', membersIds: ['aaaaaaaa-0000-4000-8000-000000000001'] });
  });
});

describe('extraFieldsSchema', () => {
  it('accepts repeated and comma-joined values and refuses unknown ones', () => {
    expect(extraFieldsSchema.parse(undefined)).toEqual([]);
    expect(extraFieldsSchema.parse('members')).toEqual(['members']);
    expect(extraFieldsSchema.parse(['members', 'SETTINGS'])).toEqual(['members', 'settings']);
    expect(extraFieldsSchema.parse('members,settings')).toEqual(['members', 'settings']);
    expect(extraFieldsSchema.safeParse('members,avatars').success).toBe(false);
  });

  it('names the unknown extra field it refuses', () => {
    expect(() => parseInput(extraFieldsSchema, 'foo', 'extraFields')).toThrow(
      'invalid extraFields: `0`: expected members or settings but received "foo"',
    );
    expect(() => parseInput(extraFieldsSchema, ['members', 'avatars'], 'extraFields')).toThrow(
      'but received "avatars"',
    );
  });
});

describe('text every engine can store', () => {
  it('refuses NUL and unpaired surrogates and accepts any other text, astral characters included', () => {
    expect(isStorableText('Team 🚀 ünïcødé\ttab')).toBe(true);
    for (const bad of ['a\u0000b', '\uD800', 'x\uDC00', '\uDBFF\uDBFF\uDFFF', 'end\uD83D']) {
      expect(isStorableText(bad)).toBe(false);
    }
  });

  it('makes a room name or description with NUL or a lone surrogate invalid_input', () => {
    for (const body of [
      { type: 'group', name: 'a\u0000b' },
      { type: 'group', name: 'ok', description: 'x\uD800' },
    ]) {
      expect(() => parseInput(roomCreationSchema, body, 'room')).toThrow(/cannot be stored/);
    }
  });
});
