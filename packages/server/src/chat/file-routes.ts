import { pipeline } from 'node:stream/promises';
import { ChatError, type ChatService, requestBody, type StoredBlob } from '@collab-suite/chat-domain';
import express, { type Request, type Response, Router } from 'express';
import { HttpError } from '../http/http-error.js';
import { actorOf } from './actor.js';
import { declaredLength, decodeHeaderText, headerText, inlineDisposition } from './headers.js';

/** Largest forward body: up to 20 stanzas of up to 64 KiB each. */
export const forwardJsonLimit = '2mb';

/** A header decoded from its `\uXXXX` form, or undefined. */
function textHeader(request: Request, name: string): string | undefined {
  const value = headerText(request.headers, name);
  return value === undefined ? undefined : decodeHeaderText(value);
}

/** A file-system error (it names a path): the server's storage failed, whatever the client did. */
function isStorageError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | undefined)?.path === 'string';
}

/**
 * Runs an upload; a refused upload closes the connection so the unread body is not drained. A body
 * the client stopped sending is the client's doing (400), not an internal error; a failing disk is
 * the server's (a full one is ChatError `storage_full`, 507), even though it cut the body short too.
 */
async function upload(request: Request, response: Response, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!request.complete) response.setHeader('Connection', 'close');
    const clientStopped = !request.complete && request.destroyed && !isStorageError(error);
    if (!(error instanceof ChatError) && clientStopped) {
      throw new HttpError(400, 'the upload was cut off before the end of its body');
    }
    throw error;
  }
}

async function sendBlob(
  response: Response,
  blob: StoredBlob,
  mimeType: string,
  fileName: string,
): Promise<void> {
  response.status(200);
  response.setHeader('Content-Type', mimeType);
  response.setHeader('Content-Length', String(blob.size));
  response.setHeader('Content-Disposition', inlineDisposition(fileName));
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  response.setHeader('Cache-Control', 'private, no-cache');
  try {
    await pipeline(blob.content, response);
  } catch (error) {
    // The client went away mid-download: there is no one to answer and nothing went wrong here.
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    throw error;
  }
}

/** Room picture, attachment and forward routes. Auth runs before them. */
export function createFileRoutes(service: ChatService): Router {
  const router = Router();

  router.get('/rooms/:roomId/picture', async (request, response) => {
    const picture = await service.getPicture(actorOf(response), request.params.roomId);
    await sendBlob(response, picture, picture.mimeType, picture.name);
  });
  router.put('/rooms/:roomId/picture', async (request, response) => {
    await upload(request, response, async () => {
      const size = declaredLength(request);
      await service.setPicture(actorOf(response), request.params.roomId, {
        fileName: textHeader(request, 'fileName') as string,
        mimeType: headerText(request.headers, 'mimeType') as string,
        ...(size !== undefined ? { declaredSize: size } : {}),
        content: request,
      });
      response.status(204).end();
    });
  });
  router.delete('/rooms/:roomId/picture', async (request, response) => {
    await service.deletePicture(actorOf(response), request.params.roomId);
    response.status(204).end();
  });

  router.get('/rooms/:roomId/attachments', async (request, response) => {
    const { itemsNumber, filter } = request.query;
    response.json(
      await service.listAttachments(actorOf(response), request.params.roomId, { itemsNumber, filter }),
    );
  });
  router.post('/rooms/:roomId/attachments', async (request, response) => {
    await upload(request, response, async () => {
      const size = declaredLength(request);
      const optional = (name: 'description' | 'messageId' | 'replyId' | 'area', decode: boolean) => {
        const value = decode ? textHeader(request, name) : headerText(request.headers, name);
        return value === undefined ? {} : { [name]: value };
      };
      const created = await service.uploadAttachment(actorOf(response), request.params.roomId, {
        fileName: textHeader(request, 'fileName') as string,
        mimeType: headerText(request.headers, 'mimeType') as string,
        ...(size !== undefined ? { declaredSize: size } : {}),
        ...optional('description', true),
        ...optional('messageId', false),
        ...optional('replyId', false),
        ...optional('area', false),
        content: request,
      });
      response.status(201).json(created);
    });
  });
  router.post(
    '/rooms/:roomId/forward',
    express.json({ limit: forwardJsonLimit }),
    async (request, response) => {
      await service.forwardMessages(actorOf(response), request.params.roomId, requestBody(request.body));
      response.status(204).end();
    },
  );

  router.get('/attachments/:attachmentId', async (request, response) => {
    response.json(await service.getAttachment(actorOf(response), request.params.attachmentId));
  });
  router.get('/attachments/:attachmentId/download', async (request, response) => {
    const opened = await service.openAttachment(actorOf(response), request.params.attachmentId);
    await sendBlob(response, opened, opened.attachment.mimeType, opened.attachment.name);
  });
  router.delete('/attachments/:attachmentId', async (request, response) => {
    await service.deleteAttachment(actorOf(response), request.params.attachmentId);
    response.status(204).end();
  });
  return router;
}
