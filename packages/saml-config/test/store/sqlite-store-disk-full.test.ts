import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fillDisk, mountSmallDisk } from '../../../../test-support/small-disk.js';
import { createSqliteSamlPropertyStore } from '../../src/sqlite.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';

const disk = mountSmallDisk('1m');
afterAll(() => disk.unmount());

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
