import { ChatError, isUuid, type MeetingService, maxSdpBytes } from '@collab-suite/chat-domain';
import express, { type Request, Router } from 'express';
import { actorOf } from '../chat/actor.js';
import { headerText } from '../chat/headers.js';

/**
 * Largest JSON body of the meeting routes, in bytes: a session description of at most maxSdpBytes
 * bytes (so at most that many characters) in JSON takes at most 12 bytes a character (a character
 * outside the BMP written as two `\\uXXXX` escapes), plus room for the other fields. Any body whose
 * `sdp` is within the schema's bounds therefore fits: the 413 is only for padding or abuse.
 */
export const meetingJsonLimitBytes = maxSdpBytes * 12 + 64 * 1024;
/** {@link meetingJsonLimitBytes}, as Express's body parser takes it. */
export const meetingJsonLimit = meetingJsonLimitBytes;

/** Options of {@link createMeetingRoutes}. */
export interface MeetingRoutesOptions {
  service: MeetingService;
  /**
   * Whether an `/events` session with this queue id is open for the user, when this process can
   * know (events stay in this process); undefined skips the check.
   */
  hasQueue?: (userId: string, queueId: string) => boolean;
}

function queueIdOf(request: Request, options: MeetingRoutesOptions, userId: string): string | undefined {
  const queueId = headerText(request.headers, 'queue-id');
  if (
    queueId !== undefined &&
    isUuid(queueId) &&
    options.hasQueue &&
    !options.hasQueue(userId, queueId.toLowerCase())
  ) {
    throw new ChatError(
      'invalid_input',
      `invalid join: \`queue-id\` header: expected the queueId of one of your open /events sessions but received ${queueId}`,
    );
  }
  return queueId;
}

/** The meeting routes of the spec (`/meetings...`) plus `GET /rooms/{roomId}/meeting`. Auth runs before them. */
export function createMeetingRoutes(options: MeetingRoutesOptions): Router {
  const { service } = options;
  const router = Router();
  const json = express.json({ limit: meetingJsonLimit });
  const noContent = (response: express.Response) => response.status(204).end();

  router.get('/meetings', async (_request, response) => {
    response.json(await service.listMeetings(actorOf(response)));
  });
  router.post('/meetings', json, async (request, response) => {
    response.json(await service.createMeeting(actorOf(response), request.body));
  });
  router.get('/meetings/:meetingId', async (request, response) => {
    response.json(await service.getMeeting(actorOf(response), request.params.meetingId));
  });
  router.delete('/meetings/:meetingId', async (request, response) => {
    await service.deleteMeeting(actorOf(response), request.params.meetingId);
    noContent(response);
  });
  router.post('/meetings/:meetingId/start', async (request, response) => {
    response.json(await service.startMeeting(actorOf(response), request.params.meetingId));
  });
  router.post('/meetings/:meetingId/stop', async (request, response) => {
    response.json(await service.stopMeeting(actorOf(response), request.params.meetingId));
  });
  router.post('/meetings/:meetingId/join', json, async (request, response) => {
    const actor = actorOf(response);
    const queueId = queueIdOf(request, options, actor.userId);
    response.json(await service.joinMeeting(actor, request.params.meetingId, queueId, request.body));
  });
  router.post('/meetings/:meetingId/leave', async (request, response) => {
    await service.leaveMeeting(actorOf(response), request.params.meetingId);
    noContent(response);
  });
  router.put('/meetings/:meetingId/media', json, async (request, response) => {
    await service.updateMedia(actorOf(response), request.params.meetingId, request.body);
    noContent(response);
  });
  router.put('/meetings/:meetingId/media/answer', json, async (request, response) => {
    await service.answerMedia(actorOf(response), request.params.meetingId, request.body);
    noContent(response);
  });
  router.put('/meetings/:meetingId/media/subscribe', json, async (request, response) => {
    await service.updateSubscriptions(actorOf(response), request.params.meetingId, request.body);
    noContent(response);
  });
  router.put('/meetings/:meetingId/audio', json, async (request, response) => {
    await service.updateAudio(actorOf(response), request.params.meetingId, request.body);
    noContent(response);
  });
  router.put('/meetings/:meetingId/audio/offer', json, async (request, response) => {
    await service.offerAudio(actorOf(response), request.params.meetingId, request.body);
    noContent(response);
  });
  router.get('/rooms/:roomId/meeting', async (request, response) => {
    response.json(await service.getRoomMeeting(actorOf(response), request.params.roomId));
  });
  return router;
}
