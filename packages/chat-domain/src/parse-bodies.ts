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
