import { ChatError } from '../errors.js';
import type { RoomMessagePayload } from '../events.js';
import type { MessageDispatcher } from '../ports/message-dispatcher.js';
import type { MirrorLease, MirrorOperation, MirrorOutboxEntry } from '../ports/mirror-outbox.js';
import { createEjabberdAdminClient, isRejectedCommand } from './ejabberd-admin-client.js';
import { type RoomSyncChanges, syncMucRoom } from './muc-room-sync.js';
import { resolveXmppMirrorOptions, type XmppMirrorOptions } from './xmpp-mirror-options.js';
import { type ResyncReport, resyncAllRooms } from './xmpp-resync.js';
import { messageStanza } from './xmpp-stanzas.js';

/**
 * Mirrors the chat rooms into ejabberd: persistent members-only MUC rooms `<roomId>@mucDomain`
 * whose members are affiliated and subscribed, and the room messages (system messages, attachment
 * notices, forwards) as groupchat stanzas from the acting user. Every change goes into the
 * store's outbox in the transaction that makes it (room changes by the store's triggers, messages
 * handed by the chat service to the write they go with) and is applied in order by a drainer,
 * with backoff while ejabberd is down, so the API never waits for XMPP and nothing is lost. As the
 * service's dispatcher, the mirror only wakes its drainer: the message is already queued.
 */
export interface XmppMirror extends MessageDispatcher {
  /**
   * Switches the store's outbox on (room changes are queued from then on) and starts draining it
   * in the background; resolves once the outbox is on. Idempotent.
   */
  start(): Promise<void>;
  /** Resolves once the drainer has found the outbox empty (after applying what it holds now). */
  idle(): Promise<void>;
  /** Applies one room's state at once, bypassing the outbox. @throws ChatError `dependency_failed` */
  syncRoom(roomId: string): Promise<RoomSyncChanges>;
  /** Brings every MUC room in line with the store and destroys rooms the store no longer has. @throws ChatError `dependency_failed` */
  resync(): Promise<ResyncReport>;
  /** Whether ejabberd answers its status command. @throws ChatError `dependency_failed` */
  check(): Promise<void>;
  /** Stops the drainer after the operation in progress; idempotent. */
  close(): Promise<void>;
}

/**
 * Whether the room operation at `index` can be skipped: a later one of the batch syncs the same
 * room with no message of that room in between (a room made with members queues one per row).
 */
function supersededLater(entries: readonly MirrorOutboxEntry[], index: number): boolean {
  const operation = entries[index]?.operation;
  if (operation?.kind !== 'room') return false;
  for (const later of entries.slice(index + 1)) {
    const roomId = later.operation.kind === 'room' ? later.operation.roomId : later.operation.message.roomId;
    if (roomId === operation.roomId) return later.operation.kind === 'room';
  }
  return false;
}

