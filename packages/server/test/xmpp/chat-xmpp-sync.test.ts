import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, type PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import type { ChatFeature } from '../../src/chat/chat-feature.js';
import { chatClientFor } from '../chat/chat-test-support.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { type TestServer, testJwtSecret } from '../support/test-server.js';
import { connectXmppClient } from './xmpp-test-client.js';
import { startChatServer, startDocumentedEjabberd, xmppEnvironment } from './xmpp-test-server.js';

const syncScript = fileURLToPath(new URL('../../dist/chat-xmpp-sync.js', import.meta.url));

/** Runs the built `chat-xmpp-sync` (`pnpm build` first) with `env`; resolves with its exit code and output. */
function runSync(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [syncScript],
      { env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('pnpm chat-xmpp-sync (built dist/chat-xmpp-sync.js) on PostgreSQL', () => {
  let ejabberd: PrivateEjabberd;
  let server: TestServer;
  let feature: ChatFeature;
  let databaseUrl: string;
  let databaseName: string;
  let dataDir: string;
  const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()];

  const command = async (name: string, body: Record<string, unknown>) =>
    (await fetch(`${ejabberd.apiUrl}/${name}`, { method: 'POST', body: JSON.stringify(body) })).json();
  const syncEnvironment = () => ({
    DATA_DIR: dataDir,
    CHAT_DATABASE_URL: databaseUrl,
    ...xmppEnvironment(ejabberd),
  });

  beforeAll(async () => {
    databaseName = `xmpp_sync_${randomBytes(4).toString('hex')}`;
    [ejabberd, databaseUrl] = await Promise.all([
      startDocumentedEjabberd({ jwtSecret: testJwtSecret }),
      testDatabaseUrl(databaseName),
    ]);
    dataDir = mkdtempSync(path.join(tmpdir(), 'xmpp-sync-'));
    ({ server, feature } = await startChatServer(syncEnvironment()));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await ejabberd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: databaseUrl.replace(`/${databaseName}`, '/postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  });

  it('recreates a lost room, destroys a stray one, reports it, and has nothing to do the second time', async () => {
    const as = chatClientFor(server.url, (userId) =>
      signLocalToken(testJwtSecret, { userId, xmppDomain: ejabberd.domain }),
    );
    const created = await as(alice)('POST', '/rooms', {
      json: { type: 'group', name: 'Kept', membersIds: [bob, carol] },
    });
    expect(created.status).toBe(201);
    await feature.xmppMirror?.idle();
    await command('destroy_room', { name: created.body.id, service: ejabberd.mucDomain });
    const stray = randomUUID();
    await command('create_room_with_opts', {
      name: stray,
      service: ejabberd.mucDomain,
      host: ejabberd.domain,
      options: [],
    });
    await eventually(async () => {
      const rooms = await command('muc_online_rooms', { service: ejabberd.mucDomain });
      expect(rooms).toEqual([`${stray}@${ejabberd.mucDomain}`]);
    });

    const first = await runSync(syncEnvironment());
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout.split('\n')[0] ?? '');
    expect(report).toMatchObject({ roomsChecked: 1, roomsCreated: 1, roomsDestroyed: 1, outboxPending: 0 });
    expect(report.changedRoomIds.sort()).toEqual([created.body.id, stray].sort());
    expect(first.stdout).toContain('changed 2 room(s)');

    const second = await runSync(syncEnvironment());
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing to do');
    expect(JSON.parse(second.stdout.split('\n')[0] ?? '')).toMatchObject({
      changedRoomIds: [],
      roomsCreated: 0,
    });
  }, 60_000);

  it('keeps a room members-only against the configuration form of its owner, and a resync sets back options and affiliations changed in ejabberd and reports them', async () => {
    const token = (userId: string) => signLocalToken(testJwtSecret, { userId, xmppDomain: ejabberd.domain });
    const as = chatClientFor(server.url, token);
    const created = await as(alice)('POST', '/rooms', {
      json: { type: 'group', name: 'Private', membersIds: [bob, randomUUID()] },
    });
    expect(created.status).toBe(201);
    const roomId = created.body.id as string;
    const room = { name: roomId, service: ejabberd.mucDomain };
    const roomJid = `${roomId}@${ejabberd.mucDomain}`;
    await feature.xmppMirror?.idle();
    const owner = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId: alice,
      token: await token(alice),
    });
    const outsider = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId: carol,
      token: await token(carol),
    });
    try {
      const answer = await owner.configure(roomJid, { 'muc#roomconfig_membersonly': '0' });
      expect(answer.name).toBe('error');
      expect(answer.getChild('forbidden')).toBeDefined();
      expect(await command('get_room_options', room)).toMatchObject({ members_only: 'true' });
      const granted = await owner.affiliate(roomJid, `${carol}@${ejabberd.domain}`, 'member');
      expect(granted.name).toBe('error');
      expect(granted.getChild('not-allowed')).toBeDefined();
      const refused = await outsider.join(roomJid);
      expect(refused.attrs.type).toBe('error');
      expect(refused.getChild('error')?.getChild('registration-required')).toBeDefined();
    } finally {
      await Promise.all([owner.stop(), outsider.stop()]);
    }

    // What the form does to a MUC owner's room (an affiliation given by hand in ejabberd): it opens it.
    await command('set_room_affiliation', {
      ...room,
      jid: `${alice}@${ejabberd.domain}`,
      affiliation: 'owner',
    });
    const opener = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId: alice,
      token: await token(alice),
    });
    try {
      const accepted = await opener.configure(roomJid, { 'muc#roomconfig_membersonly': '0' });
      expect(accepted.attrs.type).toBe('result');
    } finally {
      await opener.stop();
    }
    await command('change_room_option', { ...room, option: 'public_list', value: 'true' });
    expect(await command('get_room_options', room)).toMatchObject({
      members_only: 'false',
      public_list: 'true',
    });
    const repair = await runSync(syncEnvironment());
    expect(repair.stderr).toBe('');
    expect(repair.code).toBe(0);
    const report = JSON.parse(repair.stdout.split('\n')[0] ?? '');
    expect(report.changedRoomIds).toEqual([roomId]);
    expect(report.affiliationsChanged).toBe(1);
    expect(report.optionsRepaired.sort()).toEqual([`${roomId}: members_only`, `${roomId}: public_list`]);
    expect(repair.stdout).toContain(`options repaired 2 (${roomId}: members_only, ${roomId}: public_list)`);
    expect(await command('get_room_options', room)).toMatchObject({
      members_only: 'true',
      public_list: 'false',
    });
    expect(await command('get_room_affiliations', room)).toContainEqual(
      expect.objectContaining({ username: alice, affiliation: 'member' }),
    );
    expect((await runSync(syncEnvironment())).stdout).toContain('nothing to do');
  }, 60_000);

  it('refuses to run without CHAT_XMPP_URL, and reports an unreachable ejabberd', async () => {
    const unset = await runSync({ DATA_DIR: dataDir, CHAT_DATABASE_URL: databaseUrl });
    expect(unset.code).toBe(64);
    expect(unset.stderr).toContain('CHAT_XMPP_URL is not set');
    const unreachable = await runSync({ ...syncEnvironment(), CHAT_XMPP_URL: 'http://127.0.0.1:9/api' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('chat-xmpp-sync failed: expected ejabberd to answer');
  }, 60_000);
});
