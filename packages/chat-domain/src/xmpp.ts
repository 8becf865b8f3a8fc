// The `@collab-suite/chat-domain/xmpp` entry: the XMPP (ejabberd) mirror of rooms and messages.
export {
  createEjabberdAdminClient,
  type EjabberdAdminClient,
  type EjabberdAdminClientOptions,
} from './xmpp/ejabberd-admin-client.js';
export { mirroredRoomOptions, type RoomSyncChanges, type XmppNames } from './xmpp/muc-room-sync.js';
export { createXmppMirror, type XmppMirror } from './xmpp/xmpp-mirror.js';
export {
  type ResolvedXmppMirrorOptions,
  type XmppMirrorOptions,
  xmppMirrorOptionsSchema,
} from './xmpp/xmpp-mirror-options.js';
export type { ResyncReport } from './xmpp/xmpp-resync.js';
export { escapeXml, messageStanza, operationNamespace, type StanzaAddressing } from './xmpp/xmpp-stanzas.js';
