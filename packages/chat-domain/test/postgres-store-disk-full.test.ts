import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createChatService } from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { type PrivatePostgres, startPrivatePostgres } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseOnSmallDisk } from '../../../test-support/postgres-small-disk.js';
import { fillDisk, mountSmallDisk } from '../../../test-support/small-disk.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';

// A tablespace on it holds the test database (see databaseOnSmallDisk).
const disk = mountSmallDisk('24m');
let server: PrivatePostgres | undefined;
afterAll(async () => {
  await server?.destroy();
  disk.unmount();
});

describe('PostgreSQL chat store on a full disk (a tablespace on a 24 MiB tmpfs)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'refuses a write with storage_full (507), keeps what was stored and nothing of the refused write, and writes again once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      server = await startPrivatePostgres();
      const store = await openPostgresChatStore({
        connectionString: await databaseOnSmallDisk({
          directory: disk.directory,
          serverUrl: server.url,
          Client: pg.Client,
        }),
      });
      try {
        const chat = createChatService({ store });
        const owner = { userId: randomUUID() };
        const create = (name: string) =>
          chat.createRoom(owner, {
            type: 'group',
            name,
            // Many members: each room takes a good part of a block, so the disk runs out soon.
            membersIds: Array.from({ length: 60 }, () => randomUUID()),
          });
        await create('kept');
        const filler = join(disk.directory, 'filler');
        fillDisk(filler);

        // Rows fit in the blocks the tables have until one needs a new block.
        let created = 1;
        let refused: unknown;
        for (let attempt = 0; attempt < 20_000 && refused === undefined; attempt += 1) {
          await create(`room ${attempt}`).then(
            () => {
              created += 1;
            },
            (error: unknown) => {
              refused = error;
            },
          );
        }
        expect(refused).toMatchObject({
          name: 'ChatError',
          code: 'storage_full',
          details: { dependency: 'postgresql' },
          cause: { code: '53100' },
        });
        const rooms = await chat.listRooms(owner);
        expect(rooms).toHaveLength(created);
        expect(rooms.map((room) => room.name)).toContain('kept');

        rmSync(filler);
        expect((await create('after')).name).toBe('after');
        expect(await chat.listRooms(owner)).toHaveLength(created + 1);
      } finally {
        await store.close();
      }
    },
    120_000,
  );
});
