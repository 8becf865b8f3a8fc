import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseInput } from '../inputs.js';
import { backgroundErrorHandlerSchema, idFactorySchema, portSchema } from '../option-schemas.js';
import type { ChatStore } from '../ports/chat-store.js';
import { type Clock, systemClock } from '../ports/clock.js';

const domainName = z
  .string()
  .regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, {
    message: 'expected a lower-case domain name like chat.example.com',
  });

/** Options of {@link createXmppMirror}. */
export const xmppMirrorOptionsSchema = z
  .strictObject({
    /** The chat store whose rooms are mirrored and whose outbox queues the operations. */
    store: portSchema<ChatStore>('ChatStore', 'claimMirrorOperations'),
    /** Base URL of ejabberd's mod_http_api, e.g. `http://127.0.0.1:5281/api`. */
    apiUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL of ejabberd mod_http_api' }),
    /** XMPP domain of users: a user is `<userId>@domain`. */
    domain: domainName,
    /** Domain of the MUC service: a room is `<roomId>@mucDomain`. */
    mucDomain: domainName,
    /** Makes the `Authorization` header of each API call (none: ejabberd trusts loopback callers). */
    authorization: z
      .custom<() => Promise<string | undefined>>((value) => typeof value === 'function')
      .optional(),
    /** @default the system clock */
    clock: portSchema<Clock>('Clock', 'now').optional(),
    /** Ids of messages sent (their stanza id). @default random UUIDs */
    createId: idFactorySchema.optional(),
    /** Told about every failed attempt and every dropped message. @default ignores them */
    onError: backgroundErrorHandlerSchema.optional(),
    /**
     * Told when a sync found privacy options of a room changed in ejabberd (by hand or by a client)
     * and set them back, with their names. @default ignores it
     */
    onOptionsRepaired: z
      .custom<(roomId: string, options: string[]) => void>((value) => typeof value === 'function')
      .optional(),
    /**
     * Start of the name this drainer holds the outbox's lease under (a random id is appended), so that
     * the lease (`chat_mirror_lease.owner` in SQL stores) tells which process drains. @default "drainer"
     */
    drainerName: z.string().min(1).max(100).default('drainer'),
    /** Longest an API call may take before it counts as failed; under half of `leaseMs`. @default 10000 */
    commandTimeoutMs: z.number().int().positive().default(10_000),
    /** Operations claimed at once: bounds the work between two lease renewals. @default 50 */
    batchSize: z.number().int().positive().max(1000).default(50),
    /** First wait after a failure; doubled after each further failure. @default 250 */
    retryBaseMs: z.number().int().positive().default(250),
    /** Longest wait between attempts while ejabberd is down: how late the mirror catches up at most. @default 15000 */
    retryMaxMs: z.number().int().positive().default(15_000),
    /**
     * How long a claim of the outbox holds against other processes; renewed with each claim. When the
     * process holding it dies, another takes over once it has run out, so it bounds that pause. A batch
     * stops and is claimed again after half of it, so one API call should take well under half (see
     * `commandTimeoutMs`). A mirror that closes ends its lease at once. @default 30000
     */
    leaseMs: z.number().int().positive().default(30_000),
    /**
     * How often an idle drainer looks at the outbox. Messages wake it at once; so does everything
     * queued, by any process, when the store notifies (`onMirrorOperationsQueued`: PostgreSQL); other
     * room changes (in SQLite, those the store queues by itself) wait for this, so it bounds how long
     * XMPP lags behind them. Each look renews the lease (a small write): keep it well under `leaseMs`.
     * @default 1000
     */
    pollIntervalMs: z.number().int().positive().default(1000),
    /**
     * How many times ejabberd may refuse one message (an error answer, not an outage) before it is
     * dropped and reported: one malformed message must not hold up the queue for ever. Room syncs
     * are never dropped. @default 10
     */
    maxRefusals: z.number().int().positive().default(10),
  })
  .refine((options) => options.commandTimeoutMs * 2 < options.leaseMs, {
    // A call outlasting half the lease could still run when another drainer has taken over.
    message: 'commandTimeoutMs must be under half of leaseMs',
    path: ['commandTimeoutMs'],
  });

/** Input of {@link createXmppMirror}. */
export type XmppMirrorOptions = z.input<typeof xmppMirrorOptionsSchema>;

/** {@link XmppMirrorOptions} with every default applied. */
export type ResolvedXmppMirrorOptions = Omit<
  z.output<typeof xmppMirrorOptionsSchema>,
  'clock' | 'createId' | 'onError' | 'onOptionsRepaired'
> & {
  clock: Clock;
  createId: () => string;
  onError: (error: unknown, context: string) => void;
  onOptionsRepaired: (roomId: string, options: string[]) => void;
};

/** Parses the options once. @throws ChatError `invalid_input` */
export function resolveXmppMirrorOptions(options: XmppMirrorOptions): ResolvedXmppMirrorOptions {
  const parsed = parseInput(xmppMirrorOptionsSchema, options, 'XMPP mirror options');
  return {
    ...parsed,
    clock: parsed.clock ?? systemClock,
    createId: parsed.createId ?? randomUUID,
    onError: parsed.onError ?? (() => {}),
    onOptionsRepaired: parsed.onOptionsRepaired ?? (() => {}),
  };
}
