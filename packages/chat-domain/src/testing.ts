export { describeBlobStoreConformance } from './testing/blob-store-conformance.js';
export { describeChatStoreConformance } from './testing/chat-store-conformance.js';
export {
  type EjabberdConfigurationInput,
  ejabberdConfiguration,
  ejabberdConfigurationFromDocument,
  hs256JsonWebKey,
} from './testing/ejabberd-configuration.js';
export { describeEventBusConformance, type EventBusPair } from './testing/event-bus-conformance.js';
export {
  attachmentFixture,
  eventually,
  memberFixture,
  roomFixture,
  waitUntil,
} from './testing/fixtures.js';
export { freeLoopbackPort } from './testing/free-port.js';
export {
  describeMediaServerConformance,
  type MediaServerOffers,
} from './testing/media-server-conformance.js';
export {
  describeMeetingStoreConformance,
  meetingFixture,
  participantFixture,
} from './testing/meeting-store-conformance.js';
export { describeMirrorOutboxConformance } from './testing/mirror-outbox-conformance.js';
export {
  type PrivateEjabberd,
  type PrivateEjabberdOptions,
  startPrivateEjabberd,
} from './testing/private-ejabberd.js';
export { type PrivatePostgres, startPrivatePostgres } from './testing/private-postgres.js';
export { type PrivateRedis, type PrivateRedisOptions, startPrivateRedis } from './testing/private-redis.js';
export { describeRoomLockConformance } from './testing/room-lock-conformance.js';
