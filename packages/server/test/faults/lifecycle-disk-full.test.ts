import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fillDisk, mountSmallDisk } from '../../../../test-support/small-disk.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { chatClientFor, onePixelPng, users } from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';
import { chunkedUpload } from './lifecycle-support.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';
const token = (userId: string) => signLocalToken(testJwtSecret, { userId });
const disk = mountSmallDisk('2m');
const databaseDisk = mountSmallDisk('4m');
const readOnlyDisk = mountSmallDisk('1m');

let node: ClusterNode | undefined;
let databaseNode: ClusterNode | undefined;
let readOnlyNode: ClusterNode | undefined;
afterAll(async () => {
  await node?.kill('SIGKILL');
  await databaseNode?.kill('SIGKILL');
  disk.unmount();
  databaseDisk.unmount();
  await readOnlyNode?.kill('SIGKILL');
  readOnlyDisk.unmount();
});

describe('a full disk under CHAT_BLOB_DIR and SAML_DATABASE_URL (a 2 MiB tmpfs, built dist/main.js)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'answers 507 storage_full to an attachment, a room picture and a SAML write, keeps no file and no row, stays up, and writes again once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      node = await startClusterNode('disk-full', {
        AUTH_JWT_SECRET: testJwtSecret,
        CHAT_BLOB_DIR: disk.directory,
        SAML_DATABASE_URL: path.join(disk.directory, 'saml.db'),
      });
      const { alice, bob, carol } = users('alice', 'bob', 'carol');
      const call = chatClientFor(node.url, token)(alice);
      const room = await call('POST', '/rooms', {
        json: { type: 'group', name: 'Full', membersIds: [bob, carol] },
      });
      expect(room.status).toBe(201);
      const attachments = `/rooms/${room.body.id}/attachments`;
      const kept = await call('POST', attachments, {
        body: 'kept bytes',
        headers: { fileName: 'kept.txt', mimeType: 'text/plain', 'content-type': 'application/octet-stream' },
      });
      expect(kept.status).toBe(201);
      const blobFolder = path.join(disk.directory, 'attachments');
      const filesBefore = readdirSync(blobFolder);
      const listBefore = (await call('GET', attachments)).body;
      // Every free block taken by something else.
      const filler = path.join(disk.directory, 'filler');
      fillDisk(filler);

      const authorization = `Bearer ${await token(alice)}`;
      const upload = (kibibytes: number) =>
        chunkedUpload(
          `${node?.url}${attachments}`,
          {
            authorization,
            fileName: 'big.bin',
            mimeType: 'application/octet-stream',
            'content-type': 'application/octet-stream',
          },
          Array.from({ length: kibibytes / 64 }, () => Buffer.alloc(64 * 1024, 7)),
        );
      const refused = await upload(1024);
      expect(refused.status).toBe(507);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'storage_full' });
      expect(readdirSync(blobFolder)).toEqual(filesBefore);
      expect((await call('GET', attachments)).body).toEqual(listBefore);
      expect(node.process.exitCode).toBeNull();

      // A room picture goes to the same store.
      const picture = await call('PUT', `/rooms/${room.body.id}/picture`, {
        body: onePixelPng,
        headers: { fileName: 'room.png', mimeType: 'image/png', 'content-type': 'application/octet-stream' },
      });
      expect(picture.status).toBe(507);
      expect(picture.body).toMatchObject({ code: 'storage_full' });
      expect((await call('GET', `/rooms/${room.body.id}/picture`)).status).toBe(404);
      // No file of it anywhere (its empty folder may stay: folders take no blocks on tmpfs).
      const pictureFiles = readdirSync(path.join(disk.directory, 'pictures'), {
        recursive: true,
        withFileTypes: true,
      });
      expect(pictureFiles.filter((entry) => !entry.isDirectory())).toEqual([]);

      // The SAML property store on the same disk: a write is refused whole.
      const admin = {
        authorization: `Bearer ${await signLocalToken(testJwtSecret, { userId: alice, admin: true })}`,
      };
      const saml = `${node.url}/admin/auth/saml/full.example`;
      const samlPut = await fetch(saml, {
        method: 'PUT',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ 'sp.entityid': 'urn:full.example' }),
      });
      expect(samlPut.status).toBe(507);
      expect(await samlPut.json()).toMatchObject({ ok: false, code: 'storage_full' });
      expect(await (await fetch(`${saml}?raw=true`, { headers: admin })).json()).toEqual({});

      rmSync(filler);
      const accepted = await upload(1024);
      expect(accepted.status).toBe(201);
      expect(readdirSync(blobFolder)).toHaveLength(filesBefore.length + 1);
      const samlAgain = await fetch(saml, {
        method: 'PUT',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ 'sp.entityid': 'urn:full.example' }),
      });
      expect(samlAgain.status).toBe(200);
      const pictureAgain = await call('PUT', `/rooms/${room.body.id}/picture`, {
        body: onePixelPng,
        headers: { fileName: 'room.png', mimeType: 'image/png', 'content-type': 'application/octet-stream' },
      });
      expect(pictureAgain.status).toBe(204);
      expect(node.process.exitCode).toBeNull();
    },
    180_000,
  );

  it.skipIf(databaseDisk.missing !== undefined && !mustRun)(
    'answers 507 storage_full when the chat database disk is full, and creates rooms again once space is freed',
    async () => {
      if (!databaseDisk.directory) throw new Error(`the full-disk test cannot run: ${databaseDisk.missing}`);
      databaseNode = await startClusterNode('database-full', {
        AUTH_JWT_SECRET: testJwtSecret,
        CHAT_DATABASE_URL: path.join(databaseDisk.directory, 'chat.db'),
      });
      const { alice, bob, carol } = users('alice', 'bob', 'carol');
      const call = chatClientFor(databaseNode.url, token)(alice);
      const create = () =>
        call('POST', '/rooms', { json: { type: 'group', name: 'Full', membersIds: [bob, carol] } });
      expect((await create()).status).toBe(201);
      const roomsBefore = (await call('GET', '/rooms')).body;
      const filler = path.join(databaseDisk.directory, 'filler');
      fillDisk(filler);

      const refused = await create();
      expect(refused.status).toBe(507);
      expect(refused.body).toMatchObject({ code: 'storage_full' });
      expect((await call('GET', '/rooms')).body).toEqual(roomsBefore);
      expect(databaseNode.process.exitCode).toBeNull();

      rmSync(filler);
      expect((await create()).status).toBe(201);
    },
    180_000,
  );

  it.skipIf(readOnlyDisk.missing !== undefined && !mustRun)(
    'answers 500, not 400 blaming the client, when the blob disk fails another way (remounted read-only)',
    async () => {
      const directory = readOnlyDisk.directory;
      if (!directory) throw new Error(`the read-only disk test cannot run: ${readOnlyDisk.missing}`);
      readOnlyNode = await startClusterNode('blob-disk-read-only', {
        AUTH_JWT_SECRET: testJwtSecret,
        CHAT_BLOB_DIR: directory,
      });
      const { alice, bob, carol } = users('alice', 'bob', 'carol');
      const call = chatClientFor(readOnlyNode.url, token)(alice);
      const room = await call('POST', '/rooms', {
        json: { type: 'group', name: 'Read-only', membersIds: [bob, carol] },
      });
      const attachments = `/rooms/${room.body.id}/attachments`;
      const headers = {
        authorization: `Bearer ${await token(alice)}`,
        fileName: 'file.bin',
        mimeType: 'application/octet-stream',
        'content-type': 'application/octet-stream',
      };
      expect(
        (await chunkedUpload(`${readOnlyNode.url}${attachments}`, headers, [Buffer.alloc(1024)])).status,
      ).toBe(201);
      const remounted = spawnSync('mount', ['-o', 'remount,ro', directory], { encoding: 'utf8' });
      expect(remounted.stderr).toBe('');
      try {
        const chunks = Array.from({ length: 8 }, () => Buffer.alloc(64 * 1024, 3));
        // The server answers and closes while chunks are still on their way: when the client's next
        // write meets the closed socket (EPIPE) before it read the answer, the answer is lost to it,
        // not to the server. Such an upload is tried again; a refused upload changes nothing.
        let refused: Awaited<ReturnType<typeof chunkedUpload>> | undefined;
        for (let attempt = 1; refused === undefined; attempt += 1) {
          refused = await chunkedUpload(`${readOnlyNode.url}${attachments}`, headers, chunks).catch(
            (error: NodeJS.ErrnoException) => {
              if (attempt >= 5 || (error.code !== 'EPIPE' && error.code !== 'ECONNRESET')) throw error;
              return undefined;
            },
          );
        }
        expect(refused.status).toBe(500);
        expect((await call('GET', attachments)).body.attachments).toHaveLength(1);
        expect(readOnlyNode.process.exitCode).toBeNull();
      } finally {
        spawnSync('mount', ['-o', 'remount,rw', directory]);
      }
    },
    180_000,
  );
});
