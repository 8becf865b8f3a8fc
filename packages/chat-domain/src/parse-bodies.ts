import { z } from 'zod';
import {
  type ForwardMessageInput,
  forwardMessageSchema,
  type MemberToInsertInput,
  memberToInsertSchema,
  parseInput,
  type RoomCreationInput,
  type RoomEditableInput,
  roomCreationSchema,
  roomEditableSchema,
} from './inputs.js';

// Parsers of untrusted request bodies (`unknown`), for HTTP layers: each gives back the typed input
// of a ChatService method, or throws ChatError `invalid_input` naming the field. They check the
// shape of the original's API; the service checks the limits it was configured with.

/** A `createRoom` body (RoomCreationFields). @throws ChatError `invalid_input` */
export function parseRoomCreation(body: unknown): RoomCreationInput {
  return parseInput(roomCreationSchema, body, 'room');
}

/** An `updateRoom` body (RoomEditableFields). @throws ChatError `invalid_input` */
export function parseRoomEdit(body: unknown): RoomEditableInput {
  return parseInput(roomEditableSchema, body, 'room changes');
}

/** An `addMember` body (MemberToInsert): `userId`, `owner` and `historyCleared` all required. @throws ChatError `invalid_input` */
export function parseMemberToInsert(body: unknown): MemberToInsertInput {
  return parseInput(memberToInsertSchema, body, 'member');
}

const forwardListSchema = z.array(forwardMessageSchema).min(1);

/** A `forwardMessages` body (ForwardMessagesList): one message or more. @throws ChatError `invalid_input` */
export function parseForwardMessages(body: unknown): ForwardMessageInput[] {
  return parseInput(forwardListSchema, body, 'forward');
}

const requestBodyMark: unique symbol = Symbol('@collab-suite/chat-domain request body');

/**
 * An untrusted request body handed to a typed method as it came, for the service to check at the
 * point the original API checks it: after the room, membership and ownership checks, so a caller
 * outside a room learns nothing about its input rules. `T` is the input the method takes.
 */
export interface RequestBody<T> {
  readonly [requestBodyMark]: unknown;
  /** Only carries `T` for the compiler. */
  readonly input?: T;
}

/**
 * Wraps a request body (`unknown`) for a typed method: `chat.addMember(actor, roomId,
 * requestBody(body))` checks it with the original API's rules (as {@link parseMemberToInsert} does)
 * where the service checks input, after the access checks.
 */
export function requestBody<T>(body: unknown): RequestBody<T> {
  return { [requestBodyMark]: body };
}

/** Whether `value` is a {@link RequestBody}. */
export function isRequestBody(value: unknown): value is RequestBody<unknown> {
  return typeof value === 'object' && value !== null && requestBodyMark in value;
}

/** The body a {@link RequestBody} carries. */
export function bodyOf(value: RequestBody<unknown>): unknown {
  return value[requestBodyMark];
}
