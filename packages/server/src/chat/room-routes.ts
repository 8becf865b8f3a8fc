import { type ChatService, requestBody } from '@collab-suite/chat-domain';
import express, { type RequestHandler, Router } from 'express';
import { sendJsonArray } from '../http/send-json-array.js';
import { actorOf } from './actor.js';
import { nextPageLink, roomPageOf } from './room-page.js';

/** Largest JSON body of the room routes: a room with its member list fits many times over. */
export const roomJsonLimit = '64kb';

/** Rooms, members, owners, mute and clear-history routes. Auth runs before them. */
export function createRoomRoutes(service: ChatService, creationLimit?: RequestHandler): Router {
  const router = Router();
  const json = express.json({ limit: roomJsonLimit });

  router.get('/rooms', async (request, response) => {
    const actor = actorOf(response);
    const page = roomPageOf(request.query);
    if (page === undefined) {
      await sendJsonArray(response, await service.listRooms(actor, request.query.extraFields));
      return;
    }
    const { rooms, nextCursor } = await service.listRoomsPage(actor, request.query.extraFields, page);
    if (nextCursor !== undefined) response.setHeader('Link', nextPageLink(request, page.limit, nextCursor));
    await sendJsonArray(response, rooms);
  });
  const creation: RequestHandler[] = creationLimit ? [creationLimit] : [];
  router.post('/rooms', ...creation, json, async (request, response) => {
    response.status(201).json(await service.createRoom(actorOf(response), requestBody(request.body)));
  });
  router.get('/rooms/:roomId', async (request, response) => {
    response.json(await service.getRoom(actorOf(response), request.params.roomId));
  });
  router.put('/rooms/:roomId', json, async (request, response) => {
    response.json(
      await service.updateRoom(actorOf(response), request.params.roomId, requestBody(request.body)),
    );
  });
  router.delete('/rooms/:roomId', async (request, response) => {
    await service.deleteRoom(actorOf(response), request.params.roomId);
    response.status(204).end();
  });

  router.put('/rooms/:roomId/mute', async (request, response) => {
    await service.muteRoom(actorOf(response), request.params.roomId);
    response.status(204).end();
  });
  router.delete('/rooms/:roomId/mute', async (request, response) => {
    await service.unmuteRoom(actorOf(response), request.params.roomId);
    response.status(204).end();
  });
  router.put('/rooms/:roomId/clear', async (request, response) => {
    response.json(await service.clearHistory(actorOf(response), request.params.roomId));
  });

  router.get('/rooms/:roomId/members', async (request, response) => {
    response.json(await service.listMembers(actorOf(response), request.params.roomId));
  });
  router.post('/rooms/:roomId/members', json, async (request, response) => {
    response
      .status(201)
      .json(await service.addMember(actorOf(response), request.params.roomId, requestBody(request.body)));
  });
  router.delete('/rooms/:roomId/members/:userId', async (request, response) => {
    await service.removeMember(actorOf(response), request.params.roomId, request.params.userId);
    response.status(204).end();
  });
  router.put('/rooms/:roomId/members/:userId/owner', async (request, response) => {
    await service.setOwner(actorOf(response), request.params.roomId, request.params.userId, true);
    response.status(204).end();
  });
  router.delete('/rooms/:roomId/members/:userId/owner', async (request, response) => {
    await service.setOwner(actorOf(response), request.params.roomId, request.params.userId, false);
    response.status(204).end();
  });
  return router;
}