/** Creates the mirror (not started). @throws ChatError `invalid_input` for bad options */
export function createXmppMirror(options: XmppMirrorOptions): XmppMirror {
  const resolved = resolveXmppMirrorOptions(options);
  const { store, clock, onError } = resolved;
  const names = { domain: resolved.domain, mucDomain: resolved.mucDomain };
  const admin = createEjabberdAdminClient({
    apiUrl: resolved.apiUrl,
    authorization: resolved.authorization,
    timeoutMs: resolved.commandTimeoutMs,
  });
  const owner = `${resolved.drainerName}-${resolved.createId()}`;

  const syncRoom = async (roomId: string) => {
    const record = await store.getRoom(roomId);
    const members = record ? await store.listMembers(roomId) : [];
    const changes = await syncMucRoom(admin, names, roomId, record && { record, members });
    if (changes.optionsRepaired.length > 0) resolved.onOptionsRepaired(roomId, changes.optionsRepaired);
    return changes;
  };

  /**
   * Who sends a message: the acting user, except a member who left, who is no longer in the room
   * when the notice is applied; as in the original, the room's first owner sends it then.
   */
  const senderOf = async (message: RoomMessagePayload): Promise<string | undefined> => {
    const leaving =
      message.type === 'ROOM_SYSTEM_MESSAGE' &&
      message.operation === 'memberRemoved' &&
      message.fields.userId === message.senderId;
    if (!leaving) return message.senderId;
    const members = await store.listMembers(message.roomId);
    return (members.find((member) => member.owner) ?? members[0])?.userId;
  };

  const apply = async (operation: MirrorOperation) => {
    if (operation.kind === 'room') {
      await syncRoom(operation.roomId);
      return;
    }
    const { message } = operation;
    const senderId = await senderOf(message);
    if (senderId === undefined) return;
    const from = `${senderId}@${names.domain}`;
    const to = `${message.roomId}@${names.mucDomain}`;
    const id = (message.type === 'ROOM_ATTACHMENT_ADDED' && message.messageId) || operation.id;
    await admin.command('send_stanza', { from, to, stanza: messageStanza(message, { id, from, to }) });
  };

  let closed = false;
  let closing: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  let stopListening: (() => Promise<void>) | undefined;
  /** Ends the current pause early when it may be woken (idle, not backing off). */
  let wake: (() => void) | undefined;
  /** Ends the current pause, whatever it is (closing). */
  let interrupt: (() => void) | undefined;
  /** A wake-up came since the last claim began: the next idle pause ends at once. */
  let woken = false;
  let idleWaiters: (() => void)[] = [];
  const pause = (ms: number, wakeable: boolean) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        interrupt = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      interrupt = done;
      if (wakeable) {
        wake = done;
        // Queued while the claim that found nothing was under way: look again now.
        if (woken) done();
      }
    });
  const kick = () => {
    woken = true;
    wake?.();
  };

  /**
   * Applies entries in order, forgetting each once applied; false when one failed. Stops early
   * (true) once half the lease has gone by since `claimedAt`, so that the rest is claimed again,
   * renewing the lease, rather than applied by a drainer whose lease may have passed to another;
   * and stops (true) when the store refuses to forget an entry or count its failure under this
   * claim's lease: another drainer took the queue meanwhile (this one was frozen or cut off), so
   * this one acts no more on what it claimed.
   */
  const applyInOrder = async (entries: readonly MirrorOutboxEntry[], claimedAt: Date): Promise<boolean> => {
    const fence = entries[0]?.fence;
    const lease: MirrorLease | undefined = fence === undefined ? undefined : { owner, fence };
    const lost = () => {
      onError(
        new ChatError(
          'dependency_unavailable',
          `expected to hold the XMPP mirror lease (fencing token ${fence}) but another drainer took it since: stopping this batch`,
        ),
        'the XMPP mirror lease passed to another drainer',
      );
      return true;
    };
    for (const [index, entry] of entries.entries()) {
      if (closed) return true;
      // The first entry always goes: a batch must make progress whatever the clock says.
      if (index > 0 && clock.now().getTime() - claimedAt.getTime() >= resolved.leaseMs / 2) return true;
      if (supersededLater(entries, index)) {
        if (!(await store.forgetMirrorOperations([entry.sequence], lease))) return lost();
        continue;
      }
      try {
        await apply(entry.operation);
      } catch (error) {
        const refusedTooOften =
          entry.operation.kind === 'message' &&
          isRejectedCommand(error) &&
          entry.attempts + 1 >= resolved.maxRefusals;
        if (refusedTooOften) {
          onError(error, `dropping XMPP message ${entry.sequence} refused ${resolved.maxRefusals} times`);
          if (!(await store.forgetMirrorOperations([entry.sequence], lease))) return lost();
          continue;
        }
        onError(error, `applying XMPP mirror operation ${entry.sequence} (${entry.operation.kind})`);
        if (!(await store.recordMirrorFailure(entry.sequence, lease))) return lost();
        return false;
      }
      if (!(await store.forgetMirrorOperations([entry.sequence], lease))) return lost();
    }
    return true;
  };

  const drain = async () => {
    let failures = 0;
    while (!closed) {
      let succeeded = true;
      let claimedNothing = false;
      woken = false;
      try {
        const now = clock.now();
        const entries = await store.claimMirrorOperations({
          owner,
          limit: resolved.batchSize,
          now,
          leaseUntil: new Date(now.getTime() + resolved.leaseMs),
        });
        claimedNothing = entries.length === 0;
        if (!claimedNothing) succeeded = await applyInOrder(entries, now);
      } catch (error) {
        onError(error, 'reading the XMPP mirror outbox');
        succeeded = false;
      }
      if (claimedNothing) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
        await pause(resolved.pollIntervalMs, true);
      } else if (!succeeded) {
        failures += 1;
        await pause(
          Math.min(resolved.retryMaxMs, resolved.retryBaseMs * 2 ** Math.min(failures - 1, 20)),
          false,
        );
      } else {
        failures = 0;
      }
    }
  };

  /**
   * Ends this drainer's lease, if it holds it, by renewing it until now: another process takes the
   * outbox over at its next look instead of after the lease runs out.
   */
  const releaseLease = async () => {
    const now = clock.now();
    try {
      await store.claimMirrorOperations({ owner, limit: 1, now, leaseUntil: now });
    } catch (error) {
      onError(error, 'releasing the XMPP mirror lease');
    }
  };

  return {
    async dispatch() {
      kick();
    },
    async start() {
      if (closed || loop) return;
      await store.setMirrorOutboxEnabled(true);
      if (loop) return;
      loop = drain();
      // Operations queued by other processes wake this drainer too, when it holds the lease.
      stopListening = await store.onMirrorOperationsQueued?.((leaseOwner) => {
        if (leaseOwner === undefined || leaseOwner === owner) kick();
      });
      if (closed) await stopListening?.();
    },
    idle() {
      if (!loop) return Promise.reject(new Error('the XMPP mirror is not started'));
      const waiting = new Promise<void>((resolve) => idleWaiters.push(resolve));
      kick();
      return waiting;
    },
    syncRoom,
    resync: () => resyncAllRooms({ admin, names, store, syncRoom }),
    async check() {
      await admin.command('status', {});
    },
    close() {
      closing ??= (async () => {
        closed = true;
        interrupt?.();
        await stopListening?.();
        await loop;
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
        if (loop) await releaseLease();
      })();
      return closing;
    },
  };
}
