import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteSamlPropertyStore } from '../../src/index.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';

/** A 1 MiB tmpfs, a real full disk; or why this machine cannot make one. */
function mountSmallDisk():
  | { directory: string; missing?: undefined }
  | { directory?: undefined; missing: string } {
  if (process.getuid?.() !== 0) return { missing: 'mounting a tmpfs needs root' };
  const directory = mkdtempSync(join(tmpdir(), 'saml-sqlite-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', directory], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) {
    rmSync(directory, { recursive: true, force: true });
    return { missing: `mount -t tmpfs failed: ${mounted.stderr.trim() || mounted.error?.message}` };
  }
  return { directory };
}

/** Writes `file` until the disk refuses more (ENOSPC). */
function fillDisk(file: string): void {
  const descriptor = openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(descriptor, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(descriptor);
  }
}

const disk = mountSmallDisk();
afterAll(() => {
  if (!disk.directory) return;
  spawnSync('umount', ['--lazy', disk.directory]);
  rmSync(disk.directory, { recursive: true, force: true });
});

describe('SQLite SAML property store on a full disk (a 1 MiB tmpfs)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'refuses a write with storage_full, keeps what was stored, and writes again once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      const store = createSqliteSamlPropertyStore({ filename: join(disk.directory, 'saml.sqlite') });
      try {
        await store.write('example.com', { set: { 'sp.entityid': 'urn:kept' } });
        const filler = join(disk.directory, 'filler');
        fillDisk(filler);
        const error = await store
          .write('example.com', {
            set: { 'sp.entityid': 'urn:lost', 'idp.x509cert': 'x'.repeat(256 * 1024) },
          })
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({
          name: 'SamlConfigError',
          code: 'storage_full',
          cause: { code: 'SQLITE_FULL' },
        });
        expect(await store.get('example.com')).toEqual({ 'sp.entityid': 'urn:kept' });

        rmSync(filler);
        await store.write('example.com', { set: { 'sp.entityid': 'urn:written' } });
        expect(await store.get('example.com')).toEqual({ 'sp.entityid': 'urn:written' });
      } finally {
        await store.close();
      }
    },
  );
});
