import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { localBetterSqlitePrebuild } from '../../../../test-support/better-sqlite3-prebuild.js';

const run = promisify(execFile);
const packagesFolder = fileURLToPath(new URL('../../../', import.meta.url));
const libraries = ['chat-domain', 'preview-core', 'saml-config', 'server', 'webrtc-sfu'];

/** The server's bin: started, it must say it listens. */
function startsListening(bin: string, dataDir: string): Promise<boolean> {
  const child = spawn(bin, [], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DOCUMENT_CONVERTER: 'none',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let listened = false;
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk) => {
      if (!listened && String(chunk).includes('server listening')) {
        listened = true;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(listened);
    });
  });
}

/**
 * The packages as npm users get them (built by `pnpm build`, packed by `pnpm pack`): installed with
 * npm into a project of their own, type-checked without skipLibCheck, loaded with import and
 * require(), and the server's bin started.
 */
describe('the packed packages', () => {
  it('install with npm, type-check for a consumer, load with import and require, and start the server', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'collab-consumer-'));
    const packs = path.join(work, 'packs');
    for (const library of libraries) {
      await run('pnpm', ['pack', '--pack-destination', packs], { cwd: path.join(packagesFolder, library) });
    }
    const tarballs = readdirSync(packs).map((name) => path.join(packs, name));
    expect(tarballs).toHaveLength(5);
    writeFileSync(
      path.join(work, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // The server depends on better-sqlite3: its binary comes from the workspace's build instead of
    // being compiled again (the version is then the workspace's, within the server's range).
    const prebuild = localBetterSqlitePrebuild();
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...tarballs,
        ...(prebuild ? [`better-sqlite3@${prebuild.version}`] : []),
        'typescript@6.0.3',
        '@types/node@20.19.43',
        // Optional peers for type-checking without skipLibCheck: the server's types name Express's,
        // werift's (under webrtc-sfu's) name multicast-dns's.
        '@types/express@5.0.6',
        '@types/multicast-dns@7.2.4',
      ],
      { cwd: work, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...prebuild?.env } },
    );
    copyFileSync(fileURLToPath(new URL('./consumer.mjs', import.meta.url)), path.join(work, 'consumer.mts'));
    writeFileSync(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.mts'],
      }),
    );
    const typeCheck = await run(path.join(work, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], {
      cwd: work,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(typeCheck).toBe('');
    copyFileSync(path.join(work, 'consumer.mts'), path.join(work, 'consumer.mjs'));
    const { stdout } = await run(process.execPath, ['consumer.mjs'], {
      cwd: work,
      env: { ...process.env, CONSUMER_DATA_DIR: path.join(work, 'data') },
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({
      preview: 'function',
      chat: 0,
      saml: 'function',
      routers: 0,
      app: 'function',
    });
    const required = await run(
      process.execPath,
      [
        '-e',
        `for (const name of ${JSON.stringify(libraries.map((library) => `@collab-suite/${library}`))}) require(name);`,
      ],
      { cwd: work },
    );
    expect(required.stderr).not.toContain('Error');
    for (const library of libraries) {
      const name = `@collab-suite/${library}`;
      const timed = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const start = performance.now(); await import(${JSON.stringify(name)}); console.log((performance.now() - start).toFixed(0));`,
        ],
        { cwd: work },
      );
      console.log(`import time of ${name}: ${timed.stdout.trim()} ms (cold process, not asserted)`);
    }
    expect(
      await startsListening(
        path.join(work, 'node_modules/.bin/collab-suite-server'),
        path.join(work, 'bin-data'),
      ),
    ).toBe(true);
  }, 600_000);
});
