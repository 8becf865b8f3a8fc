import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';
import { chatClientFor, users } from './chat-test-support.js';

const token = (userId: string) => signLocalToken(testJwtSecret, { userId });

/** Waits (up to a minute, for a loaded machine) until `condition` resolves true. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let node: ClusterNode | undefined;
afterEach(async () => {
  await node?.kill('SIGKILL');
  node = undefined;
});

describe('upload leftovers after kill -9', () => {
  it('are swept at the next start, while the blobs rows point at stay', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-crash-'));
    const blobs = path.join(dataDir, 'chat-blobs', 'attachments');
    const env = { DATA_DIR: dataDir, AUTH_JWT_SECRET: testJwtSecret, CHAT_BLOB_SWEEP_SECONDS: '60' };
    node = await startClusterNode('crash', env);
    const { alice, bob, carol } = users('alice', 'bob', 'carol');
    let call = chatClientFor(node.url, token)(alice);
    const room = (
      await call('POST', '/rooms', { json: { type: 'group', name: 'Crash', membersIds: [bob, carol] } })
    ).body as { id: string };
    const kept = await call('POST', `/rooms/${room.id}/attachments`, {
      body: 'kept bytes',
      headers: { fileName: 'kept.txt', mimeType: 'text/plain', 'content-type': 'application/octet-stream' },
    });
    expect(kept.status).toBe(201);

    // An upload in flight: half its bytes sent, then the server is killed.
    const url = new URL(`${node.url}/rooms/${room.id}/attachments`);
    const upload = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token(alice)}`,
        fileName: 'big.bin',
        mimeType: 'application/octet-stream',
        'content-type': 'application/octet-stream',
        'content-length': String(4 * 1024 * 1024),
      },
    });
    upload.on('error', () => {});
    upload.write(Buffer.alloc(2 * 1024 * 1024, 7));
    const partials = async () => (await readdir(blobs)).filter((name) => name.endsWith('.partial'));
    await until(async () => (await partials()).length === 1, 'the partial file of the upload');
    await node.kill('SIGKILL');
    upload.destroy();
    // A blob whose row was never written: the process died between the two.
    const orphan = path.join(blobs, randomUUID());
    await writeFile(orphan, 'orphan bytes');
    const leftovers = [...(await partials()).map((name) => path.join(blobs, name)), orphan];
    const keptFile = path.join(blobs, String(kept.body.id));
    const twoHoursAgo = new Date(Date.now() - 7_200_000);
    for (const file of [...leftovers, keptFile]) await utimes(file, twoHoursAgo, twoHoursAgo);

    node = await startClusterNode('crash-again', env);
    await until(async () => (await readdir(blobs)).length === 1, 'the sweep at start-up');
    expect(await readdir(blobs)).toEqual([String(kept.body.id)]);
    expect((await stat(keptFile)).size).toBe('kept bytes'.length);
    call = chatClientFor(node.url, token)(alice);
    const read = await call('GET', `/attachments/${kept.body.id}/download`);
    expect([read.status, read.bytes.toString()]).toEqual([200, 'kept bytes']);
  }, 120_000);
});
