import { randomUUID } from 'node:crypto';
import { type ChatStore, createMemoryChatStore, type MirrorOperation } from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { eventually, type PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import { createXmppMirror, type XmppMirror } from '@collab-suite/chat-domain/xmpp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentedEjabberd } from './documented-ejabberd.js';
import { chatTestDatabaseUrl, truncateChatTables } from './postgres-helper.js';

/** Operations on rooms the store does not have: each one is a cheap `destroy` in ejabberd. */
const roomOperations = (count: number): MirrorOperation[] =>
  Array.from({ length: count }, () => ({ kind: 'room', roomId: randomUUID() }));

// Two mirrors on one store stand for two processes on one database: the lease decides who drains.
describe('the XMPP mirror lease', () => {
  let ejabberd: PrivateEjabberd;
  const mirrors: XmppMirror[] = [];
  const mirrorOn = (store: ChatStore, options: Partial<Parameters<typeof createXmppMirror>[0]> = {}) => {
    const mirror = createXmppMirror({
      store,
      apiUrl: ejabberd.apiUrl,
      domain: ejabberd.domain,
      mucDomain: ejabberd.mucDomain,
      pollIntervalMs: 50,
      ...options,
    });
    mirrors.push(mirror);
    return mirror;
  };
  const drained = (store: ChatStore, timeoutMs: number) =>
    eventually(async () => {
      expect(await store.countMirrorOperations()).toBe(0);
    }, timeoutMs);

  beforeAll(async () => {
    ejabberd = await startDocumentedEjabberd({ jwtSecret: 'mirror-lease-secret-0123456789abcdef' });
  }, 120_000);
  afterEach(async () => {
    for (const mirror of mirrors.splice(0)) await mirror.close();
  });
  afterAll(async () => {
    await ejabberd?.stop();
  });

  it('is ended by a mirror that closes, so another drains at once rather than after the lease', async () => {
    const store = createMemoryChatStore();
    const first = mirrorOn(store, { leaseMs: 600_000, drainerName: 'first' });
    await first.start();
    const second = mirrorOn(store, { leaseMs: 600_000, drainerName: 'second' });
    await second.start();
    await store.enqueueMirrorOperations(roomOperations(2), new Date());
    await drained(store, 10_000);
    await first.close();
    // Ten minutes of lease left had it kept it; the second drains within a few polls.
    await store.enqueueMirrorOperations(roomOperations(2), new Date());
    await drained(store, 5000);
  });

  it('refuses an API call timeout of half the lease or more', () => {
    const store = createMemoryChatStore();
    expect(() => mirrorOn(store, { leaseMs: 20_000 })).toThrow(
      /commandTimeoutMs must be under half of leaseMs/,
    );
    expect(() => mirrorOn(store, { leaseMs: 2000, commandTimeoutMs: 999 })).not.toThrow();
  });

  it('stops a batch after half the lease and claims the rest again, applying at least one each time', async () => {
    const store = createMemoryChatStore();
    const claimed: number[] = [];
    // Records how many entries each claim returned; everything else goes to the store as is.
    const counting = new Proxy(store, {
      get(target, key) {
        if (key === 'claimMirrorOperations') {
          return async (claim: Parameters<ChatStore['claimMirrorOperations']>[0]) => {
            const entries = await target.claimMirrorOperations(claim);
            claimed.push(entries.length);
            return entries;
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // Each reading of the clock is 600 ms later: past half of a 1 s lease by the second entry.
    let readings = 0;
    const clock = { now: () => new Date(Date.UTC(2030, 0, 1) + 600 * readings++) };
    await store.enqueueMirrorOperations(roomOperations(4), new Date());
    await mirrorOn(counting, { leaseMs: 1000, commandTimeoutMs: 400, clock }).start();
    await drained(store, 10_000);
    expect(claimed.filter((count) => count > 0)).toEqual([4, 3, 2, 1]);
  });

  it('fences a drainer frozen past its lease on PostgreSQL: once it resumes its writes are refused, and the new holder drains', async () => {
    const url = await chatTestDatabaseUrl('xmpp_mirror_fence');
    const store = await openPostgresChatStore({ connectionString: url, maxConnections: 4 });
    await truncateChatTables(url);
    try {
      // One clock for both drainers: moving it on stands for the time the first one was frozen.
      let frozenFor = 0;
      const clock = { now: () => new Date(Date.now() + frozenFor) };
      let resume = () => {};
      const resumed = new Promise<void>((resolve) => {
        resume = resolve;
      });
      let froze = () => {};
      const frozen = new Promise<void>((resolve) => {
        froze = resolve;
      });
      // The first drainer freezes after applying its first operation, before forgetting it.
      const forgotByFirst: boolean[] = [];
      let holding = true;
      const frozenStore = new Proxy(store, {
        get(target, key) {
          if (key === 'forgetMirrorOperations') {
            return async (...args: Parameters<ChatStore['forgetMirrorOperations']>) => {
              if (holding) {
                holding = false;
                froze();
                await resumed;
              }
              const forgotten = await target.forgetMirrorOperations(...args);
              forgotByFirst.push(forgotten);
              return forgotten;
            };
          }
          const value = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const errors: string[] = [];
      await store.enqueueMirrorOperations(roomOperations(3), new Date());
      const leaseMs = 2000;
      await mirrorOn(frozenStore, {
        leaseMs,
        commandTimeoutMs: 900,
        clock,
        drainerName: 'first',
        onError: (_error, context) => errors.push(context),
      }).start();
      await frozen;
      frozenFor = leaseMs * 3;
      await mirrorOn(store, { leaseMs, commandTimeoutMs: 900, clock, drainerName: 'second' }).start();
      await drained(store, 15_000);

      resume();
      await eventually(async () => {
        expect(errors).toContain('the XMPP mirror lease passed to another drainer');
      }, 10_000);
      // Its one write after resuming was refused; it applied nothing more.
      expect(forgotByFirst).toEqual([false]);
      expect(await store.countMirrorOperations()).toBe(0);
    } finally {
      for (const mirror of mirrors.splice(0)) await mirror.close();
      await store.close();
    }
  }, 60_000);
});
