import { z } from 'zod';
import { storableText } from '../inputs.js';
import type { BlobSource } from '../ports/blob-store.js';

/** A file arriving for a room: its declared metadata and its bytes. */
export interface FileUpload {
  fileName: string;
  mimeType: string;
  /** The size the client announced (Content-Length), checked before any byte is read. */
  declaredSize?: number;
  content: BlobSource;
}

/** An attachment upload: a {@link FileUpload} plus what goes with the message. */
export interface AttachmentUpload extends FileUpload {
  /** Text of the message carrying the attachment. */
  description?: string;
  /** Client id of that message. */
  messageId?: string;
  /** The message this one replies to. */
  replyId?: string;
  /** Display area of the preview, `WIDTHxHEIGHT` (e.g. `15x20`). */
  area?: string;
}

const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value);

const mimeTypePattern = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;

/** Metadata of a {@link FileUpload}. */
export const fileUploadSchema = z.object({
  fileName: storableText(z.string().min(1).max(255)),
  mimeType: z.string().max(255).regex(mimeTypePattern, { message: 'expected a type/subtype like image/png' }),
  declaredSize: z.number().int().nonnegative().optional(),
});

/** Metadata of an {@link AttachmentUpload}; empty `messageId`, `replyId` and `area` count as absent. */
export const attachmentUploadSchema = fileUploadSchema.extend({
  description: storableText(z.string().max(4096)).optional(),
  messageId: z.preprocess(emptyAsAbsent, z.string().max(256).optional()),
  replyId: z.preprocess(emptyAsAbsent, z.string().max(256).optional()),
  area: z.preprocess(
    emptyAsAbsent,
    z
      .string()
      .max(21)
      .regex(/^\d*x\d*$/, { message: 'expected WIDTHxHEIGHT like 15x20' })
      .optional(),
  ),
});
