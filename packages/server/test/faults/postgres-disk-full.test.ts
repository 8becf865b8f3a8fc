import { rmSync } from 'node:fs';
import path from 'node:path';
import { type PrivatePostgres, startPrivatePostgres } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseOnSmallDisk } from '../../../../test-support/postgres-small-disk.js';
import { fillDisk, mountSmallDisk } from '../../../../test-support/small-disk.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { chatClientFor, users } from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';
const token = (userId: string) => signLocalToken(testJwtSecret, { userId });
// The database's tables live in a tablespace on it (see databaseOnSmallDisk).
const disk = mountSmallDisk('24m');

let postgres: PrivatePostgres | undefined;
let node: ClusterNode | undefined;
afterAll(async () => {
  await node?.kill('SIGKILL');
  await postgres?.destroy();
  disk.unmount();
});

/** Calls `attempt` until it answers something else than `ok` (at most `limit` times); that answer. */
async function firstRefusal(
  attempt: (index: number) => Promise<{ status: number; body: unknown }>,
  ok: number,
  limit = 500,
): Promise<{ status: number; body: unknown; accepted: number }> {
  for (let index = 0; index < limit; index += 1) {
    const answer = await attempt(index);
    if (answer.status !== ok) return { ...answer, accepted: index };
  }
  throw new Error(`expected a refusal within ${limit} writes on a full disk`);
}

describe('a full disk under the PostgreSQL database of chat and SAML (a tablespace on a 24 MiB tmpfs, dist/main.js)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'answers 507 storage_full to room creations and SAML writes, keeps nothing of them, stays up, and writes again once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      postgres = await startPrivatePostgres();
      const databaseUrl = await databaseOnSmallDisk({
        directory: disk.directory,
        serverUrl: postgres.url,
        Client: pg.Client,
      });
      node = await startClusterNode('postgres-full', {
        AUTH_JWT_SECRET: testJwtSecret,
        CHAT_DATABASE_URL: databaseUrl,
        SAML_DATABASE_URL: databaseUrl,
      });
      const { alice, bob, carol } = users('alice', 'bob', 'carol');
      const call = chatClientFor(node.url, token)(alice);
      const create = (name: string) =>
        call('POST', '/rooms', { json: { type: 'group', name, membersIds: [bob, carol] } });
      expect((await create('kept')).status).toBe(201);
      const admin = {
        authorization: `Bearer ${await signLocalToken(testJwtSecret, { userId: alice, admin: true })}`,
        'content-type': 'application/json',
      };
      const samlWrite = async (domain: string) => {
        const answer = await fetch(`${node?.url}/admin/auth/saml/${domain}`, {
          method: 'PUT',
          headers: admin,
          body: JSON.stringify({ 'sp.entityid': `urn:${domain}` }),
        });
        return { status: answer.status, body: await answer.json() };
      };
      expect((await samlWrite('kept.example')).status).toBe(200);
      const filler = path.join(disk.directory, 'filler');
      fillDisk(filler);

      // Rows go into the blocks the tables have until one needs a new block.
      const room = await firstRefusal((index) => create(`room ${index}`), 201);
      expect(room).toMatchObject({ status: 507, body: { code: 'storage_full' } });
      const rooms = (await call('GET', '/rooms')).body as unknown as { name: string }[];
      expect(rooms.map((entry) => entry.name).sort()).toEqual(
        ['kept', ...Array.from({ length: room.accepted }, (_, index) => `room ${index}`)].sort(),
      );
      const saml = await firstRefusal((index) => samlWrite(`full-${index}.example`), 200);
      expect(saml).toMatchObject({ status: 507, body: { ok: false, code: 'storage_full' } });
      const refusedDomain = `${node.url}/admin/auth/saml/full-${saml.accepted}.example?raw=true`;
      expect(await (await fetch(refusedDomain, { headers: admin })).json()).toEqual({});
      expect(node.process.exitCode).toBeNull();

      rmSync(filler);
      expect((await create('after')).status).toBe(201);
      expect((await samlWrite(`full-${saml.accepted}.example`)).status).toBe(200);
      expect(node.process.exitCode).toBeNull();
    },
    180_000,
  );
});
