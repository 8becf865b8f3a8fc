import { Router } from 'express';
import type { ServerConfig } from '../config.js';

/**
 * What `GET /users/capabilities` answers: the original's capability list, filled from this
 * server's configured limits, so a client checks a picture's size against our real limit before
 * uploading it. Message reads, presence and the edit and delete windows belong to the XMPP side;
 * their values are the original's defaults.
 */
export function capabilitiesOf(config: ServerConfig) {
  const pictureKb = Math.floor(config.chat.maxPictureBytes / 1024);
  return {
    canSeeMessageReads: true,
    canSeeUsersPresence: true,
    canVideoCall: true,
    canVideoCallRecord: false,
    canUseVirtualBackground: true,
    editMessageTimeLimitInMinutes: 10,
    deleteMessageTimeLimitInMinutes: 10,
    maxGroupMembers: config.chat.maxRoomMembers,
    maxRoomImageSizeInKb: pictureKb,
    maxUserImageSizeInKb: pictureKb,
  };
}

/** `GET /users/capabilities` (auth runs before it). */
export function createCapabilitiesRoute(config: ServerConfig): Router {
  const router = Router();
  const capabilities = capabilitiesOf(config);
  router.get('/users/capabilities', (_request, response) => {
    response.json(capabilities);
  });
  return router;
}
