import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packagesFolder = fileURLToPath(new URL('../../../', import.meta.url));
/** The shared Redis, on a database number of this test's own (pub/sub channels carry a prefix of their own too). */
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/14';

/** The relative modules `entry` imports, transitively, and every bare package name among their imports. */
function importedPackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from\s*|import\s*\(?\s*)['"]([^'"]+)['"]/g)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

/** tsc's output for `files` in the consumer project (strict, skipLibCheck false); empty when they compile. */
async function typeErrors(work: string, files: string[]): Promise<string> {
  const options = ['--strict', '--noEmit', '--skipLibCheck', 'false', '--target', 'ES2023'];
  const modules = ['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node'];
  return run(path.join(work, 'node_modules/.bin/tsc'), [...options, ...modules, ...files], {
    cwd: work,
  }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

/**
 * chat-domain and saml-config as npm users get them: packed, installed with npm into a fresh project
 * next to vitest 5 and ioredis 6 (no ERESOLVE), without their optional drivers.
 */
describe('the packed chat-domain and saml-config', () => {
  let work = '';
  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'collab-chat-saml-consumer-'));
    const packs = path.join(work, 'packs');
    for (const library of ['chat-domain', 'saml-config']) {
      await run('pnpm', ['pack', '--pack-destination', packs], { cwd: path.join(packagesFolder, library) });
    }
    const tarballs = readdirSync(packs).map((name) => path.join(packs, name));
    writeFileSync(
      path.join(work, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // npm exits non-zero on a peer conflict (ERESOLVE); no --legacy-peer-deps, no --force.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        // vitest 5 declares Node >= 22; this consumer only installs it next to our packages (the
        // peer ranges are what is tested), so a machine whose npm is engine-strict must not refuse it.
        '--engine-strict=false',
        ...tarballs,
        'vitest@5',
        'ioredis@6',
        'typescript@6.0.3',
        // vitest 5 peers @types/node ^22 || >=24 (its own rule, not ours); 22 describes Node 20's APIs too.
        '@types/node@22',
      ],
      { cwd: work, maxBuffer: 16 * 1024 * 1024 },
    );
  }, 600_000);
  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('install next to vitest 5 and ioredis 6 without the drivers they do not need', () => {
    const installed = (name: string) => existsSync(path.join(work, 'node_modules', name, 'package.json'));
    const major = (name: string) =>
      (
        JSON.parse(readFileSync(path.join(work, 'node_modules', name, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version.split('.')[0];
    expect(major('vitest')).toBe('5');
    expect(major('ioredis')).toBe('6');
    // Optional peers are not installed: no native build of better-sqlite3, no pg.
    expect(installed('better-sqlite3')).toBe(false);
    expect(installed('pg')).toBe(false);
    expect(installed('@types/pg')).toBe(false);
    // One copy of ioredis: the app's, not a nested one.
    expect(existsSync(path.join(work, 'node_modules/@collab-suite/chat-domain/node_modules/ioredis'))).toBe(
      false,
    );
  });

  it('run with the memory stores, name a missing driver and a mistyped option, and use ioredis 6', async () => {
    const consumer = path.join(work, 'consumer.mjs');
    writeFileSync(consumer, readFileSync(new URL('./chat-saml-consumer.mjs', import.meta.url)));
    const { stdout } = await run(process.execPath, [consumer], {
      cwd: work,
      // Without NODE_PATH (pnpm sets it to the workspace's packages): only the project's own modules.
      env: { ...process.env, NODE_PATH: '', CONSUMER_REDIS_URL: redisUrl },
    });
    const answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(answer.added).toMatchObject({ userId: '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b21', owner: false });
    expect(answer.chatTypo).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(answer.chatTypo.message).toContain('`stores`');
    expect(answer.chatSqlite).toMatchObject({
      code: 'driver_missing',
      details: { package: 'better-sqlite3' },
    });
    expect(answer.chatSqlite.message).toContain('npm install better-sqlite3');
    expect(answer.certificate).toBe(true);
    expect(answer.samlDays).toMatchObject({ code: 'invalid_parameters', details: { parameter: 'days' } });
    expect(answer.samlTypo).toMatchObject({ code: 'invalid_options' });
    expect(answer.samlTypo.message).toContain('`stores`');
    expect(answer.samlPostgres).toMatchObject({ code: 'driver_missing', details: { package: 'pg' } });
    expect(answer.redis).toBe(true);
    expect(answer.ioredis).toBe('6');
    expect(answer.testing).toBe('function');
  }, 120_000);

  it('type-check a strict consumer and refuse its mistyped options at compile time', async () => {
    const good = path.join(work, 'good.mts');
    writeFileSync(
      good,
      [
        "import { createChatService, httpStatusOf, parseMemberToInsert } from '@collab-suite/chat-domain';",
        "import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';",
        "import { openRedisEventBus } from '@collab-suite/chat-domain/redis';",
        "import { startPrivateRedis } from '@collab-suite/chat-domain/testing';",
        "import { createMemorySamlPropertyStore, createSamlConfigService } from '@collab-suite/saml-config';",
        'const chat = createChatService({ store: createSqliteChatStore({ filename: ":memory:" }) });',
        "const actor = { userId: '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b20' };",
        "const room = await chat.createRoom(actor, { type: 'group', name: 'Team', membersIds: [] });",
        "await chat.addMember(actor, room.id, { userId: '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b21' });",
        'await chat.addMember(actor, room.id, parseMemberToInsert(JSON.parse("{}") as unknown));',
        'const status: number | undefined = httpStatusOf(new Error());',
        'const saml = createSamlConfigService({ store: createMemorySamlPropertyStore() });',
        "await saml.generateCertificate('example.com', { days: 365, keyBits: 4096 });",
        "await saml.updateProperties('example.com', { 'security.sign_metadata': true, 'sp.entityid': null });",
        'export { status, openRedisEventBus, startPrivateRedis };',
      ].join('\n'),
    );
    const typos = path.join(work, 'typos.mts');
    writeFileSync(
      typos,
      [
        "import { createChatService, createMemoryChatStore } from '@collab-suite/chat-domain';",
        "import { createMemorySamlPropertyStore, createSamlConfigService } from '@collab-suite/saml-config';",
        'createChatService({ stores: createMemoryChatStore() });',
        'const saml = createSamlConfigService({ store: createMemorySamlPropertyStore() });',
        "await saml.generateCertificate('example.com', { days: '365' });",
        "await createChatService().addMember({ userId: 'a' }, 'room', { userid: 'b' });",
      ].join('\n'),
    );
    // One compiler run for both files (a strict check of the libraries' types takes a while).
    const errors = await typeErrors(work, ['good.mts', 'typos.mts']);
    expect(errors).not.toContain('good.mts');
    expect(errors).toMatch(/typos\.mts\(3,[0-9]+\): error TS(2353|2561): .*'stores'/);
    expect(errors).toMatch(/typos\.mts\(5,[0-9]+\): error TS2322/);
    expect(errors).toMatch(/typos\.mts\(6,[0-9]+\): error TS(2353|2561): .*'userid'/);
    expect(
      errors
        .trim()
        .split('\n')
        .filter((line) => line.includes('error TS')),
    ).toHaveLength(3);
  }, 300_000);

  it('keep vitest out of the plain /testing entries and every driver out of the main entries', () => {
    const dist = (library: string, file: string) =>
      path.join(work, 'node_modules/@collab-suite', library, 'dist', file);
    for (const library of ['chat-domain', 'saml-config']) {
      expect(importedPackages(dist(library, 'testing.js'))).not.toContain('vitest');
      expect(importedPackages(dist(library, 'testing/vitest.js'))).toContain('vitest');
      const main = importedPackages(dist(library, 'index.js'));
      for (const driver of ['better-sqlite3', 'pg', 'ioredis', 'vitest']) expect(main).not.toContain(driver);
    }
  });
});
