import { refuseUnknownOptions } from '../option-schemas.js';
import type { ChatStore } from '../ports/chat-store.js';
import { type ChatStoreWithoutRoomLock, withInProcessRoomLock } from './in-process-room-lock.js';
import { claimSqliteFile } from './sqlite-file-claim.js';
import { openSqliteStoreCore } from './sqlite-store-core.js';
import { startSqliteWriterThread } from './sqlite-writer-thread.js';

/** Options of {@link createSqliteChatStore}. */
export interface SqliteChatStoreOptions {
  /** Database file, or `:memory:`; its folder must exist. */
  filename: string;
  /**
   * Whether a file's write transactions run on a worker thread of their own while reads stay on
   * the calling thread. Off, everything runs on the calling thread with the file opened in
   * exclusive locking mode. A `:memory:` database always runs on the calling thread.
   * @default true
   */
  writerThread?: boolean;
}

/** The store methods that write: on a writer thread they run there. */
const writeMethods = [
  'insertRoom',
  'updateRoom',
  'deleteRoom',
  'insertMember',
  'deleteMember',
  'setOwner',
  'setMuted',
  'setClearedAt',
  'setPicture',
  'deletePicture',
  'insertAttachment',
  'deleteAttachment',
  'forgetPendingBlobDeletions',
  'insertMeeting',
  'setMeetingStarted',
  'deleteMeeting',
  'putParticipant',
  'updateParticipantStreams',
  'deleteParticipant',
  'enqueueMirrorOperations',
  'queueMirrorMessages',
  'claimMirrorOperations',
  'forgetMirrorOperations',
  'recordMirrorFailure',
  'setMirrorOutboxEnabled',
] as const satisfies readonly (keyof ChatStoreWithoutRoomLock)[];

/** The store methods that only read: they run on the calling thread's connection. */
const readMethods = [
  'getRoom',
  'findOneToOneRoom',
  'listRoomsOfUser',
  'countRoomsOfUser',
  'getMember',
  'listMembers',
  'getSettings',
  'getPicture',
  'getAttachment',
  'listAttachments',
  'listPendingBlobDeletions',
  'findReferencedBlobKeys',
  'getMeeting',
  'getMeetingOfRoom',
  'listMeetingsOfUser',
  'listActiveMeetings',
  'listExpiredMeetings',
  'listParticipants',
  'listParticipantsOfMeetings',
  'getParticipant',
  'findMeetingsOfQueue',
  'countMirrorOperations',
  'listRoomIds',
] as const satisfies readonly (keyof ChatStoreWithoutRoomLock)[];

/** Optional hooks the SQLite store does not have (one process owns the file: nobody else queues). */
type AbsentHook = 'onMirrorOperationsQueued';
type ClassifiedMethod = (typeof writeMethods)[number] | (typeof readMethods)[number] | 'close' | AbsentHook;
/**
 * Every store method is a read or a write. A method added to the port but to neither list stops
 * the build here: unlisted, it would write on the calling thread and wait there for the writer.
 */
const everyMethodClassified: Record<Exclude<keyof ChatStoreWithoutRoomLock, ClassifiedMethod>, never> = {};
void everyMethodClassified;

/** Writes whose first argument is a room whose member list they change. */
const memberWrites = new Set<string>(['deleteRoom', 'insertMember', 'deleteMember', 'setOwner']);

/**
 * The reads on this thread's `reader` connection, the writes on a writer thread's connection. A
 * write's promise settles once its transaction is committed; reads made after that see it.
 */
function createThreadedSqliteChatStore(filename: string): ChatStoreWithoutRoomLock {
  // The reader opens first: it applies the migrations before the writer starts.
  const reader = openSqliteStoreCore(filename, 'reader');
  const writer = startSqliteWriterThread(filename);
  const writes: Partial<Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of writeMethods) {
    writes[method] = async (...args: unknown[]) => {
      try {
        return await writer.call(method, args);
      } finally {
        // A member list the reader cached before this commit is stale now.
        if (memberWrites.has(method)) reader.forgetMembers(args[0] as string);
      }
    };
  }
  return {
    ...reader.store,
    ...(writes as Pick<ChatStoreWithoutRoomLock, (typeof writeMethods)[number]>),
    async close() {
      await writer.close();
      await reader.store.close();
    },
  };
}

/**
 * A {@link ChatStore} in a SQLite file (better-sqlite3, WAL, foreign keys on); opening applies
 * pending schema migrations. One store of one process owns a file (its member lists are cached in
 * memory): opening one that a running process or another store here has open throws ChatError
 * `dependency_failed`. By default the writes run on a worker thread, so the event loop does not
 * wait for them; that thread keeps the process alive only while a write is pending.
 */
export function createSqliteChatStore(options: SqliteChatStoreOptions): ChatStore {
  refuseUnknownOptions(options, ['filename', 'writerThread'], 'createSqliteChatStore');
  const { filename } = options;
  if (filename === ':memory:') return withInProcessRoomLock(openSqliteStoreCore(filename, 'exclusive').store);
  const release = claimSqliteFile(filename);
  let store: ChatStoreWithoutRoomLock;
  try {
    store =
      options.writerThread === false
        ? openSqliteStoreCore(filename, 'exclusive').store
        : createThreadedSqliteChatStore(filename);
  } catch (error) {
    release();
    throw error;
  }
  let closed: Promise<void> | undefined;
  return withInProcessRoomLock({
    ...store,
    close() {
      closed ??= store.close().finally(release);
      return closed;
    },
  });
}
