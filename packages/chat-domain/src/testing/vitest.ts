// The `@collab-suite/chat-domain/testing/vitest` entry: conformance suites of the ports, registered
// with vitest's describe/it (vitest >= 4, an optional peer dependency). Plain helpers are in `/testing`.
export { describeBlobStoreConformance } from './blob-store-conformance.js';
export { describeChatStoreConformance } from './chat-store-conformance.js';
export { describeEventBusConformance, type EventBusPair } from './event-bus-conformance.js';
export {
  describeMediaServerConformance,
  type MediaServerOffers,
} from './media-server-conformance.js';
export { describeMeetingStoreConformance } from './meeting-store-conformance.js';
export { describeMirrorOutboxConformance } from './mirror-outbox-conformance.js';
export { describeRoomLockConformance } from './room-lock-conformance.js';
