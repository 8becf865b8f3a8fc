import { z } from 'zod';
import { ChatError } from './errors.js';
import { isUuid } from './ids.js';
import { type RoomType, roomTypes } from './model.js';

/** Longest room name, as in the original's API definition. */
export const maxRoomNameLength = 128;
/** Longest room description, as in the original's API definition. */
export const maxRoomDescriptionLength = 256;

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `value` can be stored as it is by every engine: no NUL (PostgreSQL text cannot hold it)
 * and no unpaired surrogate (UTF-8 cannot encode it; it would be stored as U+FFFD).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !loneSurrogate.test(value);
}

/** The message of a refused {@link isStorableText} value. */
export const unstorableTextMessage =
  'expected text without NUL characters (U+0000) or unpaired surrogates (U+D800-U+DFFF), which cannot be stored';

/** `schema` (a string schema, default `z.string()`) refusing text no engine stores as it is. */
export const storableText = (schema: z.ZodString = z.string()) =>
  schema.refine(isStorableText, { message: unstorableTextMessage });

/** A UUID in any case, given back lower-case. */
export const uuid = z
  .string()
  .refine(isUuid, { message: 'expected a UUID' })
  .transform((value) => value.toLowerCase());

/** One of `values`, compared without regard to case. */
export const caseInsensitiveEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(values));

/** Body of `createRoom` (RoomCreationFields). A missing `membersIds` is an empty list. */
export const roomCreationSchema = z.object({
  type: caseInsensitiveEnum(roomTypes),
  name: storableText(z.string().min(1).max(maxRoomNameLength)).optional(),
  description: storableText(z.string().max(maxRoomDescriptionLength)).optional(),
  membersIds: z.array(uuid).default([]),
});
/** Parsed {@link roomCreationSchema}. */
export type RoomCreationInput = z.output<typeof roomCreationSchema>;

/** Body of `updateRoom` (RoomEditableFields). */
export const roomEditableSchema = z.object({
  name: storableText(z.string().min(1).max(maxRoomNameLength)).optional(),
  description: storableText(z.string().max(maxRoomDescriptionLength)).optional(),
});
/** Parsed {@link roomEditableSchema}. */
export type RoomEditableInput = z.output<typeof roomEditableSchema>;

/** Body of `addMember` (MemberToInsert); all three fields are required. */
export const memberToInsertSchema = z.object({
  userId: uuid,
  owner: z.boolean(),
  historyCleared: z.boolean(),
});
/** Parsed {@link memberToInsertSchema}. */
export type MemberToInsertInput = z.output<typeof memberToInsertSchema>;

/** One item of `forwardMessages` (ForwardMessagesList). */
export const forwardMessageSchema = z.object({
  originalMessage: storableText(z.string().min(1)),
  originalMessageSentAt: z.iso.datetime({ offset: true }).optional(),
  description: storableText().optional(),
});
/** Parsed {@link forwardMessageSchema}. */
export type ForwardMessageInput = z.output<typeof forwardMessageSchema>;

/** Values of `extraFields` for listing rooms. */
export const roomExtraFields = ['members', 'settings'] as const;
/** One of {@link roomExtraFields}. */
export type RoomExtraField = (typeof roomExtraFields)[number];

/** `extraFields` as a list; each value may itself be comma-joined (`members,settings`). */
export const extraFieldsSchema = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) =>
    (value === undefined ? [] : Array.isArray(value) ? value : [value])
      .flatMap((entry) => entry.split(','))
      .map((entry) => entry.trim().toLowerCase())
      .filter((entry) => entry !== ''),
  )
  .pipe(
    z.array(
      z.enum(roomExtraFields, {
        error: (issue) =>
          `expected ${roomExtraFields.join(' or ')} but received ${JSON.stringify(issue.input)}`,
      }),
    ),
  );

/** Describes what came, for messages of the form "expected X but received Y". */
export function describeReceived(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function formatIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((key) => `\`${path === '' ? key : `${path}.${key}`}\``).join(', ');
    return `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${names}`;
  }
  let received: unknown = input;
  for (const key of issue.path) {
    received =
      received !== null && typeof received === 'object'
        ? (received as Record<PropertyKey, unknown>)[key]
        : undefined;
  }
  const expected = issue.message.replace(/^Invalid input: /, '').replace(/, received .*$/, '');
  const where = path === '' ? 'value' : `\`${path}\``;
  // A schema whose message names what came (values a transform made) says it best itself.
  if (expected.includes(' but received ')) return `${where}: ${expected}`;
  return `${where}: ${expected} but received ${describeReceived(received)}`;
}

/**
 * Parses `value` with `schema`.
 * @throws ChatError `invalid_input` whose message names the field, what was expected and what came
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const messages = result.error.issues.slice(0, 5).map((issue) => formatIssue(issue, value));
  throw new ChatError('invalid_input', `invalid ${what}: ${messages.join('; ')}`, {
    details: {
      issues: result.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
    },
  });
}

/**
 * What {@link ChatService.createRoom} takes (the original's RoomCreationFields). `membersIds`
 * defaults to none; `type` is compared without regard to case.
 */
export interface RoomCreationFields {
  type: RoomType;
  /** 1 to {@link maxRoomNameLength} characters. */
  name?: string | undefined;
  /** Up to {@link maxRoomDescriptionLength} characters. */
  description?: string | undefined;
  /** UUIDs of the users invited with the caller. @default [] */
  membersIds?: readonly string[] | undefined;
}

/** What {@link ChatService.updateRoom} takes (RoomEditableFields); an absent field stays as it is. */
export interface RoomEditableFields {
  name?: string | undefined;
  description?: string | undefined;
}

/**
 * What {@link ChatService.addMember} takes. The HTTP API (MemberToInsert, {@link parseMemberToInsert})
 * requires all three fields; the library defaults `owner` and `historyCleared` to false, so
 * `addMember(actor, roomId, { userId })` adds a plain member who sees the room's history.
 */
export interface MemberToInsert {
  userId: string;
  /** @default false */
  owner?: boolean | undefined;
  /** @default false */
  historyCleared?: boolean | undefined;
}

/** One message of {@link ChatService.forwardMessages} (an item of ForwardMessagesList). */
export interface ForwardedMessage {
  /** The XMPP message stanza to forward (at most `limits.maxOriginalMessageLength` characters). */
  originalMessage: string;
  /** ISO 8601 date-time with an offset. */
  originalMessageSentAt?: string | undefined;
  description?: string | undefined;
}

/** The service's check of {@link RoomCreationFields}: the HTTP shape, refusing unknown keys. */
export const roomCreationFieldsSchema = z.strictObject(roomCreationSchema.shape);
/** The service's check of {@link RoomEditableFields}. */
export const roomEditableFieldsSchema = z.strictObject(roomEditableSchema.shape);
/** The service's check of {@link MemberToInsert}: `owner` and `historyCleared` default to false. */
export const memberToInsertFieldsSchema = z.strictObject({
  userId: uuid,
  owner: z.boolean().default(false),
  historyCleared: z.boolean().default(false),
});
