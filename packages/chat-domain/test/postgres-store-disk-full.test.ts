import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chownSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createChatService } from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { type PrivatePostgres, startPrivatePostgres } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { fillDisk, mountSmallDisk } from '../../../test-support/small-disk.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';

// A tablespace on it holds the test database (a copy of template1, about 8 MiB); the WAL stays on
// the main disk, so PostgreSQL keeps running and refuses only what needs a new block (53100).
const disk = mountSmallDisk('24m');
let server: PrivatePostgres | undefined;
afterAll(async () => {
  await server?.destroy();
  disk.unmount();
});

/** A database of the private server whose tables live on the small disk. */
async function databaseOnSmallDisk(directory: string): Promise<string> {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  chownSync(directory, uid, gid);
  server = await startPrivatePostgres();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE TABLESPACE collab_small LOCATION '${directory}'`);
    await admin.query('CREATE DATABASE collab_full TABLESPACE collab_small');
  } finally {
    await admin.end();
  }
  const url = new URL(server.url);
  url.pathname = '/collab_full';
  return url.toString();
}

describe('PostgreSQL chat store on a full disk (a tablespace on a 24 MiB tmpfs)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'refuses a write with storage_full (507), keeps what was stored and nothing of the refused write, and writes again once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      const store = await openPostgresChatStore({
        connectionString: await databaseOnSmallDisk(disk.directory),
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
