export { createDiskBlobStore, type DiskBlobStoreOptions } from './adapters/disk-blob-store.js';
export { createEventMessageDispatcher } from './adapters/event-message-dispatcher.js';
export { createHttpUserDirectory, type HttpUserDirectoryOptions } from './adapters/http-user-directory.js';
export { createMemoryBlobStore, type MemoryBlobStore } from './adapters/memory-blob-store.js';
export { createMemoryEventBus, type MemoryEventBusOptions } from './adapters/memory-event-bus.js';
export { type ChatService, createChatService } from './chat-service.js';
export {
  ChatError,
  type ChatErrorCode,
  type ChatErrorOptions,
  chatErrorCodes,
  isChatError,
} from './errors.js';
export type {
  ChatEvent,
  ChatEventPayload,
  ChatEventType,
  EventDelivery,
  RoomEventPayload,
  RoomMessagePayload,
  SystemMessageOperation,
} from './events.js';
export { chatErrorHttpStatus, httpStatusOf, retryAfterSecondsOf } from './http-status.js';
export { isUuid, oneToOneKey, timeOrderedUuid } from './ids.js';
export { detectImageType } from './image-sniff.js';
export {
  extraFieldsSchema,
  type ForwardedMessage,
  type ForwardMessageInput,
  forwardMessageSchema,
  isStorableText,
  type MemberToInsert,
  type MemberToInsertInput,
  maxRoomDescriptionLength,
  maxRoomNameLength,
  memberToInsertFieldsSchema,
  memberToInsertSchema,
  parseInput,
  type RoomCreationFields,
  type RoomCreationInput,
  type RoomEditableFields,
  type RoomEditableInput,
  type RoomExtraField,
  roomCreationFieldsSchema,
  roomCreationSchema,
  roomEditableFieldsSchema,
  roomEditableSchema,
  roomExtraFields,
} from './inputs.js';
export type {
  MediaServer,
  MediaServerEvent,
  MediaStreamRef,
  MediaSubscribeRef,
  MediaSubscriptionOffer,
} from './meetings/media-server.js';
export type { MeetingEventPayload, SubscribedStreamEvent } from './meetings/meeting-events.js';
export {
  type AudioStreamSettingsInput,
  audioStreamSettingsSchema,
  joinSettingsSchema,
  type MediaStreamSettingsInput,
  maxMeetingNameLength,
  maxSdpBytes,
  mediaStreamSettingsSchema,
  type NewMeetingInput,
  newMeetingSchema,
  queueIdSchema,
  type SubscriptionUpdatesInput,
  sessionDescriptionSchema,
  subscriptionUpdatesSchema,
} from './meetings/meeting-inputs.js';
export {
  type EventMediaType,
  type IceServerConfig,
  type JoinMeetingResult,
  type MediaQuality,
  type MediaType,
  type Meeting,
  type MeetingRecord,
  type MeetingStopReason,
  type MeetingType,
  mediaQualities,
  mediaTypes,
  meetingTypes,
  type Participant,
  type ParticipantRecord,
  type ParticipantStreamChanges,
} from './meetings/meeting-model.js';
export {
  type MeetingLimits,
  type MeetingServiceOptions,
  meetingLimitsSchema,
  meetingServiceOptionsSchema,
  type ResolvedMeetingServiceOptions,
} from './meetings/meeting-options.js';
export {
  audioTarget,
  eventMediaType,
  isExpired,
  type JoinPlan,
  meetingView,
  participantView,
  planJoin,
  streamFlag,
} from './meetings/meeting-rules.js';
export { createMeetingService, type MeetingService } from './meetings/meeting-service.js';
export {
  createMemoryMediaServer,
  type MemoryMediaParticipant,
  type MemoryMediaServer,
  type MemoryMediaServerOptions,
} from './meetings/memory-media-server.js';
export type {
  Actor,
  Attachment,
  AttachmentRecord,
  AttachmentsPage,
  Member,
  MemberInserted,
  MemberRecord,
  PictureRecord,
  Room,
  RoomListing,
  RoomRecord,
  RoomType,
  RoomUserSettings,
  RoomUserSettingsRecord,
} from './model.js';
export { roomTypes } from './model.js';
export {
  parseForwardMessages,
  parseMemberToInsert,
  parseRoomCreation,
  parseRoomEdit,
  type RequestBody,
  requestBody,
} from './parse-bodies.js';
export type {
  BlobPutOptions,
  BlobSource,
  BlobStore,
  BlobSweepOptions,
  BlobSweepResult,
  StoredBlob,
} from './ports/blob-store.js';
export type { AttachmentCursor, ChatStore, RoomChanges } from './ports/chat-store.js';
export { type Clock, createManualClock, type ManualClock, systemClock } from './ports/clock.js';
export type {
  EventBus,
  EventBusHealth,
  EventListener,
  EventSubscription,
  ResyncListener,
  ResyncReason,
  ResyncSignal,
} from './ports/event-bus.js';
export type { LockedRoom } from './ports/locked-room.js';
export { hasMeetingCoordination, type MeetingCoordination } from './ports/meeting-coordination.js';
export type { MeetingStore } from './ports/meeting-store.js';
export type { MessageDispatcher } from './ports/message-dispatcher.js';
export type {
  MirrorLease,
  MirrorOperation,
  MirrorOutbox,
  MirrorOutboxClaim,
  MirrorOutboxEntry,
} from './ports/mirror-outbox.js';
export { ignoringRoomObserver, type RoomObserver } from './ports/room-observer.js';
export {
  createOpenUserDirectory,
  createStaticUserDirectory,
  type UserDirectory,
} from './ports/user-directory.js';
export {
  checkAttachmentDeletion,
  checkMemberAddition,
  checkMemberRemoval,
  checkOwnerChange,
  checkOwnerChangeTarget,
  checkPictureUpload,
  checkRoomDeletion,
  initialMembers,
  planRoomCreation,
  planRoomUpdate,
  type RoomCreationPlan,
  type RoomRuleLimits,
  requireMember,
  requireNotOneToOne,
  requireOwner,
} from './room-rules.js';
export type { AttachmentContent } from './service/attachments.js';
export { createKeyedLock, type KeyedLock } from './service/keyed-lock.js';
export {
  type ChatLimits,
  type ChatServiceOptions,
  chatLimitsSchema,
  chatServiceOptionsSchema,
  type ResolvedChatServiceOptions,
} from './service/options.js';
export type { RoomPicture } from './service/pictures.js';
export {
  type AttachmentUpload,
  attachmentUploadSchema,
  type FileUpload,
  fileUploadSchema,
} from './service/uploads.js';
export { createMemoryChatStore } from './stores/memory-chat-store.js';
export { postgresUnavailableReason } from './stores/postgres-unavailable.js';
